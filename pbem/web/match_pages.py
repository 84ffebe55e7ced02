"""The lobby page's quick match form (``POST /lobby/quick``): the confirmation
goes by mail; its link's page confirms (the seat page's accept button).  And
each substitute seat's form (``POST /lobby/<id>/substitute``)."""

from __future__ import annotations

from typing import Any

from flask import render_template, request

from ..core.app_context import context
from ..core.errors import ServiceError
from ..words import error_text
from .limits import limits
from .lobby_pages import lobby_page
from .locale import language, words
from .pages import bp
from .. import games


@bp.post("/lobby/quick")
def quick_match() -> Any:
    form: dict[str, Any] = {k: request.form.get(k, "")[:300] for k in ("name", "email", "language", "turn_hours")}
    form["players"] = [p[:2] for p in request.form.getlist("players")[:8]]
    try:
        limits().per_ip("LIMIT_JOINS_IP")
        ctx = context()
        hours = form["turn_hours"]
        wish = games.quick_match.parse_wish({
            "name": form["name"], "email": form["email"], "language": form["language"] or language(),
            "players": [int(p) if p.isascii() and p.isdigit() else p for p in form["players"]],
            "turn_hours": int(hours) if hours.isascii() and hours.isdigit() and len(hours) < 7 else hours,
        }, int(ctx.config["TURN_HOURS"]))
        games.quick_match.request(ctx, wish)
    except ServiceError as e:
        return lobby_page(quick_error=error_text(e, words()), quick_field=getattr(e, "field", None), quick_form=form,
                          status=e.status)
    return render_template("lobby/quick_asked.html", email=wish.person.email), 202


@bp.post("/lobby/<table_id>/substitute")
def substitute_seat(table_id: str) -> Any:
    form = {k: request.form.get(k, "")[:300] for k in ("name", "email")}
    try:
        limits().per_ip("LIMIT_JOINS_IP")
        person = games.lobby.parse_joiner({**form, "language": language()})
        games.substitutes.volunteer(context(), table_id, person)
    except ServiceError as e:
        return lobby_page(substituting=table_id[:40], sub_error=error_text(e, words()),
                          sub_field=getattr(e, "field", None), sub_form=form, status=e.status)
    return render_template("lobby/joined.html", email=person.email), 202
