"""Redis holds nothing that cannot be rebuilt: flushing the broker's database
in the middle of a game, with a turn mail waiting in it, loses nothing.  The
outbox row is still pending in the database, and the sweep that beat runs
every minute (``pbem.sweep_outbox``) hands it to the workers again; every
turn's mail arrives, once, at the real SMTP server."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
import redis
from celery.contrib.testing.worker import start_worker
from sqlmodel import col, select

from pbem import games
from pbem.core.db import session_scope
from pbem.core.models import MoveRecord, Outbox
from tests.support.clock import frozen_clock
from tests.support.config import redis_db
from tests.support.games import PLAYERS, seat_tokens, to_move
from tests.support.smtp import SmtpServer
from tests.support.tasks import drained, ran

MARK = "pbem-tests:flush"


@pytest.fixture
def broker(redis_url: str) -> Iterator[str]:  # redis_url: skipped (or failed) without Redis
    url = redis_db(4)  # this test's own (tests/support/config.py)
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    if client.dbsize() and not client.exists(MARK):
        pytest.fail(f"Redis database {url} holds keys that are not this test's: point PBEM_TEST_REDIS elsewhere")
    client.flushdb()
    client.set(MARK, "1")
    yield url
    client.flushdb()


def turn_mail(ctx: Any) -> list[Outbox]:
    with session_scope(ctx.engine) as session:
        return list(session.exec(select(Outbox).where(Outbox.kind == "turn").order_by(col(Outbox.id))))


def worker(celery: Any) -> Any:
    return start_worker(celery, pool="solo", concurrency=1, perform_ping_check=False, loglevel="WARNING",
                        shutdown_timeout=10)


def test_flushing_redis_mid_game_loses_nothing(database_url: str, smtp: SmtpServer, broker: str) -> None:
    from pbem.web import create_app

    app = create_app(smtp.config(database_url, BROKER_URL=broker))
    ctx, celery, box = app.extensions["pbem"], app.extensions["celery"], smtp.collector
    assert not celery.conf.task_always_eager
    try:
        with worker(celery):
            game_id = games.start_game(ctx, games.parse_players(PLAYERS), confirmed=True)
            toks = seat_tokens(ctx, game_id)
            for t in toks:
                games.accept(ctx, t)
            for ply in range(2):
                box.wait_for(ply + 1, kind="turn")
                t, view = to_move(ctx, toks)
                games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
            box.wait_for(3, kind="turn")

        # No worker: the next turn mail waits in Redis ...
        now = frozen_clock(ctx)
        t, view = to_move(ctx, toks)
        games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
        client = redis.Redis.from_url(broker)
        assert client.llen("celery") >= 1
        client.flushdb()  # ... and is gone with everything else Redis held.
        assert client.dbsize() == 0

        with worker(celery):
            drained(celery)  # the worker has taken whatever Redis still held: nothing
            waiting = [r for r in turn_mail(ctx) if r.status == "pending"]
            assert len(waiting) == 1 and len(box.messages(kind="turn")) == 3  # nothing brought it back yet
            # What beat runs every minute: the row is still in the database, and goes
            # once the sweep no longer leaves it to the relay (its first minute).
            ran(celery, "pbem.sweep_outbox")
            drained(celery)  # what the sweep handed on (nothing) has run
            assert len(box.messages(kind="turn")) == 3
            now.advance(minutes=2)
            celery.tasks["pbem.sweep_outbox"].delay()
            box.wait_for(4, kind="turn")
            # The game goes on as before.
            for ply in range(4, 6):
                t, view = to_move(ctx, toks)
                games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
                box.wait_for(ply + 1, kind="turn")
        rows = turn_mail(ctx)
        assert [r.status for r in rows] == ["sent"] * 6
        # Each turn's mail once, to the player whose turn it was.
        assert sorted(str(m.message["Message-ID"]) for m in box.messages(kind="turn")) == sorted(
            r.message_id for r in rows)
        assert [r.recipient for r in rows] == [m.to for m in box.messages(kind="turn")]
        with session_scope(ctx.engine) as session:
            assert len(session.exec(select(MoveRecord.id).where(MoveRecord.game_id == rows[0].game_id)).all()) == 5
    finally:
        ctx.engine.dispose()
