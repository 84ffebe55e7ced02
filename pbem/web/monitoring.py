"""``GET /metrics`` for Prometheus, and the time each request takes.

Off unless ``PBEM_METRICS=1``: the page says how busy the service is, which
is the operator's business.  With ``PBEM_METRICS_TOKEN`` set, only a request
with ``Authorization: Bearer <that token>`` gets it (401 otherwise); a public
service does not start without one (``pbem.core.config.check_safe``), so only a
loopback one may leave it open.  Never rate-limited, no cookie."""

from __future__ import annotations

import hmac
import time

from flask import Blueprint, Flask, Response, current_app, g, request

from ..core import metrics
from ..core.app_context import context

bp = Blueprint("monitoring", __name__)


def _allowed() -> bool:
    token = str(current_app.config.get("METRICS_TOKEN") or "")
    if not token:
        return True  # this machine only (check_safe refuses a public service without one)
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    # Constant time: the answer's timing tells nothing of how much of a guess was right.
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


@bp.get("/metrics")
def exposition() -> Response:
    if not _allowed():
        refused = Response("a bearer token is needed for /metrics\n", status=401, mimetype="text/plain")
        refused.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'
        refused.headers["Cache-Control"] = "no-store"
        return refused
    response = Response(metrics.exposition(context().engine), mimetype="text/plain")
    response.headers["Content-Type"] = "text/plain; version=0.0.4; charset=utf-8"
    response.headers["Cache-Control"] = "no-store"
    return response


def _start() -> None:
    g.metrics_started = time.perf_counter()


def _observe(response: Response) -> Response:
    started = g.pop("metrics_started", None)
    if started is not None:
        # By the route's pattern (/play/<token>), never the path: a path holds
        # tokens, and each distinct label value would be a series of its own.
        route = request.url_rule.rule if request.url_rule is not None else "unmatched"
        metrics.REQUESTS.labels(route=route, method=request.method).observe(time.perf_counter() - started)
    return response


def init_app(app: Flask) -> None:
    if not app.config.get("METRICS"):
        return
    app.register_blueprint(bp)
    app.extensions["pbem_limits"].extension.exempt(bp)
    app.before_request(_start)
    app.after_request(_observe)
