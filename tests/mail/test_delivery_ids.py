"""``X-PBEM-Delivery`` tells no outbox row id (issue 27, section 4): a webhook's
receiver could otherwise count every message the service sends.  It stays the
same on every try of one post, so that a receiver can still drop a repeat."""

from __future__ import annotations

from typing import Any

from pbem.workers import clock
from pbem.table import webhooks
from tests.support.clock import frozen_clock
from tests.support.games import new_game, play
from tests.support.receiver import Receiver


def test_the_delivery_id_is_opaque_and_the_same_on_every_try(hctx: Any, receiver: Receiver) -> None:
    now = frozen_clock(hctx)
    _, toks = new_game(hctx)
    webhooks.add_webhook(hctx, toks[0], "json", receiver.url)
    receiver.status = 503  # the first try fails ...
    play(hctx, toks, 1)
    receiver.status = 204
    now.advance(hours=1)
    clock.sweep_outbox(hctx)  # the retry
    play(hctx, toks, 2)  # ... and two more turns are posted
    ids = [p.headers["x-pbem-delivery"] for p in receiver.posts]
    assert len(ids) >= 3
    assert all(not i.isdigit() and len(i) == 32 for i in ids), ids
    # Two different posts never share one; the first post's retry has its first try's.
    assert len(set(ids)) == len(ids) - 1 and ids[0] == ids[1], ids
