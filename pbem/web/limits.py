"""Rate limits, with Flask-Limiter's storage (Redis when a broker is configured,
so every process shares the counts; memory in the demo) and the ``limits``
library's fixed windows.

Limits are configuration (``LIMIT_*``, in Flask-Limiter's notation such as
``5 per minute; 20 per hour``).  They guard what an anonymous visitor can make
the service do that sends mail or costs work: starting games, sign-in mails,
invitations to one address, new seat links.  A player's moves and page views are
never limited.  The service layer reaches them through ``Context.limit``."""

from __future__ import annotations

import logging
import time
from typing import Sequence

from flask import Flask, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse_many

from ..errors import RateLimited

log = logging.getLogger(__name__)


class Limits:
    def __init__(self, app: Flask) -> None:
        self.config = app.config
        broker = str(app.config["BROKER_URL"])
        storage = app.config["RATELIMIT_STORAGE_URL"] or (broker if broker.startswith("redis") else "memory://")
        self.extension = Limiter(key_func=get_remote_address, app=app, storage_uri=storage,
                                 storage_options={"socket_timeout": 2, "socket_connect_timeout": 2}
                                 if storage.startswith("redis") else {})
        app.extensions["pbem_limits"] = self

    def __call__(self, name: str, keys: Sequence[str]) -> None:
        """Count one for each key under the limit ``name``, or refuse them all."""
        items = parse_many(str(self.config[name]))
        strategy = self.extension.limiter
        try:
            for item in items:
                for key in keys:
                    if not strategy.test(item, name, key):
                        reset = strategy.get_window_stats(item, name, key).reset_time
                        log.warning("rate limit %s (%s) reached for %s", name, item, _shown(key))
                        raise RateLimited("too many requests: please wait and try again later",
                                          retry_after=int(reset - time.time()) + 1)
            for item in items:
                for key in keys:
                    strategy.hit(item, name, key)
        except RateLimited:
            raise
        except Exception as e:  # noqa: BLE001 - the limit store is down
            # Players keep playing while Redis is down; new mail waits in the outbox.
            log.error("rate limit %s not checked (limit store unreachable: %s)", name, e)

    def per_ip(self, name: str) -> None:
        self(name, [get_remote_address() or request.remote_addr or "unknown"])


def _shown(key: str) -> str:
    # Logs name the client, not the whole address of a person.
    return key if "@" not in key else "***@" + key.rpartition("@")[2]


def limits() -> Limits:
    from flask import current_app

    return current_app.extensions["pbem_limits"]  # type: ignore[no-any-return]
