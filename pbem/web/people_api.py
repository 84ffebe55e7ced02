"""The JSON API of strangers, safely (``/api/v1``): blocking another player
from your seat, and reporting a table message to the operator.  Translates
requests into :mod:`pbem.table.blocking` and :mod:`pbem.table.reports` calls.

- ``POST /seat/block`` ``{"seat": n}`` or ``{"message": id}``: block the person
  in that seat of your game (or the author of that message): 201 when this
  made the block, 200 when it was there already.
- ``DELETE /seat/block/{seat}``: unblock the person in that seat (200, also
  when there was no block).
- ``POST /seat/talk/{message_id}/report`` with an optional ``{"reason": text}``:
  201 when stored, 200 when this seat had reported it already."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request

from ..core.app_context import context
from ..table import blocking, reports
from ..table.blocking import BlockDone
from .api import _bearer, _challenge, _json_body

bp = Blueprint("people_api", __name__, url_prefix="/api/v1")
bp.after_request(_challenge)

_ID = f"int(max={2**31 - 1})"


def _answer(done: BlockDone) -> dict[str, Any]:
    return {"seat": done.seat, "name": done.name, "blocked": done.blocked, "changed": done.changed}


def _given(body: dict[str, Any], key: str) -> object:
    """A key's value, ``None`` when absent: a ``null`` sent is not absent (it is refused)."""
    if key not in body:
        return None
    return "null" if body[key] is None else body[key]


@bp.post("/seat/block")
def block() -> Any:
    """Block a player of your game, by ``seat`` or by a ``message`` of theirs."""
    token = _bearer()
    body = _json_body()
    done = blocking.block_player(context(), token, seat=_given(body, "seat"), message=_given(body, "message"))
    return jsonify(_answer(done)), 201 if done.changed else 200


@bp.delete(f"/seat/block/<{_ID}:seat>")
def unblock(seat: int) -> Any:
    return jsonify(_answer(blocking.unblock_player(context(), _bearer(), seat=seat)))


@bp.post(f"/seat/talk/<{_ID}:message_id>/report")
def report(message_id: int) -> Any:
    """Report a table message; the body is optional."""
    token = _bearer()
    body = _json_body() if request.get_data(cache=True) else {}
    done = reports.report_talk(context(), token, message_id, body.get("reason"))
    return jsonify({"message": done.message, "reported": True, "created": done.created}), \
        201 if done.created else 200
