"""The pieces of the stall bench (bench/stall.py), without the stack: its bombs are
what the door and the worker refuse, and its slow receiver holds a post until the
post's deadline.  No timings here: ``python -m bench --only stall`` measures."""

from __future__ import annotations

import pytest

from bench.stall import BOMBS, SlowReceiver, bombs
from pbem.inbound import structure
from pbem.mail import webhook_http
from pbem.mail.webhook_posts import Post


def test_the_benchs_bombs_are_each_beyond_a_bound() -> None:
    made = bombs("move@clans.bench", 1)
    assert len(made) == BOMBS
    assert [structure.problem(raw) for raw in made] == ["header-bytes", "depth", "depth", "parts"]
    assert len({raw.split(b"Message-ID: ")[1][:20] for raw in made}) == BOMBS  # stored apart


def test_the_slow_receiver_holds_a_post_until_its_deadline() -> None:
    receiver = SlowReceiver(every=0.2)
    try:
        with pytest.raises(webhook_http.WebhookRefused) as refused:
            webhook_http.send(Post(1, receiver.url, b"{}", {"Content-Type": "application/json"}),
                              {"WEBHOOK_ALLOW": "127.0.0.1"}, deadline=0.5)
        assert refused.value.category == "timed out" and receiver.connections == 1
    finally:
        receiver.stop()
