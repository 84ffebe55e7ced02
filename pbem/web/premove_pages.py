"""The seat page's pre-moves (its own section, ``templates/seat/_premoves.html``):
the seat's list, adding a move, removing one, clearing them.  Each is a POST
from the page (CSRF-checked like every form); a refusal shows the page again
with the reason and its status, and stores nothing (``seat_pages.refused``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, request, url_for

from ..core.app_context import context
from ..core.errors import ServiceError
from ..words import N_, move_text, then_keyword
from .locale import seat_words
from .seat_pages import Refusal, _parse_order, answer_refusals, refused
from .. import games

bp = Blueprint("premoves", __name__)
bp.register_error_handler(ServiceError, refused)


@bp.app_context_processor
def _premove_words() -> dict[str, Any]:
    # The reply word the section teaches is the seat's own ("aztán 12-13, 4-5").
    return {"premove_then": lambda view: then_keyword(seat_words(view))}


def _back(token: str) -> Any:
    return redirect(url_for("pages.play", token=token) + "#premoves", 303)


@bp.post("/play/<token>/premoves")
def add(token: str) -> Any:
    text = request.form.get("move", "")[:200].strip()
    order_text = request.form.get("order", "")[:500]
    answer_refusals(Refusal(sentence=N_("%(error)s The pre-move was not added."),
                            form={"premove": text, "premove_order": order_text}))
    order = _parse_order(order_text)
    move = games.read_move(text, strict=False)
    games.add_premove(context(), token, move, order)
    flash(seat_words(games.seat_view(context(), token))._("Pre-move %(move)s added.", move=move_text(move)), "ok")
    return _back(token)


@bp.post("/play/<token>/premoves/<int(max=99):index>/remove")
def remove(token: str, index: int) -> Any:
    answer_refusals(Refusal())
    games.remove_premove(context(), token, index)
    flash(seat_words(games.seat_view(context(), token))._("The pre-move is removed."), "ok")
    return _back(token)


@bp.post("/play/<token>/premoves/clear")
def clear(token: str) -> Any:
    answer_refusals(Refusal())
    games.clear_premoves(context(), token)
    flash(seat_words(games.seat_view(context(), token))._("Your pre-moves are cleared."), "ok")
    return _back(token)
