"""Configuration: embedded defaults, overridden by ``PBEM_``-prefixed environment
variables, overridden by a mapping given to ``create_app``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

DEFAULTS: dict[str, Any] = {
    # None: SQLite in instance/ (or PBEM_INSTANCE_PATH), decided when the config is loaded.
    "DATABASE_URL": None,
    # Unset: background work runs in-process (Celery's eager mode).
    "BROKER_URL": "",
    # Seconds a publish may wait for the broker's answer; after a failed publish the
    # relay leaves new mail to the sweep for BROKER_PAUSE seconds.
    "BROKER_TIMEOUT": 5.0,
    "BROKER_PAUSE": 30.0,
    # Unset: mail is caught in the database and shown at /mailbox.
    "SMTP_HOST": "",
    "SMTP_PORT": 25,
    "SMTP_USER": "",
    "SMTP_PASSWORD": "",
    "SMTP_TLS": False,
    "SMTP_TIMEOUT": 20.0,
    "MAIL_FROM": "Clans by Mail <clans@localhost>",
    "BASE_URL": "http://127.0.0.1:5000",
    "SECRET_KEY": "dev-only-secret-change-me",
    "MAILBOX": None,  # None: on exactly when SMTP_HOST is unset
    "TURN_HOURS": 72,
    "REMINDER_HOURS": 24,
    "VACATION_DAYS": 7,
    "DIGEST_HOUR": 7,  # UTC hour after which the daily digest goes out
    "LOGIN_MINUTES": 30,
    "MAX_CONTENT_LENGTH": 64 * 1024,
}

_BOOLS = {"1": True, "true": True, "yes": True, "on": True,
          "0": False, "false": False, "no": False, "off": False, "": False}


def load_config(overrides: Mapping[str, Any] | None = None,
                environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The effective configuration; values from the environment are converted to
    the type of their default."""
    env = os.environ if environ is None else environ
    config = dict(DEFAULTS)
    for key, default in DEFAULTS.items():
        raw = env.get(f"PBEM_{key}")
        if raw is None:
            continue
        config[key] = _convert(key, raw, default)
    if overrides:
        config.update(overrides)
    if not config["DATABASE_URL"]:
        instance = Path(env.get("PBEM_INSTANCE_PATH") or Path.cwd() / "instance")
        config["DATABASE_URL"] = f"sqlite:///{instance / 'pbem.sqlite3'}"
    if config["MAILBOX"] is None:
        config["MAILBOX"] = not config["SMTP_HOST"]
    config["BASE_URL"] = str(config["BASE_URL"]).rstrip("/")
    return config


def _convert(key: str, raw: str, default: Any) -> Any:
    if isinstance(default, bool) or default is None and key == "MAILBOX":
        value = _BOOLS.get(raw.strip().lower())
        if value is None:
            raise ValueError(f"PBEM_{key}={raw!r}: expected a yes/no value")
        return value
    if isinstance(default, int):
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"PBEM_{key}={raw!r}: expected a whole number") from None
    if isinstance(default, float):
        try:
            return float(raw)
        except ValueError:
            raise ValueError(f"PBEM_{key}={raw!r}: expected a number") from None
    return raw
