"""What a watcher opens besides the public page: the version the page polls
(so that it refreshes itself when a move is made) and a finished game's replay;
and the same for a player's own seat page: its version, and the heartbeat that
says the player is there (``watching.mark_present``).

Polling is answered with an ``ETag``; a browser that sends it back in
``If-None-Match`` gets ``304`` from one small query (``watching.watch``), with
no view built.  The replay page works without JavaScript (its controls are GET
forms and links); ``replay.js`` steps without reloading, fetching each position's
part of the page (``?part=step``)."""

from __future__ import annotations

from typing import Any, cast

from flask import Blueprint, jsonify, render_template, request
from markupsafe import Markup

from ..table import replays, watching
from ..core.app_context import context
from ..drawing.svg import board_svg
from ..rules import classic_board
from ..rules.tables import VILLAGE_CHIPS
from ..rules.views import View
from ..words import Words, describe_history, end_text, names_text
from .locale import words
from .game_parts import epoch_rows, score_rows

bp = Blueprint("watch", __name__)


@bp.get("/games/<game_id>/version")
def version(game_id: str) -> Any:
    """The game's version for a watching page: ``304`` while it is the one the
    page has."""
    seen = watching.watch(context(), game_id)
    etag = f'"{seen.version}"'
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if request.if_none_match.contains(seen.version):
        return "", 304, headers
    body = jsonify({"game": seen.game, "status": seen.status, "ply": seen.ply, "version": seen.version})
    return body, 200, headers


@bp.get("/play/<token>/version")
def seat_version(token: str) -> Any:
    """The version of a seat's page, for its script: ``304`` while it is the
    one the page has.  It answers only what the seat's view says (its status,
    the move number, whether it is the seat's turn) and changes nothing."""
    seen = watching.seat_watch(context(), token)
    etag = f'"{seen.version}"'
    headers = {"ETag": etag}
    if request.if_none_match.contains(seen.version):
        return "", 304, headers
    body = jsonify({"status": seen.status, "ply": seen.ply, "your_turn": seen.your_turn, "version": seen.version})
    return body, 200, headers


@bp.post("/play/<token>/here")
def seat_here(token: str) -> Any:
    """The seat page's heartbeat while its player is there (a POST from its
    script, with the form token): their turn mail waits while they are."""
    watching.mark_present(context(), token)
    return "", 204


def _explained(v: replays.VillageScoring, w: Words) -> dict[str, Any]:
    """A village's scoring and the lists its sentences name, in the reader's words."""
    return {
        "scoring": v,
        "huts": names_text([w._("%(count)d %(clan)s", count=n, clan=w.clan(c)) for c, n in v.huts.items()], w),
        "strife": names_text([w.clan(c) for c in v.strife], w),
        "scorers": names_text([w._("%(clan)s (%(name)s)", clan=w.clan(s.clan), name=s.player) if s.player
                               else w._("%(clan)s (nobody’s clan)", clan=w.clan(s.clan)) for s in v.scored], w),
    }


def _ply() -> object:
    """The position asked for: a whole number, else the text (which the service refuses)."""
    text = request.args.get("ply", "0")[:12].strip() or "0"
    return int(text) if text.isascii() and text.isdigit() else text


@bp.get("/games/<game_id>/replay")
def replay(game_id: str) -> Any:
    """A finished game, position by position (``?ply=N``, 0 the set-up)."""
    step = replays.replay(context(), game_id, _ply())
    w = words()
    final, position = step.final, step.position
    lines = describe_history(final, w)
    svg = Markup(board_svg(classic_board(), position, w=w,
                           title=w._("The board after move %(ply)s", ply=step.ply) if step.ply
                           else w._("The board at the set-up")))
    owners = {p["clan"]: p["name"] for p in final["players"] if p["clan"]}
    chips = {p["name"]: p["chips"] for p in position["players"]}
    parts = {
        "step": step, "final": final, "position": position, "svg": svg,
        "sentence": lines[step.ply - 1] if step.ply else None,
        "scores": score_rows(position["clan_scores"], owners),
        "chips": [{"name": p["name"], "chips": chips.get(p["name"], 0)} for p in final["players"]],
        "epochs": epoch_rows(cast(View, position)), "chips_total": VILLAGE_CHIPS,
        "villages": [_explained(v, w) for v in step.villages],
    }
    if request.args.get("part") == "step":
        return render_template("_replay_step.html", **parts)
    return render_template("replay.html", history=list(zip(final["history"], lines)),
                           end_reason=end_text(final["end"], w),
                           winners_text=names_text(list(final.get("winners") or []), w), **parts)
