"""The move's statements on the driver (pbem/core/prepared.py): the rows Core
gives, converted as Core converts them, errors raised as Core raises them, and
Core itself whenever someone listens or a transaction is open."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from sqlalchemy import Integer, String, bindparam, cast, event, exc, text
from sqlalchemy.engine import Connection
from sqlmodel import select

from pbem.core import prepared, tokens
from pbem.core.db import session_scope
from pbem.core.models import GameStatus, MailChoice, Seat
from pbem.games import lookup
from tests.support.backends import kill_backend
from tests.support.games import db_id, new_game, seat_tokens


def _postgresql(ctx: Any) -> None:
    if ctx.engine.dialect.name != "postgresql":
        pytest.skip("the driver path is PostgreSQL's")


@pytest.fixture
def look_up(ctx: Any) -> tuple[Any, dict[str, Any]]:
    """A seat's look-up and its parameters, for a game of three."""
    public_id, _ = new_game(ctx, 3)
    with session_scope(ctx.engine) as session:
        seat = session.exec(select(Seat).where(Seat.game_id == db_id(ctx, public_id), Seat.position == 1)).one()
        seat.mail = MailChoice.DIGEST  # an enum that is not the default, converted both ways
    # New connections from here: none has prepared a statement yet.
    ctx.engine.dispose()
    return lookup._SEATS_OF_TOKEN, {"digest": tokens.digest(seat_tokens(ctx, public_id)[0])}


@pytest.fixture
def autocommit(ctx: Any, look_up: Any) -> Iterator[Connection]:
    with ctx.engine.connect() as conn:
        conn.execution_options(isolation_level="AUTOCOMMIT")
        yield conn


def _prepared_here(conn: Connection) -> list[str]:
    """The statements psycopg has prepared on this connection: one run on the
    driver prepares its statement at once, Core's only from the fifth."""
    return list(conn.exec_driver_sql("SELECT statement FROM pg_prepared_statements").scalars())


def test_the_driver_gives_the_rows_core_gives(ctx: Any, look_up: Any, autocommit: Connection) -> None:
    _postgresql(ctx)
    statement, params = look_up
    ours = prepared.rows(autocommit, statement, params)
    core = [tuple(row) for row in autocommit.execute(statement, params).all()]
    assert [tuple(row) for row in ours] == core and len(core) == 3
    assert [[type(v) for v in row] for row in ours] == [[type(v) for v in row] for row in core]
    # A StrEnum equals its text: only "is" tells the member from the string.
    assert any(v is MailChoice.DIGEST for row in ours for v in row)
    assert any(v is GameStatus.ACTIVE for row in ours for v in row)


def test_on_postgresql_the_statement_runs_on_the_driver(ctx: Any, look_up: Any, autocommit: Connection) -> None:
    _postgresql(ctx)
    statement, params = look_up
    prepared.rows(autocommit, statement, params)
    assert any("FROM seat" in s for s in _prepared_here(autocommit))


def test_core_runs_it_inside_a_transaction(ctx: Any, look_up: Any) -> None:
    _postgresql(ctx)
    statement, params = look_up
    with ctx.engine.begin() as conn:
        assert len(prepared.rows(conn, statement, params)) == 3
        assert not any("FROM seat" in s for s in _prepared_here(conn))


def test_a_listener_sees_every_statement(ctx: Any, look_up: Any, autocommit: Connection) -> None:
    _postgresql(ctx)
    statement, params = look_up
    seen: list[str] = []

    def note(_conn: Any, _cursor: Any, sql: str, *_: Any) -> None:
        seen.append(sql)

    event.listen(ctx.engine, "before_cursor_execute", note)
    try:
        assert len(prepared.rows(autocommit, statement, params)) == 3
    finally:
        event.remove(ctx.engine, "before_cursor_execute", note)
    assert len(seen) == 1 and "FROM seat" in seen[0]
    assert not any("FROM seat" in s for s in _prepared_here(autocommit))


def test_a_refused_statement_is_raised_as_core_raises_it(ctx: Any, autocommit: Connection) -> None:
    _postgresql(ctx)
    statement = select(cast(bindparam("n", type_=String), Integer))
    assert prepared.rows(autocommit, statement, {"n": "12"}) == [(12,)]
    with pytest.raises(exc.DataError) as raised:
        prepared.rows(autocommit, statement, {"n": "twelve"})
    assert "twelve" in str(raised.value) and not raised.value.connection_invalidated
    assert prepared.rows(autocommit, statement, {"n": "13"}) == [(13,)]  # the connection goes on


def _backend(conn: Connection) -> int:
    pid: int = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
    return pid


def test_a_connection_that_died_resets_the_pool_as_core_does(ctx: Any) -> None:
    """A dead connection tells Core that the server went away: every pooled
    connection is dropped, not only the one that failed (pbem/core/db.py counts
    on it), so the next request after a restart is served."""
    _postgresql(ctx)
    statement = select(cast(bindparam("n", type_=String), Integer))
    first, second = ctx.engine.connect(), ctx.engine.connect()
    first.execution_options(isolation_level="AUTOCOMMIT")
    pids = [_backend(first), _backend(second)]
    second.close()  # back in the pool, its server process about to die too
    for pid in pids:
        kill_backend(pid)
    heard: list[bool] = []
    event.listen(ctx.engine, "handle_error", lambda context: heard.append(context.is_disconnect))
    with pytest.raises(exc.OperationalError) as raised:
        prepared.rows(first, statement, {"n": "1"})
    assert raised.value.connection_invalidated and first.invalidated and heard == [True]
    first.close()
    for _ in range(2):  # neither dead connection is lent again
        with ctx.engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT")
            assert prepared.rows(conn, statement, {"n": "2"}) == [(2,)]
            assert _backend(conn) not in pids
