"""Rate limits, with Flask-Limiter's storage (Redis when a broker is configured,
so every process shares the counts; memory in the demo) and the ``limits``
library's fixed windows.

Limits are configuration (``LIMIT_*``, in Flask-Limiter's notation such as
``5 per minute; 20 per hour``).  They guard what an anonymous visitor can make
the service do that sends mail or costs work: starting games, sign-in mails,
invitations to one address, new seat links.  A player's moves and page views are
never limited.  The service layer reaches them through ``Context.limit``.

A key that is an email address counts for its mailbox (``pbem.people.players.mailbox``:
``ann+1@x`` and ``Ann+2@x`` are ``ann@x``), and the store holds only an HMAC of
that mailbox under the secret key (:func:`stored_key`): nothing in Redis names a
person, before or after ``pbem admin forget``."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import time
from typing import Sequence

from flask import Flask, current_app, request
from flask_limiter import Limiter
from flask_limiter.constants import ConfigVars
from flask_limiter.util import get_remote_address
from limits import parse_many
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter, RateLimiter

from ..core.errors import RateLimited
from ..people.players import mailbox
from ..words import N_

log = logging.getLogger(__name__)

#: Flask-Limiter's own settings that have it count every request, in hooks it
#: runs before and after each one.  The service sets none of them (its limits are
#: counted where they apply, by :class:`Limits`); a deployment or a test may.
REQUEST_LIMITS = (ConfigVars.DEFAULT_LIMITS, ConfigVars.APPLICATION_LIMITS, ConfigVars.META_LIMITS)


class Limits:
    def __init__(self, app: Flask) -> None:
        self.config = app.config
        broker = str(app.config["BROKER_URL"])
        storage = app.config["RATELIMIT_STORAGE_URL"] or (broker if broker.startswith("redis") else "memory://")
        self.extension = Limiter(key_func=get_remote_address, storage_uri=storage,
                                 storage_options={"socket_timeout": 2, "socket_connect_timeout": 2}
                                 if storage.startswith("redis") else {})
        if not any(app.config.get(key) for key in REQUEST_LIMITS):
            # With no limit on every request, Flask-Limiter's three hooks (before,
            # after, teardown) would only find nothing to count on each of them, a
            # fifth of a millisecond of every move.  It adds them once per app,
            # unless the app already lists the limiter: listing it first keeps
            # them out, and it still sets up its store and strategy for us.
            app.extensions.setdefault("limiter", set()).add(self.extension)
        self.extension.init_app(app)
        self.fallback = FixedWindowRateLimiter(MemoryStorage())
        app.extensions["pbem_limits"] = self

    def __call__(self, name: str, keys: Sequence[str]) -> None:
        """Count one for each key under the limit ``name``; refuse if any count
        went over.  Each ``hit`` is one atomic increment in the store, so
        requests at the same moment cannot all pass a look before any counts
        (a refused request may have used up a count: that errs on the safe side)."""
        try:
            self._count(self.extension.limiter, name, keys)
        except RateLimited:
            raise
        except Exception as e:  # noqa: BLE001 - the limit store is down
            # Never unlimited: this process counts on its own until the store is back.
            log.error("rate limit %s counted in this process only (limit store unreachable: %s)", name, e)
            self._count(self.fallback, name, keys)

    def _count(self, strategy: RateLimiter, name: str, keys: Sequence[str]) -> None:
        items = parse_many(str(self.config[name]))
        stored = {stored_key(str(self.config["SECRET_KEY"]), key): key for key in keys}
        over = [(item, key) for item in items for key in stored if not strategy.hit(item, name, key)]
        if over:
            item, key = over[0]
            reset = strategy.get_window_stats(item, name, key).reset_time
            # When every full window has passed (a day's limit, filled by the same requests,
            # can outlast the five minutes' one): a page that says when to ask again says that.
            clear = max(stats.reset_time for stats in (strategy.get_window_stats(i, name, k)
                                                       for i in items for k in stored) if stats.remaining <= 0)
            log.warning("rate limit %s (%s) reached for %s", name, item, _shown(stored[key]))
            raise RateLimited(N_("too many requests: please wait and try again later"),
                              retry_after=int(reset - time.time()) + 1,
                              clear_after=int(max(reset, clear) - time.time()) + 1)

    def per_ip(self, name: str) -> None:
        self(name, [client_key(get_remote_address() or request.remote_addr or "unknown")])


def client_key(address: str) -> str:
    """One key per client: an IPv4 address, or an IPv6 address's /64 (one
    household or server has a whole /64 to pick addresses from)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def stored_key(secret_key: str, key: str) -> str:
    """What the store counts under for ``key``: an email address becomes
    ``mailbox:`` and the HMAC-SHA256 of its mailbox under the secret key (a bare
    SHA-256 of an address could be found by hashing a list of addresses); other
    keys (an IP address, ``seat:12``) are kept as they are.

    >>> k = stored_key("key", "Ann+1@example.org")
    >>> k == stored_key("key", "ann+2@EXAMPLE.org") == stored_key("key", "ann@example.org"), "ann" in k
    (True, False)
    >>> stored_key("key", "192.0.2.1")
    '192.0.2.1'
    """
    if "@" not in key:
        return key
    mac = hmac.new(secret_key.encode(), b"limit-mailbox|" + mailbox(key).encode(), hashlib.sha256).hexdigest()
    return f"mailbox:{mac}"


def _shown(key: str) -> str:
    # Logs name the client, not the whole address of a person.
    return key if "@" not in key else "***@" + key.rpartition("@")[2]


def limits() -> Limits:
    found: Limits = current_app.extensions["pbem_limits"]
    return found
