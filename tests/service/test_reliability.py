"""Reliability as strangers see it, against games made row by row: finished
games only, the computer's moves in a handed-over seat count for nobody, the
autopilot's count against, and the median time to move is from the move before."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta, timezone
from typing import Any

from pbem.core.db import session_scope
from pbem.core.models import Game, MoveRecord, Seat
from pbem.people.reliability import Reliability, reliability

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
ANN = {"name": "Ann", "email": "ann@example.org"}
BOB = {"name": "Bob", "email": "bob@example.org"}


def made_game(session: Any, status: str, seats: list[dict[str, Any]],
              moves: list[tuple[int, int, bool, int]]) -> None:
    """A game with these seats and moves ``(ply, position, by_autopilot, hours after the start)``."""
    game = Game(public_id=secrets.token_hex(6), status=status, ply=len(moves), started_at=START)
    session.add(game)
    session.flush()
    for position, seat in enumerate(seats):
        session.add(Seat(game_id=game.id, position=position, token_salt="s", token_hash=secrets.token_hex(32),
                         **seat))
    for ply, position, autopilot, hours in moves:
        session.add(MoveRecord(game_id=game.id, ply=ply, position=position, move="1-2", by_autopilot=autopilot,
                               created_at=START + timedelta(hours=hours)))


def test_reliability_of_finished_games(ctx: Any) -> None:
    with session_scope(ctx.engine) as session:
        # Ann moves after 2 h and (her second own move) 4 h; the autopilot once for her.
        made_game(session, "finished", [ANN, BOB],
                  [(0, 0, False, 2), (1, 1, False, 3), (2, 0, True, 75), (3, 1, False, 76), (4, 0, False, 80)])
        # Left to the computer at move 2: its moves after that are nobody's; her first took 10 h.
        made_game(session, "finished", [{**ANN, "bot": "medium", "bot_from": 2}, BOB],
                  [(0, 0, False, 10), (1, 1, False, 11), (2, 0, False, 12), (3, 1, False, 13)])
        # Running: not counted yet.
        made_game(session, "active", [ANN, BOB], [(0, 0, True, 72)])

    with session_scope(ctx.engine) as session:
        got = reliability(session, ["Ann@Example.org", "bob@example.org", "new@example.org"])

    ann = got["Ann@Example.org"]
    assert (ann.finished, ann.left_to_computer, ann.games) == (1, 1, 2)
    assert (ann.in_time, ann.by_autopilot, ann.share_in_time) == (3, 1, 75)
    assert ann.median_seconds == 4 * 3600  # 2 h, 4 h and 10 h
    bob = got["bob@example.org"]
    assert (bob.finished, bob.left_to_computer, bob.in_time, bob.by_autopilot, bob.share_in_time) == (2, 0, 4, 0, 100)
    assert bob.median_seconds == 3600
    assert got["new@example.org"] == Reliability()
    assert got["new@example.org"].share_in_time is None and got["new@example.org"].median_seconds is None


def test_no_addresses_asks_nothing(ctx: Any) -> None:
    with session_scope(ctx.engine) as session:
        assert reliability(session, []) == {}
        assert reliability(session, [" "]) == {" ": Reliability()}
