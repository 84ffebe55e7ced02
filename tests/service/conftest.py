"""Fixtures of the service tests: the environment ``pbem admin`` runs in."""

from __future__ import annotations

import pytest

from tests.support.config import SECRET


@pytest.fixture
def operator_env(database_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """``PBEM_*`` variables for a ``pbem`` command run in this process on the
    test's database: a loopback base URL, so that mail is caught in the
    database and work runs in-process (as a command on the demo would)."""
    for name, value in {"PBEM_DATABASE_URL": database_url, "PBEM_SECRET_KEY": SECRET,
                        "PBEM_BASE_URL": "http://127.0.0.1:5000", "PBEM_BROKER_URL": "", "PBEM_SMTP_HOST": "",
                        "PBEM_MAILBOX": "0"}.items():
        monkeypatch.setenv(name, value)
    return database_url
