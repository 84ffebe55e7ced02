"""All your games at once (issue 31), on the signed-in dashboard and the seat
page: the games waiting on you, the longest waiting first, and "next game",
which walks them; the daily mail (a setting of the person); the private
calendar feeds (the person's and a seat's).

"Next game" is ``GET /games/next?after=GAME``: it changes nothing and sends
the signed-in person to their own seat in the game after ``GAME`` among those
waiting on them (the first without ``after``; round again at the end; back to
the dashboard when none is left).  A seat page opened by a signed-in person
offers it too, so a person can play one game after another."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, flash, g, redirect, render_template, request, url_for
from flask_babel import refresh

from ..core.app_context import context
from ..core.errors import Unauthorized
from ..core.tokens import is_public_id
from ..games import calendar, daily, waiting
from ..table.seat_page import SeatPage
from ..words import N_, names_text
from ..words.language import time_zones
from .locale import words
from .pages import bp, signed_in_email, when

#: The daily mail's one-click unsubscribe (RFC 8058), exempt from the forms' CSRF check.
unsubscribing = Blueprint("daily", __name__)


def _signed_in() -> str:
    email = signed_in_email()
    if not email:
        raise Unauthorized(N_("sign in first: ask for a sign-in link by email"), code="not-signed-in")
    return email


def dashboard_parts(email: str) -> dict[str, Any]:
    """What the dashboard shows besides its list of games: the games waiting on
    the person, their daily mail setting and their calendar feed (if made)."""
    ctx = context()
    w = words()
    waiting_now = [{"game": x.game, "link": waiting.seat_link_of(ctx, x),
                    "title": names_text(x.others, w), "name": x.seat.name, "since": when(x.since),
                    "deadline": w.when(x.deadline) if x.deadline else ""}
                   for x in waiting.waiting_of(ctx, email)]
    return {"waiting": waiting_now, "daily": daily.setting_of(ctx, email), "hours": list(range(24)),
            "seats_zone": daily.seats_zone_of(ctx, email),
            "zones": time_zones(), "person_feed": calendar.person_feed(ctx, email, make=False)}


def seat_parts(page: SeatPage) -> dict[str, Any]:
    """What the seat page shows besides the game: its calendar feed (if made)
    and, for a signed-in person with other games waiting on them, "next game"."""
    email = signed_in_email()
    game = page.view["game"]
    others = [x for x in waiting.waiting_of(context(), email) if x.game != game] if email else []
    return {"seat_feed": page.calendar,
            "next_game": url_for("pages.next_game", after=game) if others else None,
            "others_waiting": len(others)}


@bp.get("/games/next")
def next_game() -> Any:
    email = signed_in_email()
    if not email:
        return redirect(url_for(".login"), 303)
    after = request.args.get("after")
    link = waiting.next_waiting(context(), email, after if is_public_id(after) else None)
    if link is None:
        flash(words()._("No other game is waiting on you."), "ok")
        return redirect(url_for(".games"), 303)
    return redirect(link, 303)


@bp.post("/games/daily")
def daily_choice() -> Any:
    email = _signed_in()
    daily.set_daily(context(), email, on=request.form.get("on") == "1", hour=request.form.get("hour"),
                    time_zone=request.form.get("time_zone"))
    flash(words()._("Saved: your daily mail setting."), "ok")
    return redirect(url_for(".games") + "#daily", 303)


@bp.post("/games/calendar")
def person_calendar() -> Any:
    calendar.person_feed(context(), _signed_in(), make=True)
    return redirect(url_for(".games") + "#calendar", 303)


@bp.post("/play/<token>/calendar")
def seat_calendar(token: str) -> Any:
    calendar.seat_feed(context(), token)  # 401 for a bad token
    return redirect(url_for(".play", token=token) + "#calendar", 303)


# -- switching the daily mail off from its mail -----------------------------------------


def _speak(language: str) -> None:
    g.language = language
    refresh()


@unsubscribing.route("/unsubscribe/daily/<token>", methods=["GET", "HEAD"])
def confirm_daily(token: str) -> Any:
    on, language = daily.daily_by_token(context(), token)  # 401 for a bad link
    _speak(language)
    return render_template("unsubscribe_daily.html", token=token, on=on, done=False)


@unsubscribing.post("/unsubscribe/daily/<token>")
def unsubscribe_daily(token: str) -> Any:
    language = daily.stop_by_token(context(), token)  # 401 for a bad link, changing nothing
    _speak(language)
    if request.form.get("List-Unsubscribe") == "One-Click":
        return Response(words()._("Unsubscribed: no more daily mail.") + "\n", mimetype="text/plain")
    return render_template("unsubscribe_daily.html", token=token, on=False, done=True)
