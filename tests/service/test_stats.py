"""A player's stats on their dashboard, against games made row by row: only
finished games count, and the computer's moves in a handed-over seat count for
nobody."""

from __future__ import annotations

import secrets
from typing import Any

from pbem.people import stats
from pbem.core.db import session_scope
from pbem.core.models import Game, MoveRecord, Seat
from pbem.rules.tables import CLANS
from tests.support.games import finish, new_game


def made_game(session: Any, status: str, seats: list[dict[str, Any]],
              moves: list[tuple[int, int, bool]]) -> None:
    """A game with these seats and moves ``(ply, position, by_autopilot)``."""
    game = Game(public_id=secrets.token_hex(6), status=status, ply=len(moves))
    session.add(game)
    session.flush()
    for position, seat in enumerate(seats):
        session.add(Seat(game_id=game.id, position=position, token_salt="s", token_hash=secrets.token_hex(32),
                         **seat))
    for ply, position, autopilot in moves:
        session.add(MoveRecord(game_id=game.id, ply=ply, position=position, move="1-2", by_autopilot=autopilot))


def test_stats_of_the_finished_games_only(ctx: Any) -> None:
    ann = {"name": "Ann", "email": "ann@example.org"}
    bob = {"name": "Bob", "email": "bob@example.org"}
    with session_scope(ctx.engine) as session:
        # Won with red; the autopilot made one of Ann's three moves.
        made_game(session, "finished", [{**ann, "clan": "red", "final_score": 20, "won": True},
                                        {**bob, "clan": "blue", "final_score": 15, "won": False}],
                  [(0, 0, False), (1, 1, False), (2, 0, True), (3, 1, True), (4, 0, False)])
        # Lost with red; Ann's seat went to the computer at move 3: its moves are not hers.
        made_game(session, "finished", [{**bob, "clan": "green", "final_score": 12, "won": True},
                                        {**ann, "clan": "red", "final_score": 10, "won": False,
                                         "bot": "medium", "bot_from": 3}],
                  [(0, 0, False), (1, 1, False), (2, 0, False), (3, 1, False), (4, 0, False), (5, 1, False)])
        # Running: its clan and moves are nobody's business yet.
        made_game(session, "active", [{**ann, "clan": "green"}, {**bob, "clan": "black"}],
                  [(0, 0, True), (1, 1, False)])
        # Another player's game.
        made_game(session, "finished", [{**bob, "clan": "black", "final_score": 30, "won": True},
                                        {"name": "Cid", "email": "cid@example.org", "clan": "yellow",
                                         "final_score": 3, "won": False}], [(0, 0, True)])

    got = stats.stats_of(ctx, "Ann@Example.org")

    assert (got.games, got.wins, got.average_score) == (2, 1, 15.0)
    assert got.clans == {"red": 2}
    assert (got.on_time, got.by_autopilot, got.reliability) == (3, 1, 75)
    bob_stats = stats.stats_of(ctx, "bob@example.org")
    assert (bob_stats.games, bob_stats.wins, bob_stats.clans) == (3, 2, {"green": 1, "blue": 1, "black": 1})
    assert list(bob_stats.clans) == [c for c in CLANS if c in bob_stats.clans]  # in the rules' order
    assert (bob_stats.on_time, bob_stats.by_autopilot, bob_stats.reliability) == (4, 2, 67)


def test_no_games_no_figures(ctx: Any) -> None:
    got = stats.stats_of(ctx, "zoe@example.org")
    assert (got.games, got.wins, got.average_score, got.clans, got.reliability) == (0, 0, None, {}, None)


def test_a_game_played_through_the_service_counts(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    finish(ctx, game_id, toks)
    ann, bob = stats.stats_of(ctx, "ann@example.org"), stats.stats_of(ctx, "bob@example.org")
    assert ann.games == bob.games == 1
    assert ann.wins + bob.wins >= 1
    assert ann.on_time + bob.on_time == 1 and ann.by_autopilot == bob.by_autopilot == 0
    assert sum(ann.clans.values()) == sum(bob.clans.values()) == 1
