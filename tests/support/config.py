"""The tests' settings: where the test services are, the secret and base address
the test apps use, the tables a test database empties, and the app configuration
built from them."""

from __future__ import annotations

import os
from typing import Any

import pytest

POSTGRES_ADMIN = os.environ.get("PBEM_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
#: Each pytest-xdist worker has a Redis database of its own (gw0: 15, gw1: 14, ...).
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
REDIS_URL = os.environ.get("PBEM_TEST_REDIS", f"redis://127.0.0.1:6379/{15 - _WORKER}")
REQUIRE = os.environ.get("PBEM_REQUIRE_SERVICES") == "1"
SECRET = "test-secret-key-of-at-least-32-characters"
BASE_URL = "https://clans.example"
TABLES = ["caught_mail", "webhook", "outbox", "move", "login", "table_message", "reply_token", "inbound", "bounce", "seat",
          "game", "suppression", "rating"]


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
