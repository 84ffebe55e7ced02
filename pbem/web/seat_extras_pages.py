"""The seat page's extras and the downloads: the nudge button and the notes
form (each a POST from the page, CSRF-checked like every form; a refusal shows
the page again with the reason, and changes nothing: ``seat_pages.refused``),
and a game's record and the board of any position to take away.

The board of a position is anyone's to see (``/games/ID/board/PLY.svg``); a
seat's own current board (``/play/TOKEN/board.svg``) is drawn from its own view,
with its clan and its board style.  A PNG is drawn on request, which costs work:
``LIMIT_BOARD_PNG`` per client IP."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, flash, redirect, request, url_for

from ..core.app_context import context
from ..core.errors import Conflict, Invalid, RateLimited, ServiceError
from ..drawing.picture import board_png
from ..drawing.svg import board_svg
from ..rules import classic_board
from ..table import downloads
from .limits import limits
from .locale import seat_words, words
from .seat_pages import Refusal, answer_refusals, refused
from .. import games

bp = Blueprint("extras", __name__)
bp.register_error_handler(ServiceError, refused)

#: How wide a downloaded board is drawn (the page's is as wide as the screen).
BOARD_WIDTH = 1200


@bp.post("/play/<token>/nudge")
def nudge(token: str) -> Any:
    answer_refusals(Refusal(answers=(Conflict, RateLimited)))
    sent = games.nudge(context(), token)
    w = seat_words(games.seat_view(context(), token))
    flash(w._("We emailed %(name)s that you are waiting for their move.", name=sent["nudged"]), "ok")
    return redirect(url_for("pages.play", token=token) + "#nudge", 303)


@bp.post("/play/<token>/notes")
def notes(token: str) -> Any:
    # A little over the limit is kept, so that the page can say how long it was.
    text = request.form.get("notes", "")[:games.MAX_NOTES * 2]
    answer_refusals(Refusal(form={"notes": text}, answers=(Invalid,)))
    games.set_notes(context(), token, text, request.form.get("in_turn_mail") == "1")
    w = seat_words(games.seat_view(context(), token))
    flash(w._("Your notes are saved. Only you can see them."), "ok")
    return redirect(url_for("pages.play", token=token) + "#notes", 303)


def _attachment(body: str | bytes, mimetype: str, filename: str) -> Response:
    return Response(body, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@bp.get("/games/<game_id>/record.json")
def record(game_id: str) -> Any:
    """The game's ``clans-record/1`` (clans only once it is over), as ``pbem export`` prints it."""
    found = downloads.record(context(), game_id)
    return _attachment(json.dumps(found, ensure_ascii=False, indent=2) + "\n", "application/json",
                       f"clans-{game_id}.json")


def _svg(position: downloads.Position) -> str:
    w = words()
    title = (w._("The board after move %(ply)s", ply=position.ply) if position.ply
             else w._("The board at the set-up"))
    drawn = board_svg(classic_board(), position.view, width=BOARD_WIDTH, title=title, w=w, style=position.style)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + drawn + "\n"


def _png(position: downloads.Position) -> bytes:
    limits().per_ip("LIMIT_BOARD_PNG")
    return board_png(classic_board(), position.view, width=BOARD_WIDTH, style=position.style)


@bp.get("/games/<game_id>/board/<int:ply>.svg")
def board_svg_file(game_id: str, ply: int) -> Any:
    position = downloads.public_position(context(), game_id, ply)
    return _attachment(_svg(position), "image/svg+xml", f"clans-{position.game}-move-{ply}.svg")


@bp.get("/games/<game_id>/board/<int:ply>.png")
def board_png_file(game_id: str, ply: int) -> Any:
    position = downloads.public_position(context(), game_id, ply)
    return _attachment(_png(position), "image/png", f"clans-{position.game}-move-{ply}.png")


@bp.get("/play/<token>/board.svg")
def seat_board_svg(token: str) -> Any:
    position = downloads.seat_position(context(), token)
    if position.own is not None:
        seat_words(position.own)  # its own language, like its page
    return _attachment(_svg(position), "image/svg+xml", f"clans-{position.game}-move-{position.ply}-yours.svg")


@bp.get("/play/<token>/board.png")
def seat_board_png(token: str) -> Any:
    position = downloads.seat_position(context(), token)
    return _attachment(_png(position), "image/png", f"clans-{position.game}-move-{position.ply}-yours.png")
