"""Games with a correspondence clock, weekends off and the vacation bank, with
``ctx.now`` moved by hand: increments, the cap, a weekend in two time zones,
vacation spent and exhausted (two beats spending nothing twice), "vacation off",
and refusals of bad clocks that change nothing."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import func
from sqlmodel import select

from pbem import games
from pbem.core import errors
from pbem.core.config import UnsafeConfig, check_safe, load_config
from pbem.core.db import session_scope
from pbem.core.models import Game
from pbem.games.clocks import Clock
from pbem.workers import clock as beat
from tests.support.clock import Clock as FrozenClock
from tests.support.games import deadline, seat_tokens
from tests.support.messages import caught

UTC = timezone.utc
ANN = {"name": "Ann", "email": "ann@example.org", "time_zone": "Europe/Budapest", "language": "hu"}
BOB = {"name": "Bob", "email": "bob@example.org", "time_zone": "America/New_York", "language": "pt"}


def start(ctx: Any, *, at: datetime, clock: dict[str, int] | None = None, weekends_off: bool = False,
          vacation: str | None = None, players: list[dict[str, str]] | None = None) -> tuple[str, list[str]]:
    now = FrozenClock(at)
    ctx.now = now
    options = games.parse_time_options(clock, weekends_off, vacation)
    game_id = games.start_game(ctx, games.parse_players(players or [ANN, BOB]), options=options)
    toks = seat_tokens(ctx, game_id)
    for t in toks:
        games.accept(ctx, t)
    return game_id, toks


def mover(ctx: Any, toks: list[str]) -> tuple[str, dict[str, Any], str]:
    """The seat to move: its token, its view and the other seat's token."""
    views = {t: games.seat_view(ctx, t) for t in toks}
    t = next(t for t, v in views.items() if v["your_turn"])
    return t, views[t], next(x for x in toks if x != t)


def play(ctx: Any, token: str, view: dict[str, Any]) -> dict[str, Any]:
    return games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])


def banks(view: dict[str, Any]) -> dict[str, float | None]:
    return {p["name"]: p["bank_hours"] for p in view["players"]}


def test_increments_and_the_cap(ctx: Any) -> None:
    t0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # a Tuesday: no weekend in reach
    game_id, toks = start(ctx, at=t0, clock={"days": 3, "increment_hours": 12, "max_days": 4},
                          players=[{**ANN, "time_zone": None}, {**BOB, "time_zone": None}])
    public = games.public_game(ctx, game_id)
    assert public["clock"] == {"days": 3, "increment_hours": 12, "max_days": 4} and public["turn_hours"] == 72
    assert banks(public) == {"Ann": 72.0, "Bob": 72.0}
    a, view, b = mover(ctx, toks)
    first = view["you"]
    assert deadline(ctx, game_id) == t0 + timedelta(days=3)
    ctx.now.advance(hours=10)
    assert banks(games.public_game(ctx, game_id))[first] == 62.0  # the mover's clock runs
    play(ctx, a, view)  # 72 - 10 + 12
    _, view_b, _ = mover(ctx, toks)
    assert banks(view_b)[first] == 74.0
    assert deadline(ctx, game_id) == ctx.now() + timedelta(days=3)  # the other's whole bank
    ctx.now.advance(hours=1)
    play(ctx, b, view_b)  # 72 - 1 + 12
    assert deadline(ctx, game_id) == ctx.now() + timedelta(hours=74)
    for _ in range(3):  # instant moves: 74 -> 86 -> 98, capped at 96
        t, v, _ = mover(ctx, toks)
        play(ctx, t, v)
    everyone = {t: banks(games.seat_view(ctx, t)) for t in toks}
    assert all(b == {first: 96.0, view_b["you"]: 95.0} for b in everyone.values())  # every view shows every bank
    # Bob's turn, out of time, no vacation: the autopilot moves and the bank keeps only the increment.
    ctx.now.advance(hours=95, seconds=1)
    assert beat.expire_deadlines(ctx) and beat.expire_deadlines(ctx) == []
    assert banks(games.public_game(ctx, game_id)) == {first: 96.0, view_b["you"]: 12.0}


