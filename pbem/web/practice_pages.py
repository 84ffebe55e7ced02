"""Practice from here, as pages: from a finished game's replay (any position
but the last, any seat; for a signed-in player) and from a running game's
seat page (its current position, the player's own seat).  Each is a POST from
its page's form and leads to the practising player's seat in the new game.

Who may: from a seat, its link's holder (the seat token is the seat's
credential).  From a replay, which anyone may open, only a player signed in:
the service then knows an address that is really theirs to put in the seat,
and nothing is mailed to an address a visitor typed.  Each start counts as a
new game for the client (``LIMIT_NEW_GAMES``) and against the player's own
``LIMIT_PRACTICE``."""

from __future__ import annotations

from typing import Any

from flask import flash, redirect, request, url_for

from .. import games
from ..core.app_context import context
from ..core.errors import Unauthorized
from ..rules.computer import Level
from ..words import N_
from .limits import limits
from .locale import language, seat_words
from .pages import WHOLE, bp, signed_in_email
from .seat_pages import Refusal, answer_refusals


@bp.app_template_global("practice_levels")
def practice_levels() -> list[tuple[str, bool]]:
    """The computer's levels a practice form offers, each with whether it is
    the one chosen to begin with (medium, as on the seat page)."""
    return [(level, level == Level.MEDIUM.value) for level in games.LEVELS]


def _whole(name: str) -> object:
    """A whole number from the form, else the text (which the service refuses)."""
    text = request.form.get(name, "")[:12]
    m = WHOLE.fullmatch(text)
    return int(m.group(1)) if m else text


def _started(made: games.Practice) -> Any:
    fresh = games.seat_view(context(), made.token)
    w = seat_words(fresh)
    flash(w._("Your practice game has started: it is yours alone, against the computer, and it is not rated."),
          "ok")
    return redirect(url_for(".play", token=made.token), 303)


@bp.post("/play/<token>/practice")
def practice(token: str) -> Any:
    """Practise from this seat's current position."""
    answer_refusals(Refusal(N_("%(error)s No practice game was started.")))
    level = request.form.get("level", "")[:20]
    ply = _whole("ply") if request.form.get("ply") else None
    limits().per_ip("LIMIT_NEW_GAMES")
    return _started(games.practice_from_seat(context(), token, level, ply))


@bp.post("/games/<game_id>/replay/practice")
def replay_practice(game_id: str) -> Any:
    """Practise from a position of a finished game's replay, in a seat of one's choosing."""
    email = signed_in_email()
    if email is None:
        raise Unauthorized(N_("sign in first: ask for a sign-in link by email"), code="not-signed-in")
    level = request.form.get("level", "")[:20]
    limits().per_ip("LIMIT_NEW_GAMES")
    made = games.practice_from_replay(context(), game_id, _whole("ply"), _whole("seat"), level, email,
                                      language())
    return _started(made)
