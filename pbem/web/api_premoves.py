"""The JSON API of a seat's pre-moves (``/api/v1/seat/premoves``): its own ranked
list of moves for its next turn, private to the seat (see :mod:`pbem.games.premoves`)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from ..core.app_context import context
from .api import _bearer as bearer, _challenge, _json_body as json_body
from .. import games

bp = Blueprint("api_premoves", __name__, url_prefix="/api/v1")
bp.after_request(_challenge)


@bp.get("/seat/premoves")
def get_premoves() -> Any:
    return jsonify(games.premoves_of(context(), bearer()))


@bp.put("/seat/premoves")
def put_premoves() -> Any:
    """Set the list: ``{"moves": ["12-13", {"move": "4-5", "order": [6, 7]}]}``."""
    token = bearer()
    return jsonify(games.set_premoves(context(), token, json_body().get("moves")))


@bp.delete("/seat/premoves")
def delete_premoves() -> Any:
    return jsonify(games.clear_premoves(context(), bearer()))