def test_a_weekend_in_two_time_zones(ctx: Any) -> None:
    t0 = datetime(2026, 12, 4, 23, 30, tzinfo=UTC)  # Saturday 00:30 in Budapest, Friday 18:30 in New York
    game_id, toks = start(ctx, at=t0, clock={"days": 1, "max_days": 1}, weekends_off=True)
    a, view, b = mover(ctx, toks)
    assert games.public_game(ctx, game_id)["weekends_off"] is True
    budapest_first = view["time_zone"] == "Europe/Budapest"
    # Budapest's clock waits for Monday 00:00 there; New York's has 5.5 hours before its weekend.
    assert deadline(ctx, game_id) == (datetime(2026, 12, 7, 23, 0, tzinfo=UTC) if budapest_first
                                      else datetime(2026, 12, 7, 23, 30, tzinfo=UTC))
    ctx.now.advance(hours=1)  # Saturday 01:30 in Budapest, Friday 19:30 in New York
    play(ctx, a, view)
    # The first mover used nothing of their weekend hour, or one hour of their Friday evening.
    assert banks(games.public_game(ctx, game_id))[view["you"]] == (24.0 if budapest_first else 23.0)
    assert deadline(ctx, game_id) == (datetime(2026, 12, 8, 0, 30, tzinfo=UTC) if budapest_first
                                      else datetime(2026, 12, 7, 23, 0, tzinfo=UTC))


def test_vacation_is_spent_a_day_at_a_time_then_the_autopilot_moves(ctx: Any) -> None:
    ctx.config["VACATION_DAYS"] = 2
    t0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    game_id, toks = start(ctx, at=t0, clock={"days": 1, "increment_hours": 6, "max_days": 2})
    a, view, _ = mover(ctx, toks)
    assert view["vacation_days_left"] == 2
    due = deadline(ctx, game_id)
    for left in (1, 0):
        ctx.now.at = due + timedelta(minutes=1)
        # Two beats at once: one day spent, the deadline moved on once.
        assert beat.expire_deadlines(ctx) == [] and beat.expire_deadlines(ctx) == []
        assert deadline(ctx, game_id) == due + timedelta(days=1)
        after = games.seat_view(ctx, a)
        assert after["ply"] == 0 and after["vacation_days_left"] == left
        due = deadline(ctx, game_id)
    # Exhausted: the autopilot moves (once).
    ctx.now.at = due + timedelta(minutes=1)
    assert len(beat.expire_deadlines(ctx)) == 1 and beat.expire_deadlines(ctx) == []
    assert games.public_game(ctx, game_id)["ply"] == 1
    assert len(caught(ctx, kind="deadline")) == 2


@pytest.mark.parametrize("banked", [False, True], ids=["no-row-yet", "a-row"])
def test_a_persons_last_day_goes_to_one_of_two_deadlines_lapsing_in_one_beat(ctx: Any, banked: bool) -> None:
    """The beat reads the movers' banks all at once, before either spend: the
    second spend finds the day gone (from a person's first row, or their row)
    and the autopilot moves there instead."""
    ctx.config["VACATION_DAYS"] = 2 if banked else 1
    t0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    ann_twice = [ANN, {**ANN, "name": "Anna", "email": "Ann+again@example.org"}]  # one mailbox: one bank
    if banked:  # her row, with one day left, from a pause in a game whose deadline is far off
        _, toks = start(ctx, at=t0, players=ann_twice, clock={"days": 10, "max_days": 10})
        games.pause_clock(ctx, toks[0], 1)
    started = [start(ctx, at=t0, players=ann_twice) for _ in range(2)]
    assert games.seat_view(ctx, started[0][1][0])["vacation_days_left"] == 1
    due = deadline(ctx, started[0][0])
    assert deadline(ctx, started[1][0]) == due
    ctx.now.at = due + timedelta(minutes=1)
    moved = beat.expire_deadlines(ctx)
    assert len(moved) == 1 and beat.expire_deadlines(ctx) == []
    plies = {game_id: games.public_game(ctx, game_id)["ply"] for game_id, _ in started}
    assert sorted(plies.values()) == [0, 1]
    waiting = next(game_id for game_id, ply in plies.items() if ply == 0)
    assert deadline(ctx, waiting) == due + timedelta(days=1)
    assert games.seat_view(ctx, started[0][1][0])["vacation_days_left"] == 0


def test_vacation_off_leaves_a_lapsed_deadline_to_the_autopilot(ctx: Any) -> None:
    ctx.config["VACATION_DAYS"] = 14
    game_id, toks = start(ctx, at=datetime(2026, 12, 1, 9, 0, tzinfo=UTC), vacation="off")
    assert games.public_game(ctx, game_id)["vacation"] == "off"
    a, view, _ = mover(ctx, toks)
    ctx.now.at = deadline(ctx, game_id) + timedelta(minutes=1)
    assert len(beat.expire_deadlines(ctx)) == 1
    assert games.seat_view(ctx, a)["vacation_days_left"] == 14  # nothing spent


