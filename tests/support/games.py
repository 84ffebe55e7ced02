"""Games for the tests, made and played through the service: the players, new
games, moves, the seat tokens, and made-up positions set straight in the database."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from pbem.core import tokens
from pbem.core.db import as_utc, session_scope
from pbem.core.models import Game, Seat
from pbem.rules import classic_board
from pbem.rules.tables import CLANS
from pbem import games

PLAYERS = [
    {"name": "Ann", "email": "ann@example.org"},
    {"name": "Bob", "email": "bob@example.org"},
    {"name": "Cid", "email": "cid@example.org"},
]


def db_id(where: Any, public_id: str) -> int:
    """The database id of the game with this public id; ``where`` is a context,
    or the session of a transaction already open (SQLite allows one writer)."""
    query = select(Game.id).where(Game.public_id == public_id)
    if isinstance(where, Session):
        return where.exec(query).one()  # type: ignore[return-value]
    with session_scope(where.engine) as session:
        return session.exec(query).one()  # type: ignore[return-value]


def deadline(ctx: Any, game_id: str) -> datetime:
    """When the turn of the game's player to move runs out."""
    with session_scope(ctx.engine) as session:
        game = session.get(Game, db_id(session, game_id))
        assert game is not None and game.deadline is not None
        return as_utc(game.deadline)  # type: ignore[return-value]


EMAILS = {p["name"]: p["email"] for p in PLAYERS}


def email_of(view: dict[str, Any]) -> str:
    """The address of the player whose view this is."""
    return EMAILS[view["you"]]


def seat_tokens(ctx: Any, game_id: str) -> list[str]:
    """The seat tokens of a game, in seat order (derived as the mailer does)."""
    with session_scope(ctx.engine) as session:
        seats = session.exec(select(Seat).join(Game, col(Game.id) == col(Seat.game_id))
                             .where(Game.public_id == game_id).order_by(col(Seat.position))).all()
        return [tokens.derive(ctx.config["SECRET_KEY"], "seat", s.token_salt) for s in seats]


def new_game(ctx: Any, players: int = 3, *, start: bool = True) -> tuple[str, list[str]]:
    """A game with ``players`` players, all accepted (so dealt) when ``start``;
    otherwise confirmed by its first player, so that every player has an
    invitation (the first player's asked them to confirm)."""
    game_id = games.start_game(ctx, games.parse_players(PLAYERS[:players] if players <= 3 else PLAYERS + [
        {"name": "Dee", "email": "dee@example.org"}]))
    toks = seat_tokens(ctx, game_id)
    if not start:
        games.accept(ctx, toks[0])
    if start:
        for t in toks:
            games.accept(ctx, t)
    return game_id, toks


def to_move(ctx: Any, toks: list[str]) -> tuple[str, dict[str, Any]]:
    """The token of the seat to move and its view."""
    for t in toks:
        view = games.seat_view(ctx, t)
        if view["your_turn"]:
            return t, view
    raise AssertionError("nobody is to move")


def play(ctx: Any, toks: list[str], moves: int) -> None:
    """Play ``moves`` moves, each the first legal move of the seat to move."""
    for _ in range(moves):
        t, view = to_move(ctx, toks)
        games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])


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
    games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])
    assert games.public_game(ctx, game_id)["status"] == "finished"


def redeal_others(ctx: Any, game_id: str, viewer: int) -> None:
    """Give every seat but ``viewer``'s a clan nobody had, in the seats and in
    the rules' state (a non-interference test then compares what ``viewer`` sees)."""
    with session_scope(ctx.engine) as session:
        game = session.get(Game, db_id(session, game_id))
        assert game is not None
        if game.state is None:
            return
        state = json.loads(game.state)
        unused = [c for c in CLANS if c not in state["clans"]]
        for seat in session.exec(select(Seat).where(Seat.game_id == game.id)):
            if seat.position != viewer:
                state["clans"][seat.position] = seat.clan = unused.pop()
                session.add(seat)
        game.state = json.dumps(state)
        session.add(game)


def play_to_end(ctx: Any, toks: list[str]) -> int:
    """Play a started game to its natural end (each seat's first legal move, so
    that its record replays to the stored position); the number of moves."""
    moves = 0
    while games.seat_view(ctx, toks[0])["status"] == "active":
        t, view = to_move(ctx, toks)
        games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
        moves += 1
    return moves
