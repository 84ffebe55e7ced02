"""A pooled PostgreSQL connection that died while it rested (a restart, a
fail-over, an idle timeout) is found by a ping before it is lent again, so the
request that takes it does not fail; one in steady use is not pinged."""

from __future__ import annotations

from typing import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from pbem.core import db
from tests.support.backends import kill_backend


@pytest.fixture
def engine(postgresql_url: str) -> Iterator[Engine]:
    engine = db.make_engine(postgresql_url)
    yield engine
    engine.dispose()


def _backend(engine: Engine) -> int:
    with db.session_scope(engine) as session:
        return int(session.execute(text("SELECT pg_backend_pid()")).scalar_one())


def test_a_connection_that_died_while_it_rested_is_replaced(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db, "IDLE_PING_SECONDS", 0.0)
    first = _backend(engine)
    kill_backend(first)
    second = _backend(engine)  # the ping found the dead one: a fresh connection, no error
    assert second != first


def test_a_connection_in_steady_use_is_not_pinged(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    # What the ping is for: without it (a connection that rested less than the
    # limit), the dead connection is lent and its request fails, rolled back;
    # SQLAlchemy then drops the pool, and the next request is served.
    monkeypatch.setattr(db, "IDLE_PING_SECONDS", 3600.0)
    first = _backend(engine)
    kill_backend(first)
    with pytest.raises(OperationalError):
        _backend(engine)
    assert _backend(engine) != first
