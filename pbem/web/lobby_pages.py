"""The lobby's page (``/lobby``): the tables waiting for players, with filters
(players, speed, language), and each table's join form (a POST: the
invitation goes by mail, and the seat is held until its link is accepted)."""

from __future__ import annotations

from typing import Any

from flask import render_template, request

from ..core.app_context import context
from ..core.errors import ServiceError
from ..words import error_text
from ..words.language import LANGUAGES, NATIVE_NAMES
from .limits import limits
from .locale import language, words
from .pages import bp
from .. import games

#: The speeds the filter offers: at most this many hours a move.
SPEEDS = (24, 72, 168)


def _lobby(*, joining: str | None = None, error: str | None = None, bad_field: str | None = None,
           form: dict[str, str] | None = None, status: int = 200, **quick: Any) -> Any:
    args = {k: request.args.get(k, "")[:20] for k in ("players", "max_turn_hours", "language", "page")}
    try:
        # The form's "any" is an empty value.
        where, page = games.lobby.parse_filter(args["players"] or None, args["max_turn_hours"] or None,
                                               args["language"] or None, args["page"] or None)
    except ServiceError:
        # A hand-edited address: the whole lobby rather than an error page.
        where, page, args = games.lobby.LobbyFilter(), 1, {}
    found, more = games.lobby.tables(context(), where, page)
    if joining is not None and all(t["id"] != joining for t in found):
        # The table refused is shown first, with its form and the refusal.
        try:
            found.insert(0, games.lobby.table(context(), joining))
        except ServiceError:
            pass
    return render_template("lobby/lobby.html", tables=found, more=more, page=page, chosen=args, speeds=SPEEDS,
                           native_names=NATIVE_NAMES, filter_languages=LANGUAGES,
                           keep={k: v for k, v in args.items() if v and k != "page"}, join_form=True, joining=joining,
                           error=error, bad_field=bad_field, form=form or {},
                           substitutes=games.substitutes.substitutes(context()) if page == 1 else [],
                           **quick), status


@bp.get("/lobby")
def lobby() -> Any:
    return _lobby()


def lobby_page(**quick: Any) -> Any:
    """The lobby with the quick match form's refusal (:mod:`.match_pages`)."""
    return _lobby(**quick)


@bp.post("/lobby/<table_id>/join")
def join_table(table_id: str) -> Any:
    form = {k: request.form.get(k, "")[:300] for k in ("name", "email", "language")}
    try:
        limits().per_ip("LIMIT_JOINS_IP")
        joiner = games.lobby.parse_joiner({**form, "language": form["language"] or language()})
        games.lobby.join(context(), table_id, joiner)
    except ServiceError as e:
        field = getattr(e, "field", None)
        return _lobby(joining=table_id[:40], error=error_text(e, words()), bad_field=field, form=form,
                      status=e.status)
    return render_template("lobby/joined.html", email=joiner.email), 202
