"""Helpers for the page tests: form tokens, database snapshots and positions."""

from __future__ import annotations

import html
import json
import re
from typing import Any

from sqlalchemy import text
from sqlmodel import select

from pbem import services
from pbem.db import session_scope
from pbem.models import Game
from pbem.rules import classic_board
from tests.support.config import TABLES
from tests.support.games import db_id, to_move

_CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_from(page: str) -> str:
    m = _CSRF.search(page)
    assert m, "the page has no form token"
    return html.unescape(m.group(1))


def csrf_token(client: Any, url: str = "/") -> str:
    """The form token of the client's session, read from a page's hidden input."""
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return csrf_from(response.get_data(as_text=True))


def snapshot(ctx: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, to show that a request changed nothing."""
    out = {}
    with ctx.engine.connect() as conn:
        for table in TABLES:
            rows = conn.execute(text(f"SELECT * FROM {table} ORDER BY id")).all()
            out[table] = [tuple(r) for r in rows]
    return out


def game_state(ctx: Any, game_id: str) -> dict[str, Any]:
    with session_scope(ctx.engine) as session:
        game = session.get(Game, db_id(ctx, game_id))
        assert game is not None and game.state
        return json.loads(game.state)  # type: ignore[no-any-return]


def set_state(ctx: Any, game_id: str, state: dict[str, Any]) -> None:
    with session_scope(ctx.engine) as session:
        game = session.exec(select(Game).where(Game.public_id == game_id)).one()
        game.state = json.dumps(state)
        session.add(game)


def set_huts(ctx: Any, game_id: str, huts: dict[int, dict[str, int]]) -> None:
    """Put the game into a made-up position (the test's set-up, not a move)."""
    state = game_state(ctx, game_id)
    state["huts"] = {str(k): v for k, v in huts.items()}
    set_state(ctx, game_id, state)


def two_village_position() -> tuple[dict[int, dict[str, int]], str, list[int]]:
    """Huts on X and two of its neighbours Y, Z that are not neighbours of each
    other, all else empty: X-Y founds villages on Y and Z."""
    board = classic_board()
    for x in board:
        ns = sorted(board.neighbours(x))
        for y in ns:
            for z in ns:
                if y < z and not board.adjacent(y, z):
                    huts = {x: {"red": 2, "blue": 1}, y: {"green": 1, "yellow": 1}, z: {"black": 2}}
                    return huts, f"{x}-{y}", sorted([y, z])
    raise AssertionError("no such position on the board")


def last_move_position() -> tuple[dict[int, dict[str, int]], str]:
    """Huts on two neighbours only: the one move left founds a village and ends the game."""
    board = classic_board()
    x = next(iter(board))
    y = min(board.neighbours(x))
    return {x: {"red": 2, "yellow": 1, "green": 1}, y: {"blue": 2, "black": 1}}, f"{x}-{y}"


def finish(ctx: Any, game_id: str, toks: list[str]) -> None:
    """End a started game quickly: a position with one move left, then that move."""
    huts, move = last_move_position()
    set_huts(ctx, game_id, huts)
    token, view = to_move(ctx, toks)
    assert view["legal_moves"], view["legal_moves"]
    services.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])
    assert services.public_game(ctx, game_id)["status"] == "finished"


def clan_marks(page: str) -> dict[str, list[str]]:
    """What the page's markup ties to players: the viewer's own clan element and
    the revealed clans (only after the end)."""
    return {
        "yours": re.findall(r'data-your-clan="([^"]*)"', page),
        "players": re.findall(r'data-player-clan="([^"]*)"', page),
    }
