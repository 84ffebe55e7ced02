"""The seat page's webhook forms: add one, remove one's own, the Discord user
id.  Each is a POST from the page (CSRF-checked like every form); a refusal
shows the page again with the reason and its status, and stores nothing."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, g, redirect, request, url_for

from ..table import webhooks
from ..core.app_context import context
from ..core.errors import RateLimited, ServiceError, Unauthorized
from ..words import error_text
from .locale import seat_words
from .pages import play_page
from .. import games

bp = Blueprint("hooks", __name__)

#: The largest id a form may name: PostgreSQL's ``integer``.
MAX_ID = 2**31 - 1


@bp.app_template_global("seat_webhooks")
def seat_webhooks(token: str) -> webhooks.Webhooks:
    return webhooks.webhooks_of(context(), token)


@bp.app_template_global("webhook_answer")
def webhook_answer() -> dict[str, Any]:
    """What this request's webhook form came to: a refusal (its sentence, code and
    the form as sent) or a webhook just made (with its secret, shown this once)."""
    return {"error": g.get("webhook_error"), "code": g.get("webhook_error_code"),
            "form": g.get("webhook_form") or {}, "made": g.get("new_webhook"),
            "where": g.get("webhook_where")}


def _refused(token: str, e: ServiceError, form: dict[str, str] | None = None, *, where: str = "add") -> Any:
    """The page again with the refusal by the form it answers (``add``, ``discord``,
    or ``remove``: the list's), that form's field marked and what was typed kept."""
    view = games.seat_view(context(), token)
    g.webhook_error = error_text(e, seat_words(view))
    g.webhook_error_code = e.code
    g.webhook_form = form or {}
    g.webhook_where = where
    page, status = play_page(token, view, status=e.status)
    if isinstance(e, RateLimited):
        return page, status, {"Retry-After": str(e.retry_after)}
    return page, status


@bp.post("/play/<token>/webhooks")
def add(token: str) -> Any:
    form = {"kind": request.form.get("kind", "")[:20], "url": request.form.get("url", "")[:600].strip()}
    try:
        made = webhooks.add_webhook(context(), token, form["kind"], form["url"])
    except Unauthorized:
        raise
    except ServiceError as e:
        return _refused(token, e, form)
    # Shown on the answer itself, not flashed: the secret must not ride in the session cookie.
    g.new_webhook = made
    return play_page(token, games.seat_view(context(), token))


@bp.post(f"/play/<token>/webhooks/<int(max={MAX_ID}):webhook_id>/remove")
def remove(token: str, webhook_id: int) -> Any:
    try:
        webhooks.remove_webhook(context(), token, webhook_id)
    except Unauthorized:
        raise
    except ServiceError as e:
        return _refused(token, e, where="remove")
    flash(seat_words(games.seat_view(context(), token))._("The webhook is removed."), "ok")
    return redirect(url_for("pages.play", token=token) + "#webhooks", 303)


@bp.post("/play/<token>/discord")
def discord(token: str) -> Any:
    typed = request.form.get("discord_id", "")[:40].strip()
    try:
        hooks = webhooks.set_discord_id(context(), token, typed)
    except Unauthorized:
        raise
    except ServiceError as e:
        return _refused(token, e, {"discord_id": typed}, where="discord")
    w = seat_words(games.seat_view(context(), token))
    flash(w._("Saved: Discord posts mention you on your turn.") if hooks["discord_id"]
          else w._("Saved: Discord posts do not mention you."), "ok")
    return redirect(url_for("pages.play", token=token) + "#webhooks", 303)
