"""Web Push end to end on the production stack: a Redis broker, a Celery
worker, a real SMTP server, and a real HTTP server on 127.0.0.1 standing for
the browser's push service.  A subscribed seat's push arrives within seconds of
the other player's move, and the browser's own key (made in the test) decrypts
it; its turn mail comes beside it; a 410 from the push service drops the
subscription."""

from __future__ import annotations

import time
from typing import Any, Iterator

import pytest
from celery.contrib.testing.worker import start_worker
from sqlmodel import select

from pbem import games
from pbem.core.db import session_scope
from pbem.core.push_tables import PushSubscription
from pbem.table import push
from tests.support.clock import wait_until
from tests.support.brokers import broker_db, empty
from tests.support.config import redis_db
from tests.support.games import email_of, new_game, to_move
from tests.support.push import Browser, vapid_key
from tests.support.receiver import Receiver
from tests.support.smtp import SmtpServer

@pytest.fixture
def push_worker(database_url: str, smtp: SmtpServer, redis_url: str) -> Iterator[Any]:
    from pbem.web import create_app

    broker = broker_db(redis_db(2))
    app = create_app(smtp.config(database_url, BROKER_URL=broker, VAPID_PRIVATE_KEY=vapid_key(),
                                 WEBHOOK_ALLOW="127.0.0.1"))
    celery = app.extensions["celery"]
    assert not celery.conf.task_always_eager
    with start_worker(celery, pool="solo", concurrency=1, perform_ping_check=False,
                      loglevel="WARNING", shutdown_timeout=10):
        yield app
    app.extensions["pbem"].engine.dispose()
    empty(broker)


def test_a_push_reaches_the_browser_within_seconds_of_the_move(push_worker: Any, smtp: SmtpServer,
                                                               receiver: Receiver) -> None:
    ctx = push_worker.extensions["pbem"]
    receiver.status = 201
    _, toks = new_game(ctx, 2)
    moving, view = to_move(ctx, toks)
    waiting = next(t for t in toks if t != moving)
    browser = Browser(receiver.url)
    push.subscribe(ctx, waiting, browser.subscription())
    started = time.monotonic()
    games.submit_move(ctx, moving, view["legal_moves"][0], None, view["ply"])
    got = wait_until(lambda: receiver.posts, timeout=10.0)
    took = time.monotonic() - started
    assert took < 5.0, f"the push took {took:.1f} s"
    said = browser.read(got[0].body)
    mine = games.seat_view(ctx, waiting)
    assert said["body"] == f"{mine['you']}: it is your turn in game {mine['game']} (move 2)."
    assert said["url"] == f"{ctx.base_url}/play/{waiting}"
    # The turn mail comes beside it (the default mode).
    assert smtp.collector.wait_for(1, kind="turn")[-1].to == email_of(mine)
    # The browser withdrew the subscription: the push service answers 410, and it is dropped.
    receiver.status = 410
    for _ in range(2):
        token, view = to_move(ctx, toks)
        games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])
    wait_until(lambda: len(receiver.posts) == 2, timeout=10.0)

    def dropped() -> bool:
        with session_scope(ctx.engine) as session:
            return not session.exec(select(PushSubscription)).all()

    assert wait_until(dropped, timeout=10.0)
