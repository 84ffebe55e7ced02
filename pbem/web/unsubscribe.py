"""One-click unsubscribe (RFC 8058) from a game's mail.

Every game email carries ``List-Unsubscribe: <{BASE_URL}/unsubscribe/{seat_token}>``
and ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``.

- ``GET`` shows a page with a button and changes nothing: mail scanners open
  every link before people do.
- ``POST`` turns that player's mail for that game off (``seat.mail = "none"``).
  Mail clients send it with the body ``List-Unsubscribe=One-Click`` and no
  cookies, so it is exempt from the forms' CSRF check; the seat token in the
  address is the credential, and the only thing it can do is stop mail.
- A bad token is ``401`` and changes nothing.

A table talk mail's link is ``/unsubscribe/{seat_token}/talk``: the same, for
that player's talk mail only (their turn mail goes on).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, render_template, request

from .. import services, talk as table_talk
from ..app_context import context
from .limits import limits
from .locale import seat_words, words

bp = Blueprint("unsubscribe", __name__)

#: The endpoints the CSRF check lets through (see :mod:`pbem.web.csrf`).
ONE_CLICK_ENDPOINT = "unsubscribe.unsubscribe"
ONE_CLICK_TALK_ENDPOINT = "unsubscribe.unsubscribe_talk"


def _page(**values: Any) -> str:
    return render_template("unsubscribe.html", **values)


@bp.route("/unsubscribe/<token>", methods=["GET", "HEAD"])
def confirm(token: str) -> Any:
    view = services.seat_view(context(), token)  # 401 for a bad token
    seat_words(view)
    return _page(title=words()._("Stop turn mail for this game?"), done=False, game=view["game"],
                 name=view["you"], link=f"{context().base_url}/play/{token}")


@bp.post("/unsubscribe/<token>")
def unsubscribe(token: str) -> Any:
    ctx = context()
    one_click = request.form.get("List-Unsubscribe") == "One-Click"
    # The page says whether mail was already off; set_mail refuses a bad token (401)
    # before it changes anything.
    before = None if one_click else services.seat_view(ctx, token)
    view = services.set_mail(ctx, token, "none")
    seat_words(view)
    if one_click:
        return Response(words()._("Unsubscribed: no more turn mail for game %(game)s.", game=view["game"]) + "\n",
                        mimetype="text/plain")
    return _page(title=words()._("Mail stopped"), done=True, game=view["game"], mail_was=before and before["mail"],
                 link=f"{ctx.base_url}/play/{token}")


# -- table talk mail -------------------------------------------------------------
# A talk mail's List-Unsubscribe stops talk mail only: a player tired of the
# chatter who presses their mail client's button must not lose their turn mail
# (the autopilot would then play for them).


@bp.route("/unsubscribe/<token>/talk", methods=["GET", "HEAD"])
def confirm_talk(token: str) -> Any:
    view = services.seat_view(context(), token)  # 401 for a bad token
    seat_words(view)
    return _page(title=words()._("Stop the table talk mail for this game?"), done=False, talk=True,
                 game=view["game"], name=view["you"], link=f"{context().base_url}/play/{token}")


@bp.post("/unsubscribe/<token>/talk")
def unsubscribe_talk(token: str) -> Any:
    ctx = context()
    view = table_talk.set_talk_mail(ctx, token, False)  # 401 for a bad token, changing nothing
    seat_words(view)
    if request.form.get("List-Unsubscribe") == "One-Click":
        return Response(words()._("Unsubscribed: no more table talk mail for game %(game)s.", game=view["game"])
                        + "\n", mimetype="text/plain")
    return _page(title=words()._("Table talk mail stopped"), done=True, talk=True, game=view["game"],
                 link=f"{ctx.base_url}/play/{token}")


# -- never email me again -------------------------------------------------------
# The link in every invitation.  GET shows a button and changes nothing; the
# page's POST (a form of this site, so CSRF-checked) puts the address on the
# suppression list.


@bp.route("/never/<token>", methods=["GET", "HEAD"])
def never(token: str) -> Any:
    seat_words(services.seat_view(context(), token))  # 401 for a bad token
    return render_template("never.html", token=token, done=False)


@bp.post("/never/<token>")
def never_post(token: str) -> Any:
    limits().per_ip("LIMIT_NEVER")
    ctx = context()
    seat_words(services.seat_view(ctx, token))  # 401 for a bad token
    services.never_mail(ctx, token)
    return render_template("never.html", token=token, done=True)