def test_the_bank_is_a_persons_across_games_and_pauses_spend_it(ctx: Any) -> None:
    ctx.config["VACATION_DAYS"] = 5
    first, toks1 = start(ctx, at=datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    second, toks2 = start(ctx, at=datetime(2026, 12, 1, 9, 0, tzinfo=UTC),
                          players=[{**ANN, "email": "Ann+other@example.org"}, BOB])
    ann1 = next(t for t in toks1 if games.seat_view(ctx, t)["you"] == "Ann")
    ann2 = next(t for t in toks2 if games.seat_view(ctx, t)["you"] == "Ann")
    games.pause_clock(ctx, ann1, 3)
    assert games.seat_view(ctx, ann2)["vacation_days_left"] == 2  # ann+other@ is the same mailbox
    with pytest.raises(errors.Invalid):
        games.pause_clock(ctx, ann2, 3)
    ctx.now.advance(days=73)  # five days a year: one more has accrued
    assert games.seat_view(ctx, ann2)["vacation_days_left"] == 3


@pytest.mark.parametrize("clock, field", [
    ({"days": 0}, "clock.days"), ({"days": -1}, "clock.days"), ({"days": 31}, "clock.days"),
    ({"days": 2.5}, "clock.days"), ({"days": "2"}, "clock.days"), ({}, "clock.days"),
    ({"days": 3, "max_days": 2}, "clock.max_days"), ({"days": 3, "max_days": 61}, "clock.max_days"),
    ({"days": 3, "increment_hours": -1}, "clock.increment_hours"),
    ({"days": 3, "increment_hours": 241}, "clock.increment_hours"),
    ({"days": 3, "minutes": 5}, "clock.minutes"), ([3], "clock"),
])
def test_bad_clocks_are_refused_naming_the_field_and_change_nothing(client: Any, ctx: Any, clock: Any,
                                                                    field: str) -> None:
    body = {"players": [ANN, BOB], "clock": clock}
    answer = client.post("/api/v1/games", json=body)
    assert answer.status_code == 422, answer.json
    assert answer.json["error"]["code"] == "invalid-clock" and field in answer.json["error"]["message"]
    for other, code in (({"weekends_off": "yes"}, "invalid-weekends-off"), ({"vacation": "no"}, "invalid-vacation")):
        refused = client.post("/api/v1/games", json={"players": [ANN, BOB], **other})
        assert refused.status_code == 422 and refused.json["error"]["code"] == code
    with session_scope(ctx.engine) as session:
        assert session.exec(select(func.count()).select_from(Game)).one() == 0
    assert caught(ctx) == []


def test_a_clocked_game_through_the_api(client: Any) -> None:
    answer = client.post("/api/v1/games", json={"players": [ANN, BOB], "weekends_off": True, "vacation": "off",
                                                "clock": {"days": 2, "increment_hours": 8}})
    assert answer.status_code == 201
    view = answer.json
    assert view["clock"] == {"days": 2, "increment_hours": 8, "max_days": 2}
    assert view["weekends_off"] is True and view["vacation"] == "off"
    assert [p["bank_hours"] for p in view["players"]] == [48.0, 48.0]
    plain = client.post("/api/v1/games", json={"players": [ANN, BOB]}).json
    assert plain["clock"] is None and [p["bank_hours"] for p in plain["players"]] == [None, None]


def test_a_malformed_vacation_setting_is_refused_at_start_up() -> None:
    with pytest.raises(ValueError, match="PBEM_VACATION_DAYS"):
        load_config(environ={"PBEM_VACATION_DAYS": "two weeks"})
    for bad in (-1, 400):
        with pytest.raises(UnsafeConfig, match="PBEM_VACATION_DAYS"):
            check_safe({**load_config(environ={}), "VACATION_DAYS": bad, "DEMO": True})
    assert load_config(environ={})["VACATION_DAYS"] == 14
    assert Clock(days=1, increment_hours=0, max_days=1).cap == timedelta(days=1)


def test_a_rematch_keeps_the_clock_weekends_and_vacation(ctx: Any) -> None:
    from pbem.table import rematch
    from tests.support.games import finish

    game_id, toks = start(ctx, at=datetime(2026, 12, 1, 9, 0, tzinfo=UTC),
                          clock={"days": 2, "increment_hours": 3, "max_days": 4}, weekends_off=True, vacation="off")
    finish(ctx, game_id, toks)
    again = rematch.play_again(ctx, toks[0])
    view = games.public_game(ctx, again.game)
    assert view["clock"] == {"days": 2, "increment_hours": 3, "max_days": 4}
    assert view["weekends_off"] is True and view["vacation"] == "off"
