"""The lobby's JSON API: the tables waiting for players, and joining one.
Described in :mod:`.openapi_lobby`."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request
from werkzeug.routing import BaseConverter

from ..core.app_context import context
from .. import games
from .api import _json_body
from .limits import limits

bp = Blueprint("lobby_api", __name__, url_prefix="/api/v1")


class TableId(BaseConverter):
    """A table's id: any segment but ``quick``, whose path (``POST /lobby/quick``,
    :mod:`.match_api`) would otherwise also answer GET as a table."""

    regex = r"(?!quick$)[^/]+"


# Before the rules below are added (a blueprint records them in order).
bp.record_once(lambda state: state.app.url_map.converters.__setitem__("table", TableId))


@bp.get("/lobby")
def lobby() -> Any:
    """The tables waiting for players, newest first, ``TABLES_PER_PAGE`` a page:
    ``?players=3&max_turn_hours=24&language=hu&page=2``."""
    where, page = games.lobby.parse_filter(request.args.get("players"), request.args.get("max_turn_hours"),
                                           request.args.get("language"), request.args.get("page"))
    found, more = games.lobby.tables(context(), where, page)
    # Away seats offered to substitutes: on the first page, whatever the filters.
    offered = games.substitutes.substitutes(context()) if page == 1 else []
    return jsonify({"tables": found, "page": page, "more": more, "substitutes": offered})


@bp.get("/lobby/<table:table_id>")
def table(table_id: str) -> Any:
    return jsonify(games.lobby.table(context(), table_id))


@bp.post("/lobby/<table:table_id>/join")
def join(table_id: str) -> Any:
    """Hold an open seat and mail its invitation: ``{"name", "email", "language"?, "time_zone"?}``."""
    limits().per_ip("LIMIT_JOINS_IP")
    joiner = games.lobby.parse_joiner(_json_body())
    public_id = games.lobby.join(context(), table_id, joiner)
    return jsonify({"id": public_id, "mailed": True}), 202
