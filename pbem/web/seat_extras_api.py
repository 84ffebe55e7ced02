"""The JSON API of a seat's extras (``/api/v1``): nudging the player to move,
and the seat's private notes.  Translates requests into service calls."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from ..core.app_context import context
from .api import _bearer, _challenge, _json_body
from .. import games

bp = Blueprint("seat_extras_api", __name__, url_prefix="/api/v1")
bp.after_request(_challenge)


@bp.post("/seat/nudge")
def nudge() -> Any:
    """Nudge the player you are waiting on: a short mail to them (202), once a
    day per game, after waiting ``NUDGE_AFTER_HOURS``."""
    return jsonify(games.nudge(context(), _bearer())), 202


@bp.get("/seat/notes")
def notes() -> Any:
    """Your private notes for this game (only your own seat token reads them)."""
    return jsonify(games.notes(context(), _bearer()))


@bp.put("/seat/notes")
def set_notes() -> Any:
    """Keep your notes: ``{"text": "...", "in_turn_mail": bool?}`` (at most 4,000 characters)."""
    token = _bearer()
    body = _json_body()
    return jsonify(games.set_notes(context(), token, body.get("text"), body.get("in_turn_mail")))
