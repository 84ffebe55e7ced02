"""``autocommit_scope``: on PostgreSQL each statement commits by itself until
``begin_transaction``, after which the rest is one transaction; what it refuses.
A common move uses it to save the BEGIN and COMMIT round trips (issue 34)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from pbem.core import db
from pbem.core.models import Bounce


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = db.make_engine(database_url)
    yield engine
    engine.dispose()


def _marks(engine: Engine) -> list[str]:
    with db.session_scope(engine) as session:
        return sorted(session.exec(select(Bounce.address_hash)).all())


def _mark(session: Session, name: str) -> None:
    session.connection().execute(text("INSERT INTO bounce (address_hash, soft, created_at) VALUES (:h, 0, :now)"),
                                 {"h": name, "now": datetime.now(timezone.utc)})


def test_before_begin_transaction_a_statement_stays_written_after_an_error(engine: Engine) -> None:
    with pytest.raises(RuntimeError):
        with db.autocommit_scope(engine) as session:
            _mark(session, "first")
            raise RuntimeError("the request died")
    assert _marks(engine) == (["first"] if engine.dialect.name == "postgresql" else [])


def test_after_begin_transaction_an_error_undoes_everything_from_there(engine: Engine) -> None:
    with pytest.raises(RuntimeError):
        with db.autocommit_scope(engine) as session:
            _mark(session, "before")
            db.begin_transaction(session)
            _mark(session, "after-1")
            _mark(session, "after-2")
            raise RuntimeError("the request died")
    assert _marks(engine) == (["before"] if engine.dialect.name == "postgresql" else [])
    with db.autocommit_scope(engine) as session:
        db.begin_transaction(session)
        _mark(session, "after-1")
        session.add(Bounce(address_hash="after-2"))  # the unit of work too, in the transaction
    assert {"after-1", "after-2"} <= set(_marks(engine))


def test_changes_left_for_the_unit_of_work_without_a_transaction_are_refused(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("on SQLite autocommit_scope is a transaction from the start")
    with pytest.raises(RuntimeError, match="begin_transaction"):
        with db.autocommit_scope(engine) as session:
            session.add(Bounce(address_hash="unwritten"))
    # Nor written by the flush a query makes first (autoflush): refused there, before it writes.
    with pytest.raises(RuntimeError, match="begin_transaction"):
        with db.autocommit_scope(engine) as session:
            session.add(Bounce(address_hash="autoflushed"))
            session.exec(select(Bounce)).all()
    # Nor a change to a loaded row, which the end of the scope would otherwise drop.
    with db.session_scope(engine) as session:
        session.add(Bounce(address_hash="loaded", soft=0, created_at=datetime.now(timezone.utc)))
    with pytest.raises(RuntimeError, match="begin_transaction"):
        with db.autocommit_scope(engine) as session:
            session.exec(select(Bounce)).one().soft = 3
    assert _marks(engine) == ["loaded"]
    with db.session_scope(engine) as session:
        assert session.exec(select(Bounce)).one().soft == 0


def test_the_connection_goes_back_to_the_pool_as_it_came(engine: Engine) -> None:
    """No autocommit left behind for the next borrower of the connection."""
    if engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's autocommit")
    with db.autocommit_scope(engine) as session:
        assert session.connection().connection.dbapi_connection.autocommit is True  # type: ignore[union-attr]
    with db.session_scope(engine) as session:
        assert session.connection().connection.dbapi_connection.autocommit is False  # type: ignore[union-attr]
        _mark(session, "in-a-transaction")
        assert session.execute(text("SELECT now() = statement_timestamp()")).scalar_one() is False
