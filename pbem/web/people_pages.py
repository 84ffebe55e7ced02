"""The pages of strangers, safely: a person's public profile (``/people/<id>``),
blocking a player (from the seat page's table talk and from a profile),
reporting a table message (from the seat page), and on "My games" the
profile's settings and the list of blocked people.  Every change is a POST of
a page's form (checked against forgery); views only translate into service calls."""

from __future__ import annotations

from typing import Any

from flask import flash, redirect, render_template, request, url_for

from ..core.app_context import context
from ..core.errors import Conflict, Invalid, NotFound, RateLimited, Unauthorized
from ..people import profiles
from ..table import blocking, reports
from ..words import N_
from .locale import seat_words, words
from .pages import WHOLE, bp, signed_in_email
from .seat_pages import Box, Refusal, answer_refusals
from .. import games


def _whole(field: str) -> int | None:
    m = WHOLE.fullmatch(request.form.get(field, "")[:20])
    return int(m.group(1)) if m else None


def waited(seconds: int | None) -> tuple[str, int] | None:
    """A median time to move as (unit, number): minutes under two hours,
    hours under two days, days beyond."""
    if seconds is None:
        return None
    if seconds < 2 * 3600:
        return "minutes", max(1, round(seconds / 60))
    if seconds < 2 * 86400:
        return "hours", round(seconds / 3600)
    return "days", round(seconds / 86400)


@bp.app_context_processor
def _people_globals() -> dict[str, Any]:
    return {"waited": waited}


@bp.get("/people/<public_id>")
def profile(public_id: str) -> Any:
    """A person's public profile: their name, reliability and (if they show it)
    rating; never an address.  A hidden profile is not found."""
    shown = profiles.public_profile(context(), public_id)
    email = signed_in_email()
    own = blocked = False
    if email:
        own = profiles.own_profile(context(), email).public_id == shown.public_id
        blocked = not own and profiles.blocks_profile(context(), email, public_id)
    return render_template("profile.html", profile=shown, r=shown.reliability, own=own, blocked=blocked)


@bp.post("/people/<public_id>/block")
def profile_block(public_id: str) -> Any:
    """Block (or, ``block=0``, unblock) the person of a profile: signed in only."""
    email = signed_in_email()
    if not email:
        raise Unauthorized(N_("sign in first: ask for a sign-in link by email"), code="not-signed-in")
    on = request.form.get("block") != "0"
    name, _ = profiles.block_from_profile(context(), email, public_id, on)
    w = words()
    flash(w._("You blocked %(name)s: you will not see their messages at the table or be seated with them "
              "again.", name=name) if on else w._("You unblocked %(name)s.", name=name), "ok")
    return redirect(url_for(".profile", public_id=public_id), 303)


@bp.post("/play/<token>/block")
def seat_block(token: str) -> Any:
    """Block (or, ``block=0``, unblock) the author of a table message
    (``message``) or the player in a seat (``seat``)."""
    answer_refusals(Refusal(N_("%(error)s Nothing was changed."), box=Box.TALK,
                            answers=(Invalid, Conflict, NotFound)))
    on = request.form.get("block") != "0"
    message, seat = _whole("message"), _whole("seat")
    if message is None and seat is None:
        raise Invalid(N_("name the player to block: their seat, or a message they wrote"), code="no-target")
    act = blocking.block_player if on else blocking.unblock_player
    done = act(context(), token, seat=seat, message=message)
    w = seat_words(games.seat_view(context(), token))
    flash(w._("You blocked %(name)s: you will not see their messages at the table or be seated with them "
              "again.", name=done.name) if on else w._("You unblocked %(name)s.", name=done.name), "ok")
    return redirect(url_for(".play", token=token) + "#talk", 303)


@bp.post("/play/<token>/report")
def seat_report(token: str) -> Any:
    """Report another player's table message to the operator."""
    answer_refusals(Refusal(N_("%(error)s Nothing was reported."), box=Box.TALK,
                            answers=(Invalid, Conflict, NotFound, RateLimited)))
    message = _whole("message")
    reason = request.form.get("reason", "")[:reports.MAX_REASON * 2].strip() or None
    done = reports.report_talk(context(), token, message if message is not None else -1, reason)
    w = seat_words(games.seat_view(context(), token))
    flash(w._("Thank you: the message was reported to the people who run this service.") if done.created
          else w._("You had reported this message already."), "ok")
    return redirect(url_for(".play", token=token) + "#talk", 303)


@bp.post("/games/profile")
def profile_settings() -> Any:
    """Hide (or show) your profile, and whether it shows your rating: signed in only."""
    email = signed_in_email()
    if not email:
        raise Unauthorized(N_("sign in first: ask for a sign-in link by email"), code="not-signed-in")
    own = profiles.set_profile(context(), email, hidden=request.form.get("hidden") == "1",
                               show_rating=request.form.get("show_rating") == "1")
    w = words()
    flash(w._("Saved: your profile is hidden; it is as if you had none.") if own.hidden
          else w._("Saved: your profile can be seen by anyone with its link."), "ok")
    return redirect(url_for(".games") + "#profile", 303)


@bp.post("/games/blocks/<int(max=2147483647):block_id>/remove")
def unblock_listed(block_id: int) -> Any:
    """Remove someone from your list of blocked people: signed in only."""
    email = signed_in_email()
    if not email:
        raise Unauthorized(N_("sign in first: ask for a sign-in link by email"), code="not-signed-in")
    profiles.unblock_listed(context(), email, block_id)
    flash(words()._("Saved: you unblocked them."), "ok")
    return redirect(url_for(".games") + "#blocks", 303)


def people_card(email: str) -> dict[str, Any]:
    """What "My games" shows of the signed-in person's profile and blocks."""
    own = profiles.own_profile(context(), email)
    return {"profile": own,
            "link": url_for("pages.profile", public_id=own.public_id) if own.public_id else None,
            "blocks": profiles.my_blocks(context(), email)}


@bp.app_context_processor
def _card() -> dict[str, Any]:
    return {"people_card": people_card}


