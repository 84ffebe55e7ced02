"""One-click unsubscribe (RFC 8058) from a game's mail.

Every game email carries ``List-Unsubscribe: <{BASE_URL}/unsubscribe/{token}>``
and ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``, the token one that
can only stop mail (:mod:`pbem.games.unsubscribing`), never the seat token: mail
programs and scanners read that header.

- ``GET`` shows a page with a button and changes nothing: mail scanners open
  every link before people do.
- ``POST`` turns that player's mail for that game off (``seat.mail = "none"``).
  Mail clients send it with the body ``List-Unsubscribe=One-Click`` and no
  cookies, so it is exempt from the forms' CSRF check; the token in the address
  is the credential, and the only thing it can do is stop mail.
- A bad token is ``401`` and changes nothing.
- Links in mail sent before there were unsubscribe tokens carry the seat token:
  they still work here (for stopping mail only).

A table talk mail's link is ``/unsubscribe/{token}/talk``: the same, for that
player's talk mail only (their turn mail goes on).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, g, render_template, request
from flask_babel import refresh

from ..games import unsubscribing
from ..core.app_context import context
from ..words.language import DEFAULT_TIME_ZONE
from .limits import limits
from .locale import seat_words, words
from .. import games

bp = Blueprint("unsubscribe", __name__)

#: The endpoints the CSRF check lets through (see :mod:`pbem.web.csrf`).
ONE_CLICK_ENDPOINT = "unsubscribe.unsubscribe"
ONE_CLICK_TALK_ENDPOINT = "unsubscribe.unsubscribe_talk"


def _speak(view: unsubscribing.StopView) -> None:
    """The page in the seat's language and time zone."""
    g.language = view["language"]
    g.time_zone = view["time_zone"] or DEFAULT_TIME_ZONE
    refresh()  # Flask-Babel caches the locale per request


def _page(token: str, view: unsubscribing.StopView, **values: Any) -> str:
    # An unsubscribe token opens no seat: the page names the game page without
    # a link (an old mail's seat token may have its link: its holder has it).
    link = f"{context().base_url}/play/{token}" if view["seat_token"] else None
    return render_template("unsubscribe.html", game=view["game"], name=view["name"], link=link, **values)


@bp.route("/unsubscribe/<token>", methods=["GET", "HEAD"])
def confirm(token: str) -> Any:
    view = unsubscribing.view(context(), token)  # 401 for a bad token
    _speak(view)
    return _page(token, view, title=words()._("Stop turn mail for this game?"), done=False)


@bp.post("/unsubscribe/<token>")
def unsubscribe(token: str) -> Any:
    # 401 for a bad token, changing nothing.
    before, view = unsubscribing.stop(context(), token)
    _speak(view)
    if request.form.get("List-Unsubscribe") == "One-Click":
        return Response(words()._("Unsubscribed: no more turn mail for game %(game)s.", game=view["game"]) + "\n",
                        mimetype="text/plain")
    return _page(token, view, title=words()._("Mail stopped"), done=True, mail_was=before["mail"])


# -- table talk mail -------------------------------------------------------------
# A talk mail's List-Unsubscribe stops talk mail only: a player tired of the
# chatter who presses their mail client's button must not lose their turn mail
# (the autopilot would then play for them).


@bp.route("/unsubscribe/<token>/talk", methods=["GET", "HEAD"])
def confirm_talk(token: str) -> Any:
    view = unsubscribing.view(context(), token)  # 401 for a bad token
    _speak(view)
    return _page(token, view, title=words()._("Stop the table talk mail for this game?"), done=False, talk=True)


@bp.post("/unsubscribe/<token>/talk")
def unsubscribe_talk(token: str) -> Any:
    _, view = unsubscribing.stop(context(), token, talk=True)  # 401 for a bad token, changing nothing
    _speak(view)
    if request.form.get("List-Unsubscribe") == "One-Click":
        return Response(words()._("Unsubscribed: no more table talk mail for game %(game)s.", game=view["game"])
                        + "\n", mimetype="text/plain")
    return _page(token, view, title=words()._("Table talk mail stopped"), done=True, talk=True)


# -- never email me again -------------------------------------------------------
# The link in every invitation.  GET shows a button and changes nothing; the
# page's POST (a form of this site, so CSRF-checked) puts the address on the
# suppression list.


@bp.route("/never/<token>", methods=["GET", "HEAD"])
def never(token: str) -> Any:
    seat_words(games.seat_view(context(), token))  # 401 for a bad token
    return render_template("never.html", token=token, done=False)


@bp.post("/never/<token>")
def never_post(token: str) -> Any:
    limits().per_ip("LIMIT_NEVER")
    ctx = context()
    seat_words(games.seat_view(ctx, token))  # 401 for a bad token
    games.never_mail(ctx, token)
    return render_template("never.html", token=token, done=True)
