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
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, render_template_string, request

from .. import services
from . import context

bp = Blueprint("unsubscribe", __name__)

#: The endpoint the CSRF check lets through (see :mod:`pbem.web.csrf`).
ONE_CLICK_ENDPOINT = "unsubscribe.unsubscribe"

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{ title }} · Clans by Mail</title>
<style>
body { margin: 0; background: #efe8da; color: #2b2118; font: 16px/1.5 -apple-system, BlinkMacSystemFont,
       "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
main { max-width: 520px; margin: 40px auto; padding: 24px 22px; background: #fffdf8;
       border: 1px solid #e0d3bb; border-radius: 14px; }
h1 { margin: 0 0 12px; font-size: 24px; }
button { background: #2f6b34; color: #fff; border: 0; border-radius: 10px; padding: 12px 24px;
         font-size: 17px; font-weight: bold; cursor: pointer; }
a { color: #2f6b34; }
.note { color: #8a7660; font-size: 14px; }
</style></head>
<body><main>
<h1>{{ title }}</h1>
{% if done %}
<p>You will get no more turn mail, reminders or digests for game {{ game }}{% if mail_was == "none" %} (it was already off){% endif %};
only one last email with the result when the game ends.</p>
<p class="note">You can still play it from your seat link, and turn mail back on from your
<a href="{{ link }}">game page</a>.</p>
{% else %}
<p>Hello {{ name }}: stop the email about game {{ game }} (turn mail, reminders, digests)?
You would still get one last email with the result.</p>
<form method="post" action="">
<button type="submit">Stop mail for game {{ game }}</button>
</form>
<p class="note">Nothing changes until you press the button. You can still play from your
<a href="{{ link }}">game page</a>.</p>
{% endif %}
</main></body></html>
"""


def _page(**values: Any) -> str:
    return render_template_string(_PAGE, **values)


@bp.route("/unsubscribe/<token>", methods=["GET", "HEAD"])
def confirm(token: str) -> Any:
    view = services.seat_view(context(), token)  # 401 for a bad token
    return _page(title="Stop turn mail for this game?", done=False, game=view["game"], name=view.get("you", ""),
                 link=f"{context().base_url}/play/{token}"), 200, _no_store()


@bp.post("/unsubscribe/<token>")
def unsubscribe(token: str) -> Any:
    ctx = context()
    before = services.seat_view(ctx, token)  # 401 for a bad token, before any change
    view = services.set_mail(ctx, token, "none")
    one_click = request.form.get("List-Unsubscribe") == "One-Click"
    if one_click:
        return Response(f"Unsubscribed: no more turn mail for game {view['game']}.\n",
                        mimetype="text/plain", headers=_no_store())
    return _page(title="Mail stopped", done=True, game=view["game"], mail_was=before.get("mail"),
                 link=f"{ctx.base_url}/play/{token}"), 200, _no_store()


def _no_store() -> dict[str, str]:
    return {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex"}
