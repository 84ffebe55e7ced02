"""The move's two statements run on the driver: compiled once, then handed to
psycopg as SQL and parameters, without SQLAlchemy's execution around them.

Core costs each execution about 55 µs of Python besides the driver's own
(issue 34: the execution context, the result's set-up and each row's
conversion), about a tenth of a move once its other costs were cut; on the
driver the move's look-up and write together cost 160 µs less.  What Core
adds is done here once: the statement compiled for the dialect, each bound
value and each column converted by its type as Core converts them.

Core runs the statement instead whenever its own execution is wanted or
would differ: another driver than psycopg (SQLite), a connection in a
transaction (this path is for statements that commit by themselves, see
:func:`pbem.core.db.autocommit_scope`), SQL echo or logging, or anyone listening to the
connection's cursor events (the tests that count statements, a tracer): they
see every statement as before.  A driver error is handled by Core's own
handler (a private method, the one Core's execution calls: a connection that
died makes the whole pool reconnect, as ``pbem.core.db`` expects, and
``handle_error`` listeners hear of it); ``tests/service/test_prepared.py``
holds it to that."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from sqlalchemy.engine import Connection


@dataclass
class _Plan:
    sql: str
    compiled: Any
    binds: dict[str, Callable[[Any], Any]]
    #: The columns that convert, by place, with their conversions; made at the
    #: first run, from the types the server reports (as Core makes them).
    columns: list[tuple[int, Callable[[Any], Any]]] | None = field(default=None)


#: Plans by statement, then by dialect: a statement passed here is built once
#: (at import, or by an unbounded ``lru_cache``), so the table stays as small.
_PLANS: dict[Any, dict[tuple[Any, ...], _Plan]] = {}
_SQL_LOG = logging.getLogger("sqlalchemy.engine")


def rows(conn: Connection, statement: Any, params: dict[str, Any]) -> Sequence[Sequence[Any]]:
    """``conn.execute(statement, params).all()``: the same rows (tuples here),
    converted as Core converts them."""
    driver: Any = conn.connection.driver_connection
    if (conn.dialect.driver != "psycopg" or not getattr(driver, "autocommit", False)
            or conn.engine.echo or _SQL_LOG.isEnabledFor(logging.INFO)
            or conn.dispatch.before_cursor_execute or conn.dispatch.after_cursor_execute):
        return conn.execute(statement, params).all()
    plan = _plan(conn, statement)
    values = plan.compiled.construct_params(params)
    for name, convert in plan.binds.items():
        values[name] = convert(values[name])
    cursor = driver.cursor()
    try:
        cursor.execute(plan.sql, values, prepare=True)
        found: list[tuple[Any, ...]] = cursor.fetchall()
        if plan.columns is None:
            plan.columns = _column_conversions(conn, plan, cursor.description)
        cursor.close()
    except BaseException as e:
        conn._handle_dbapi_exception(e, plan.sql, values, cursor, None)
    columns = plan.columns
    if not columns:
        return found
    # Only the columns that convert are visited: the look-up's rows have 57
    # columns, of which few convert (a generator over all of them cost it 20 µs).
    converted = []
    for row in found:
        cells = list(row)
        for at, convert in columns:
            cells[at] = convert(cells[at])
        converted.append(tuple(cells))
    return converted


def _plan(conn: Connection, statement: Any) -> _Plan:
    dialect = conn.dialect
    plans = _PLANS.setdefault(statement, {})
    key = (dialect.name, dialect.driver, dialect.server_version_info)
    plan = plans.get(key)
    if plan is None:
        compiled = statement.compile(dialect=dialect)
        if "POSTCOMPILE" in compiled.string:
            raise ValueError("a statement with expanding parameters is compiled at each run: run it through Core")
        binds = {}
        for bind in compiled.binds.values():
            convert = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if convert is not None:
                # Under the name it has in the SQL, as construct_params names it.
                name = compiled.bind_names[bind]
                binds[compiled.escaped_bind_names.get(name, name)] = convert
        plan = plans[key] = _Plan(compiled.string, compiled, binds)
    return plan


def _column_conversions(conn: Connection, plan: _Plan, description: Any) -> list[tuple[int, Callable[[Any], Any]]]:
    dialect = conn.dialect
    columns = plan.compiled.statement.selected_columns
    if len(columns) != len(description):
        raise ValueError(f"the statement names {len(columns)} columns and its rows have {len(description)}")
    conversions = [column.type.dialect_impl(dialect).result_processor(dialect, described.type_code)
                   for column, described in zip(columns, description)]
    return [(at, convert) for at, convert in enumerate(conversions) if convert is not None]

