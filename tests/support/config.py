"""The tests' settings: where the test services are, the secret and base address
the test apps use, the tables a test database empties, and the app configuration
built from them."""

from __future__ import annotations

import os
from typing import Any

import pytest

POSTGRES_ADMIN = os.environ.get("PBEM_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
#: Each pytest-xdist worker has five Redis databases of its own (gw0: 15 to 11, gw1: 10 to 6):
#: REDIS_URL's, and four for the tests that run a broker (``redis_db``).
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
REDIS_URL = os.environ.get("PBEM_TEST_REDIS", f"redis://127.0.0.1:6379/{15 - 5 * _WORKER}")
REQUIRE = os.environ.get("PBEM_REQUIRE_SERVICES") == "1"
SECRET = "test-secret-key-of-at-least-32-characters"
BASE_URL = "https://clans.example"
TABLES = ["caught_mail", "webhook", "outbox", "move", "login", "table_message", "reply_token", "inbound", "bounce", "seat",
          "game", "suppression", "rating"]


def redis_db(n: int) -> str:
    """The ``n``-th (1 to 4) Redis database of this test worker beside REDIS_URL's:
    a broker test's own, so that two workers never empty each other's queues."""
    assert 1 <= n <= 4, n
    base, _, db = REDIS_URL.rpartition("/")
    return f"{base}/{int(db) - n}"


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
        **extra,
    }
