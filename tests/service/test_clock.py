"""The clock with ``ctx.now`` moved by hand: a vacation pauses a player's clock and
pushes the deadline; a tick with nothing due does nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pbem.workers import clock
from pbem.core import errors
from tests.support.clock import frozen_clock
from tests.support.games import deadline, new_game, to_move
from tests.support.messages import caught
from pbem import games


def test_pause_pushes_the_deadline_and_is_limited(ctx: Any) -> None:
    ctx.config["VACATION_DAYS"] = 7  # the bank pauses spend from (a person's, a year's)
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    due = deadline(ctx, game_id)
    paused = games.pause_clock(ctx, t, 3)
    assert paused["vacation_days_left"] == 4
    assert paused["deadline"] == (due + timedelta(days=3)).isoformat()
    assert paused["players"][view["seat"]]["paused_until"] == (now.at + timedelta(days=3)).isoformat()
    # Visible to everyone.
    for other in toks:
        assert games.seat_view(ctx, other)["players"][view["seat"]]["paused_until"]
    assert games.public_game(ctx, game_id)["players"][view["seat"]]["paused_until"]
    # The old deadline passes: nothing happens; the reminder waits for the new one.
    now.at = due + timedelta(hours=1)
    clock.tick(ctx)
    assert games.public_game(ctx, game_id)["ply"] == 0
    assert caught(ctx, kind="reminder") == []
    # Limits: at most the days left; whole days; only during the game.
    with pytest.raises(errors.Invalid):
        games.pause_clock(ctx, t, 5)
    for bad in (0, -1, "2", 1.5, True, None):
        with pytest.raises(errors.Invalid):
            games.pause_clock(ctx, t, bad)
    longer = games.pause_clock(ctx, t, 4)  # extends the pause that is running
    assert longer["vacation_days_left"] == 0
    assert longer["deadline"] == (due + timedelta(days=7)).isoformat()
    with pytest.raises(errors.Invalid):
        games.pause_clock(ctx, t, 1)
    now.at = due + timedelta(days=7) - timedelta(hours=2)
    clock.tick(ctx)
    assert len(caught(ctx, kind="reminder")) == 1
    now.at = due + timedelta(days=7, seconds=1)
    clock.tick(ctx)
    assert games.public_game(ctx, game_id)["ply"] == 1


def test_a_turn_reaching_a_paused_player_starts_after_the_pause(ctx: Any) -> None:
    ctx.config["VACATION_DAYS"] = 7  # the bank pauses spend from (a person's, a year's)
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    (nxt,) = [x for x in toks if games.seat_view(ctx, x)["seat"] == (view["seat"] + 1) % 3]
    games.pause_clock(ctx, nxt, 2)
    assert deadline(ctx, game_id) == now.at + timedelta(hours=72)  # not their turn: unchanged
    now.advance(hours=1)
    games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
    # Their clock starts when the pause ends.
    start = now.at - timedelta(hours=1)
    assert deadline(ctx, game_id) == start + timedelta(days=2) + timedelta(hours=72)
    assert games.seat_view(ctx, nxt)["your_turn"]


def test_pause_before_the_start_is_refused(ctx: Any) -> None:
    game_id, toks = new_game(ctx, start=False)
    with pytest.raises(errors.Conflict):
        games.pause_clock(ctx, toks[0], 1)


def test_clock_is_harmless_when_nothing_is_due(ctx: Any) -> None:
    frozen_clock(ctx)
    assert clock.tick(ctx) == {"autopilot": 0, "reminders": 0, "digests": 0, "daily": 0, "swept": 0, "inbound": 0,
                               "games_expired": 0, "logins_deleted": 0, "outbox_deleted": 0, "caught_mail_deleted": 0,
                               "inbound_deleted": 0, "reply_tokens_deleted": 0}
    game_id, toks = new_game(ctx, start=False)
    assert clock.tick(ctx)["autopilot"] == 0
