"""``/metrics`` is the operator's (issue 27, section 4): a bearer token guards
it, a public service does not start without one, and its labels tell nothing
of an address, not even whether it plays here."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from prometheus_client import REGISTRY

from pbem.core.config import UnsafeConfig, check_safe, load_config
from pbem.web import create_app
from tests.support.config import SECRET, app_config
from tests.support.games import new_game
from tests.support.messages import caught
from tests.support.web import ask_for_link

TOKEN = "metrics-token-of-the-operator-0123456789"
PUBLIC = {"PBEM_BASE_URL": "https://clans.example", "PBEM_SMTP_HOST": "mail.example",
          "PBEM_BROKER_URL": "redis://redis.example:6379/0", "PBEM_SECRET_KEY": SECRET, "PBEM_METRICS": "1"}


@pytest.fixture
def metrics_app(database_url: str) -> Iterator[Any]:
    app = create_app(app_config(database_url, METRICS=True, METRICS_TOKEN=TOKEN))
    yield app
    app.extensions["pbem"].engine.dispose()


def test_metrics_need_the_bearer_token(metrics_app: Any) -> None:
    client = metrics_app.test_client()
    for headers in ({}, {"Authorization": "Bearer wrong-token"}, {"Authorization": f"Basic {TOKEN}"},
                    {"Authorization": f"Bearer {TOKEN}x"}, {"Authorization": f"Bearer {TOKEN[:-1]}"},
                    {"Authorization": TOKEN}):
        refused = client.get("/metrics", headers=headers)
        assert refused.status_code == 401, headers
        assert refused.headers["WWW-Authenticate"].startswith("Bearer") and b"pbem_" not in refused.data
    ok = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200 and b"pbem_games_active" in ok.data
    assert client.get("/metrics", headers={"Authorization": f"bearer  {TOKEN}"}).status_code == 200


def test_a_public_service_does_not_serve_metrics_without_a_token() -> None:
    with pytest.raises(UnsafeConfig, match="PBEM_METRICS is on for the public base URL .* without PBEM_METRICS_TOKEN"):
        check_safe(load_config(environ=PUBLIC))
    with pytest.raises(UnsafeConfig, match="PBEM_METRICS_TOKEN"):
        check_safe(load_config(environ={**PUBLIC, "PBEM_METRICS_TOKEN": "short"}))
    check_safe(load_config(environ={**PUBLIC, "PBEM_METRICS_TOKEN": TOKEN}))
    # On this machine it may stay open; and metrics off need no token.
    check_safe(load_config(environ={**PUBLIC, "PBEM_BASE_URL": "http://127.0.0.1:8000"}))
    check_safe(load_config(environ={**PUBLIC, "PBEM_METRICS": "0"}))


def _login_counts() -> dict[str, float]:
    return {o: REGISTRY.get_sample_value("pbem_mail_total", {"kind": "login", "outcome": o}) or 0.0
            for o in ("handled", "sent", "skipped", "failed", "retry")}


def test_sign_in_mail_counts_do_not_tell_a_known_address_from_an_unknown_one(client: Any, ctx: Any) -> None:
    new_game(ctx, 2)  # ann@example.org plays here
    before = _login_counts()
    ask_for_link(client, ctx, "ann@example.org")
    known = _login_counts()
    ask_for_link(client, ctx, "nobody@example.org")
    unknown = _login_counts()
    assert len(caught(ctx, kind="login")) == 1  # one was sent, the other dropped ...
    # ... and the counts moved the same way for both.
    assert {o: known[o] - before[o] for o in known} == {o: unknown[o] - known[o] for o in known}
    assert known["handled"] - before["handled"] == 1
