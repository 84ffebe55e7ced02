"""The JSON API (``/api/v1``): translates requests into service calls."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, jsonify, request

from ..table import rematch as rematches, webhooks
from ..core.errors import BadRequest, Unauthorized
from ..rules.views import NewGameView
from ..core.app_context import context
from .limits import limits
from .openapi import OPENAPI
from .. import games

bp = Blueprint("api", __name__, url_prefix="/api/v1")


@bp.after_request
def _challenge(response: Any) -> Any:
    # A 401 names the scheme to authenticate with (RFC 9110 section 11.6.1).
    if response.status_code == 401:
        response.headers.setdefault("WWW-Authenticate", 'Bearer realm="seat"')
    return response


def _number(text: str) -> float | int:
    # JSON has one kind of number: 3.0 is the whole number 3 (as the document's
    # "integer" says), however the client's encoder wrote it.
    value = float(text)
    return int(value) if value.is_integer() else value


def _json_body() -> dict[str, Any]:
    body: Any = None
    if request.is_json:
        try:
            body = json.loads(request.get_data(), parse_float=_number)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested beyond reason
            body = None
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object", code="bad-json")
    return body


def _bearer() -> str:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("send your seat token as 'Authorization: Bearer TOKEN'")
    return token.strip()


@bp.post("/games")
def create_game() -> Any:
    limits().per_ip("LIMIT_NEW_GAMES")
    body = _json_body()
    players = games.parse_players(body.get("players"))
    requirements = games.parse_requirements(body.get("requirements"))
    options = games.parse_time_options(body.get("clock"), body.get("weekends_off"), body.get("vacation"))
    game_id = games.start_game(context(), players, body.get("turn_hours"), requirements=requirements,
                               options=options)
    view: NewGameView = {"id": game_id, **games.public_game(context(), game_id)}
    return jsonify(view), 201, {"Location": f"/api/v1/games/{game_id}"}


@bp.get("/games/<game_id>")
def game(game_id: str) -> Any:
    return jsonify(games.public_game(context(), game_id))


@bp.get("/games/<game_id>/record")
def record(game_id: str) -> Any:
    return jsonify(games.export_game(context(), game_id))


@bp.get("/seat")
def seat() -> Any:
    return jsonify(games.seat_view(context(), _bearer()))


@bp.post("/seat/accept")
def accept() -> Any:
    return jsonify(games.accept(context(), _bearer()))


@bp.post("/seat/moves")
def move() -> Any:
    token = _bearer()
    body = _json_body()
    view = games.submit_move(context(), token, body.get("move"), body.get("order"), body.get("ply"))
    return jsonify(view)


@bp.post("/seat/mail")
def mail() -> Any:
    token = _bearer()
    return jsonify(games.set_mail(context(), token, _json_body().get("mail")))


@bp.post("/seat/style")
def style() -> Any:
    """How your page and your mail draw the board: ``{"style": "standard" | "contrast"}``."""
    token = _bearer()
    return jsonify(games.set_board_style(context(), token, _json_body().get("style")))


@bp.post("/seat/pause")
def pause() -> Any:
    """Pause your own clock for ``days`` days: ``{"days": n}``."""
    token = _bearer()
    return jsonify(games.pause_clock(context(), token, _json_body().get("days")))


@bp.post("/seat/computer")
def computer() -> Any:
    """Hand a seat to the computer: ``{"bot": level}`` for your own, with
    ``"seat": n`` for an away player's."""
    token = _bearer()
    body = _json_body()
    return jsonify(games.hand_to_computer(context(), token, body.get("bot"), body.get("seat")))


@bp.get("/seat/webhooks")
def seat_webhooks() -> Any:
    """The game's webhooks (the addresses of your own only) and your Discord user id."""
    return jsonify(webhooks.webhooks_of(context(), _bearer()))


@bp.post("/seat/webhooks")
def add_webhook() -> Any:
    """Add a webhook: ``{"kind": "discord" | "slack" | "json", "url": "https://..."}``;
    a json webhook's signing secret is in this answer only."""
    token = _bearer()
    body = _json_body()
    made = webhooks.add_webhook(context(), token, body.get("kind"), body.get("url"))
    return jsonify({"webhook": made.webhook, "secret": made.secret}), 201


@bp.delete(f"/seat/webhooks/<int(max={2**31 - 1}):webhook_id>")
def remove_webhook(webhook_id: int) -> Any:
    return jsonify(webhooks.remove_webhook(context(), _bearer(), webhook_id))


@bp.post("/seat/discord")
def discord() -> Any:
    """Your Discord user id, for the game's Discord posts to mention you: ``{"discord_id": "123..." | null}``."""
    token = _bearer()
    return jsonify(webhooks.set_discord_id(context(), token, _json_body().get("discord_id")))


@bp.post("/seat/rematch")
def rematch() -> Any:
    """Play again after the end: the rematch with the same players (201 when this
    call started it, 200 when it was there already), and your seat token in it."""
    made = rematches.play_again(context(), _bearer(), before_start=lambda: limits().per_ip("LIMIT_NEW_GAMES"))
    return jsonify({"game": made.game, "token": made.token, "created": made.created}), 201 if made.created else 200


@bp.get("/openapi.json")
def openapi() -> Any:
    return jsonify(OPENAPI)
