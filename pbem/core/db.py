"""The database adapter: engines, sessions and the schema's migrations."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timezone
from time import monotonic
from pathlib import Path
from typing import Any, Iterator, Sequence, overload

import psycopg
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import sessionmaker
from sqlmodel import Session, create_engine

MIGRATIONS = Path(__file__).resolve().parents[1] / "migrations"


def make_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        # SQLite's own BEGIN is deferred, so two writers could both read a
        # game and then one would fail late; BEGIN IMMEDIATE takes the write
        # lock up front and the second writer waits its turn.
        event.listen(engine, "begin", lambda conn: conn.exec_driver_sql("BEGIN IMMEDIATE"))
        return engine
    engine = create_engine(url, pool_size=5, max_overflow=10, connect_args={"cursor_factory": _Cursor})
    _ping_when_idle(engine)
    return engine


class _Description(Sequence[Any]):
    """A result's ``cursor.description``, its columns described only if asked.
    SQLAlchemy reads the description of every result, and uses it only the
    first time a statement runs (later it has the columns' meaning cached); for
    the 60 columns of a seat's look-up, describing them was 7% of a move's time."""

    def __init__(self, cursor: "_Cursor", result: Any) -> None:
        self._cursor = cursor
        self._result: Any = result
        self._columns: list[Any] | None = None

    def _described(self) -> list[Any]:
        if self._columns is None:
            if self._cursor.pgresult is not self._result:
                raise RuntimeError("a description read after its cursor ran another statement or closed")
            self._columns = [psycopg.Column(self._cursor, i) for i in range(len(self))]
        return self._columns

    def __len__(self) -> int:
        return int(self._result.nfields)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        return self._described()[index]


class _Cursor(psycopg.Cursor[Any]):
    @property
    def description(self) -> Any:
        result = self.pgresult
        if result is not None and result.nfields:
            return _Description(self, result)
        return super().description  # no columns: None, or [] for a "SELECT ;"


#: A pooled connection that rested longer than this is pinged before it is lent
#: again.  Not every connection at every checkout (``pool_pre_ping``): that is a
#: round trip on every request, to catch what a connection in steady use
#: does not meet.  A connection that rested is the one
#: that may have died meanwhile (a restart, a fail-over, an idle timeout); one
#: that dies while in use fails its request, which is rolled back, and
#: SQLAlchemy then drops the whole pool, so every later request gets a fresh one.
IDLE_PING_SECONDS = 5.0
_RETURNED = "pbem.returned_at"


def _ping_when_idle(engine: Engine) -> None:
    def returned(_dbapi: Any, record: Any) -> None:
        record.info[_RETURNED] = monotonic()

    def lent(dbapi: Any, record: Any, _proxy: Any) -> None:
        rested = monotonic() - record.info.get(_RETURNED, monotonic())
        if rested <= IDLE_PING_SECONDS:
            return
        try:
            alive = engine.dialect.do_ping(dbapi)
        except Exception as e:  # noqa: BLE001  (any failure: the connection is gone)
            raise DisconnectionError(f"a pooled connection died while it rested: {e}") from e
        if not alive:
            raise DisconnectionError("a pooled connection died while it rested")

    event.listen(engine, "checkin", returned)
    event.listen(engine, "checkout", lent)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # Let SQLAlchemy's "begin" event issue BEGIN itself (see make_engine).
    dbapi_connection.isolation_level = None
    cur = dbapi_connection.cursor()
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


# One session factory for every engine, each session given its engine when it is
# made: building a sessionmaker makes a new Session class, and one per
# transaction cost more than a quarter millisecond of every move.  Not one
# factory per engine kept in a table: a factory holds its engine, so the table
# would keep every engine ever made (each test's) alive.
_SESSIONS = sessionmaker(class_=Session, expire_on_commit=False)


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """One transaction: committed if the block ends normally, rolled back if not."""
    with _SESSIONS(bind=engine) as session, session.begin():
        yield session


_AUTOCOMMIT = "pbem.autocommit"


@contextmanager
def autocommit_scope(engine: Engine) -> Iterator[Session]:
    """A session whose statements commit one by one (PostgreSQL's autocommit)
    until :func:`begin_transaction`: for work that reads, then writes a single
    statement, such as a common move.  BEGIN and COMMIT are two of such a
    move's round trips to the database, and each wakes the server and the
    worker once more: under load that cost a seventh of the moves per second
    (issue 34).  Anything the ORM would write (an added or changed object)
    needs :func:`begin_transaction` first: a flush before it is refused, so
    nothing is written outside the transaction it belongs to.  On SQLite this
    is :func:`session_scope`."""
    if engine.dialect.name != "postgresql":
        with session_scope(engine) as session:
            yield session
        return
    with engine.connect() as conn:
        conn.execution_options(isolation_level="AUTOCOMMIT")
        with _SESSIONS(bind=conn) as session:
            session.info[_AUTOCOMMIT] = conn
            try:
                yield session
                if _AUTOCOMMIT in session.info and not (session.new or session.dirty or session.deleted):
                    # Each statement committed itself and nothing waits to be
                    # written: no COMMIT to make, and the session's own (a flush
                    # of nothing, the connection's commit) cost a move 15 µs.
                    # Anything waiting goes to commit, which refuses it.
                    return
                session.commit()
            except BaseException:
                session.rollback()
                raise


@event.listens_for(_SESSIONS, "before_flush")
def _refuse_autocommitted_flush(session: Session, *_: Any) -> None:
    if _AUTOCOMMIT in session.info:
        raise RuntimeError("the ORM would write outside a transaction: call begin_transaction() first")


def begin_transaction(session: Session) -> None:
    """From here on, what ``session`` does is one transaction, committed when
    its :func:`autocommit_scope` ends (for a :func:`session_scope`, nothing to
    do).  The session must hold no unwritten change (see :func:`autocommit_scope`)."""
    conn = session.info.get(_AUTOCOMMIT)
    if conn is None:
        return
    # Ends the autocommitted part (its reads, at READ COMMITTED as a transaction's would be).
    session.commit()
    del session.info[_AUTOCOMMIT]
    conn.execution_options(isolation_level=conn.default_isolation_level)


def alembic_config(url: str) -> Any:
    # Alembic is imported here, not at the top: only ``pbem db upgrade`` and the
    # demo need it, and it would add a quarter second to every process's start.
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Create or migrate the schema (``pbem db upgrade``)."""
    from alembic import command  # not at the top: see alembic_config

    if make_url(url).get_backend_name() == "sqlite":
        make_engine(url).dispose()  # creates the folder for the file
    command.upgrade(alembic_config(url), revision)


@overload
def as_utc(when: datetime) -> datetime: ...


@overload
def as_utc(when: datetime | None) -> datetime | None: ...


def as_utc(when: datetime | None) -> datetime | None:
    """SQLite hands datetimes back without their zone; they are all UTC."""
    if when is None or when.tzinfo is not None:
        return when
    return when.replace(tzinfo=timezone.utc)
