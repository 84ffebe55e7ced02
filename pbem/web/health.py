"""What a load balancer or an orchestrator asks every few seconds.

- ``GET /healthz``: the process is up and serving; no I/O at all.
- ``GET /readyz``: the database answers ``SELECT 1`` and the broker ``PING``,
  each within a short time-out (``pbem.ops.probes``); ``503`` naming the one that
  did not.  With no broker configured (work runs in-process) the broker is
  ``not configured`` and does not count.

Both are plain JSON for machines, never rate-limited, set no cookie and say
nothing secret: the reason a probe failed goes to the log, not to whoever asks.
"""

from __future__ import annotations

import logging
import threading
import time

from flask import Blueprint, Flask, Response, current_app, jsonify

from ..ops import probes

bp = Blueprint("health", __name__)
log = logging.getLogger(__name__)


def _answer(body: dict[str, object], status: int) -> Response:
    response = jsonify(body)
    response.status_code = status
    # A probe's answer is about this moment: no cache may keep it.
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/healthz")
def healthz() -> Response:
    return _answer({"status": "ok"}, 200)


#: How long one answer of the checks serves every probe that asks: a database
#: connection each (the probe's engine keeps none) for anyone who asks, as
#: often as they like, would be work an anonymous visitor could have done at will.
READY_CACHE_SECONDS = 2.0
_last: dict[tuple[str, str], tuple[float, list[probes.Probe]]] = {}
_asking = threading.Lock()


def _checks(database: str, broker: str, timeout: float) -> list[probes.Probe]:
    key = (database, broker)
    with _asking:  # probes arriving together share one round of checks
        done = _last.get(key)
        if done is not None and time.monotonic() - done[0] < READY_CACHE_SECONDS:
            return done[1]
        checks = [probes.database(database, timeout), probes.broker(broker, timeout)]
        _last[key] = (time.monotonic(), checks)
        return checks


@bp.get("/readyz")
def readyz() -> Response:
    config = current_app.config
    timeout = float(config["READY_TIMEOUT"])
    checks = _checks(str(config["DATABASE_URL"]), str(config["BROKER_URL"] or ""), timeout)
    failed = [c.name for c in checks if c.failed]
    for check in checks:
        if check.failed:
            log.warning("not ready: %s %s", check.name, check.detail)
    body: dict[str, object] = {"status": "unavailable" if failed else "ok",
                               "checks": {c.name: c.state for c in checks}}
    if failed:
        body["failed"] = failed
    return _answer(body, 503 if failed else 200)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    # No limit counts these (a probe every few seconds from every balancer),
    # whatever default limits the limiter is ever given.
    app.extensions["pbem_limits"].extension.exempt(bp)
