"""Quick match's JSON API: asking to be seated with strangers; and offering to
take over an away seat (:mod:`pbem.games.substitutes`).  Confirming is
``POST /api/v1/seat/accept`` with the mailed link's token.  Described in
:mod:`.openapi_lobby`."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from ..core.app_context import context
from .. import games
from .api import _json_body
from .limits import limits

bp = Blueprint("match_api", __name__, url_prefix="/api/v1")


@bp.post("/lobby/quick")
def quick() -> Any:
    """Wait for a table of strangers: ``{"name", "email", "players": [3, 4], "turn_hours",
    "language"?, "time_zone"?}`` → ``202`` and a confirmation mail."""
    limits().per_ip("LIMIT_JOINS_IP")
    ctx = context()
    wish = games.quick_match.parse_wish(_json_body(), int(ctx.config["TURN_HOURS"]))
    games.quick_match.request(ctx, wish)
    return jsonify({"mailed": True}), 202


@bp.post("/lobby/<table_id>/substitute")
def substitute(table_id: str) -> Any:
    """Take over an away seat of a lobby game: ``{"name", "email", "language"?, "time_zone"?}``
    → ``202`` and an invitation whose acceptance moves its link into the seat."""
    limits().per_ip("LIMIT_JOINS_IP")
    person = games.lobby.parse_joiner(_json_body())
    public_id = games.substitutes.volunteer(context(), table_id, person)
    return jsonify({"id": public_id, "mailed": True}), 202
