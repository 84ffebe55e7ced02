"""The seat page's webhook forms: add one, remove one's own, the Discord user
id.  Each is a POST from the page (CSRF-checked like every form); a refusal
shows the page again with the reason by the form it answers and its status,
and stores nothing (``seat_pages.refused``, the seat page's one handler)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, request, url_for

from ..table import webhooks
from ..core.app_context import context
from ..core.errors import ServiceError
from .locale import seat_words
from .seat_pages import Box, Refusal, answer_refusals, play_page, refused
from .. import games

bp = Blueprint("hooks", __name__)
bp.register_error_handler(ServiceError, refused)

#: The largest id a form may name: PostgreSQL's ``integer``.
MAX_ID = 2**31 - 1


@bp.post("/play/<token>/webhooks")
def add(token: str) -> Any:
    form = {"kind": request.form.get("kind", "")[:20], "url": request.form.get("url", "")[:600].strip()}
    answer_refusals(Refusal(form=form, box=Box.ADD))
    made = webhooks.add_webhook(context(), token, form["kind"], form["url"])
    # Shown on the answer itself, not flashed: the secret must not ride in the session cookie.
    return play_page(token, webhook_answer={"made": made})


@bp.post(f"/play/<token>/webhooks/<int(max={MAX_ID}):webhook_id>/remove")
def remove(token: str, webhook_id: int) -> Any:
    answer_refusals(Refusal(box=Box.REMOVE))
    webhooks.remove_webhook(context(), token, webhook_id)
    flash(seat_words(games.seat_view(context(), token))._("The webhook is removed."), "ok")
    return redirect(url_for("pages.play", token=token) + "#webhooks", 303)


@bp.post("/play/<token>/discord")
def discord(token: str) -> Any:
    typed = request.form.get("discord_id", "")[:40].strip()
    answer_refusals(Refusal(form={"discord_id": typed}, box=Box.DISCORD))
    hooks = webhooks.set_discord_id(context(), token, typed)
    w = seat_words(games.seat_view(context(), token))
    flash(w._("Saved: Discord posts mention you on your turn.") if hooks["discord_id"]
          else w._("Saved: Discord posts do not mention you."), "ok")
    return redirect(url_for("pages.play", token=token) + "#webhooks", 303)
