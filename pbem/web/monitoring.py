"""``GET /metrics`` for Prometheus, and the time each request takes.

Off unless ``PBEM_METRICS=1``: the page says how busy the service is, which
is the operator's business; an operator who turns it on serves it to their
scraper only (README, "Running it in public").  Never rate-limited, no cookie."""

from __future__ import annotations

import time

from flask import Blueprint, Flask, Response, g, request

from .. import metrics
from ..app_context import context

bp = Blueprint("monitoring", __name__)


@bp.get("/metrics")
def exposition() -> Response:
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
