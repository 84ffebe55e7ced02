"""Signing in (a link by mail, opened with a POST), signing out (here or
everywhere), and what a signed-in player sees: the list of their games ("My
games") and, if they asked for it, their rating and stats."""

from __future__ import annotations

from typing import Any

from flask import flash, redirect, render_template, request, session, url_for

from ..core.app_context import context
from ..core.errors import Invalid, Unauthorized
from ..people import ratings, signin, stats as player_stats
from ..words import N_, error_text, names_text
from .limits import limits
from .locale import language, words
from .pages import WHOLE, bp, signed_in_email
from .dashboard_pages import dashboard_parts
from .. import games


@bp.get("/login")
def login() -> Any:
    return render_template("login.html", email="", error=None)


@bp.post("/login")
def login_post() -> Any:
    limits().per_ip("LIMIT_LOGIN")
    email = request.form.get("email", "")[:300]
    try:
        again = signin.request_login(context(), email, language())
    except Invalid as e:
        return render_template("login.html", email=email, error=error_text(e, words())), e.status
    # Asked again too soon: nothing is sent, and the page says so (the same for every address).
    return render_template("login_sent.html", email=email.strip(), again=again)


@bp.get("/signin/<token>", endpoint="signin")
def signin_page(token: str) -> Any:
    email = signin.check_login(context(), token)
    return render_template("signin.html", email=email, token=token)


@bp.post("/signin/<token>")
def signin_post(token: str) -> Any:
    opened = signin.use_login(context(), token)
    _fresh_session()  # a fresh session (and form token) for the signed-in player
    session["email"] = opened.email
    session["login"] = opened.login_id
    return redirect(url_for(".games"), 303)


def _fresh_session() -> None:
    """Forget the session, but not the language this browser chose with the switch."""
    chosen = session.get("language")
    session.clear()
    if chosen is not None:
        session["language"] = chosen


@bp.get("/games", endpoint="games")
def my_games() -> Any:
    email = signed_in_email()
    if not email:
        return redirect(url_for(".login"), 303)
    m = WHOLE.fullmatch(request.args.get("page", "1")[:12])
    page = max(1, int(m.group(1))) if m else 1
    rows, more = games.games_of(context(), email, page)
    w = words()
    for row in rows:
        row["title"] = names_text(row["others"], w)
        row["winners_text"] = names_text(list(row["winners"] or []), w)
        row["rematch_action"] = url_for(".rematch", token=row["token"])
    shown = ratings.shown_rating(context(), email)
    stats = player_stats.stats_of(context(), email) if shown.opted_in else None
    return render_template("games.html", email=email, games=rows, page=page, more=more, rating=shown,
                           stats=stats, shown_after=ratings.SHOWN_AFTER,
                           **dashboard_parts(email))


@bp.post("/games/ratings")
def ratings_choice() -> Any:
    """Opt in to (or out of) seeing your rating and stats: signed in only."""
    email = signed_in_email()
    if not email:
        raise Unauthorized(N_("sign in first: ask for a sign-in link by email"), code="not-signed-in")
    on = request.form.get("show") == "1"
    ratings.set_opt_in(context(), email, on)
    w = words()
    flash(w._("Saved: your rating and stats are shown here.") if on
          else w._("Saved: your rating and stats are no longer shown."), "ok")
    return redirect(url_for(".games") + "#ratings", 303)


@bp.post("/logout/everywhere")
def logout_everywhere() -> Any:
    """End every session signed in with this address, this one too (on the
    signed-in dashboard): a browser left signed in elsewhere opens nothing more."""
    email = signed_in_email()
    if not email:
        raise Unauthorized(N_("sign in first: ask for a sign-in link by email"), code="not-signed-in")
    signin.sign_out_everywhere(context(), email)
    _fresh_session()
    flash(words()._("You are signed out everywhere: on every device and in every browser."), "ok")
    return redirect(url_for(".home"), 303)


@bp.post("/logout")
def logout() -> Any:
    signin.sign_out(context(), session.get("login"))
    _fresh_session()
    flash(words()._("You are signed out."), "ok")
    return redirect(url_for(".home"), 303)
