"""The tests' settings: where the test services are, the secret and base address
the test apps use, the tables a test database empties, and the app configuration
built from them."""

from __future__ import annotations

import os
from typing import Any

import pytest

POSTGRES_ADMIN = os.environ.get("PBEM_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
#: Each pytest-xdist worker has five Redis databases of its own, counting down
#: from PBEM_TEST_REDIS's (default 15): gw0 15 to 11, gw1 10 to 6, gw2 5 to 1 —
#: REDIS_URL's, and four for the tests that run a broker (``redis_db``).
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
_REDIS = os.environ.get("PBEM_TEST_REDIS", "redis://127.0.0.1:6379/15")
_REDIS_BASE, _, _REDIS_FIRST = _REDIS.rpartition("/")
_REDIS_DB = (int(_REDIS_FIRST) if _REDIS_FIRST.isdigit() else 15) - 5 * _WORKER
REDIS_URL = f"{_REDIS_BASE if _REDIS_FIRST.isdigit() else _REDIS.rstrip('/')}/{_REDIS_DB}"
REQUIRE = os.environ.get("PBEM_REQUIRE_SERVICES") == "1"
SECRET = "test-secret-key-of-at-least-32-characters"
BASE_URL = "https://clans.example"
TABLES = ["substitute_offer", "match_request", "vacation_bank", "talk_report", "block", "profile", "lobby_seat", "lobby_table", "nudge", "seat_note", "caught_mail", "daily_mail",
          "calendar_feed", "webhook", "push_subscription", "outbox", "move", "login", "table_message", "reply_token", "inbound", "bounce", "seat",
          "game", "suppression", "rating"]


def redis_db(n: int) -> str:
    """The ``n``-th (1 to 4) Redis database of this test worker beside REDIS_URL's:
    a broker test's own, so that two workers never empty each other's queues."""
    assert 1 <= n <= 4, n
    if _REDIS_DB - 4 < 0:
        pytest.fail(f"PBEM_TEST_REDIS={_REDIS} leaves test worker gw{_WORKER} no Redis databases of its own "
                    "(each takes five, counting down from it): name database 15, or run fewer workers")
    return f"{REDIS_URL.rpartition('/')[0]}/{_REDIS_DB - n}"


def unavailable(what: str, why: object) -> None:
    """Skip, or fail when the services are required."""
    message = f"{what} not reachable, skipped: {why}"
    if REQUIRE:
        pytest.fail(message + " (PBEM_REQUIRE_SERVICES=1)")
    pytest.skip(message)


def app_config(database_url: str, **extra: Any) -> dict[str, Any]:
    return {
        "DATABASE_URL": database_url,
        "SECRET_KEY": SECRET,
        "BASE_URL": BASE_URL,
        "BROKER_URL": "",
        "SMTP_HOST": "",
        "MAILBOX": False,
        "TESTING": True,
        # The computer moves at once, and the hard player searches briefly.
        "BOT_DELAY": 0,
        "BOT_SECONDS": 0.1,
        # Nobody has vacation days: a lapsed deadline is the autopilot's at once,
        # as the clock's tests expect; the vacation tests give some.
        "VACATION_DAYS": 0,
        **extra,
    }
