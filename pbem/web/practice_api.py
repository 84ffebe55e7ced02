"""Practice from here in the JSON API: ``POST /api/v1/seat/practice`` (Bearer)
``{"level": "easy" | "medium" | "hard", "ply": N}`` starts a private game
against the computer from the seat's current position (``pbem.games.practice``)
and answers ``201 {"game", "token"}``: the practice game's public id and the
caller's seat token in it.  ``ply`` (optional) is the position the client saw;
a game that has moved on since is refused as ``stale``.  Described in
``openapi_practice``."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, jsonify

from .. import games
from ..core.app_context import context
from .api import _bearer, _challenge, _json_body
from .limits import limits

bp = Blueprint("practice_api", __name__, url_prefix="/api/v1")


bp.after_request(_challenge)


@bp.post("/seat/practice")
def practice() -> Any:
    token = _bearer()
    body = _json_body()
    limits().per_ip("LIMIT_NEW_GAMES")
    made = games.practice_from_seat(context(), token, body.get("level"), body.get("ply"))
    return jsonify({"game": made.game, "token": made.token}), 201


def init_app(app: Flask) -> None:
    """Register the routes; the API takes no form token (its credential is the Bearer token)."""
    app.register_blueprint(bp)
    app.extensions["csrf"].exempt(bp)
