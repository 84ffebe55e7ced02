"""Calendars of deadlines: ``GET /api/v1/seat/calendar`` (Bearer) gives the
address of the seat's private iCalendar feed, and ``GET /calendar/<token>.ics``
is the feed itself (what a calendar program subscribes to: it sends no
headers, so the address's own token is the credential, and it opens nothing
but the feed).  A token that opens no feed is 404 and changes nothing."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, Response, jsonify

from ..core.app_context import context
from ..games import calendar
from .api import _bearer, _challenge

bp = Blueprint("calendar_api", __name__, url_prefix="/api/v1")
# A 401 names the scheme, as the rest of the API's do.
bp.after_request(_challenge)
feeds = Blueprint("calendar", __name__)


@bp.get("/seat/calendar")
def seat_calendar() -> Any:
    # Made on first asking, the same address every time after.
    return jsonify(calendar.seat_feed(context(), _bearer()))


@feeds.route("/calendar/<token>.ics", methods=["GET", "HEAD"])
def feed(token: str) -> Any:
    return Response(calendar.feed_text(context(), token), mimetype="text/calendar",
                    headers={"Content-Disposition": 'inline; filename="clans.ics"'})


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.register_blueprint(feeds)
