"""The clock with ``ctx.now`` moved by hand: reminders, the autopilot at the
deadline, absent players, vacations, digests."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event
from sqlmodel import select

from pbem import clock, errors, services
from pbem.db import as_utc, session_scope
from pbem.models import Game, MoveRecord, Seat
from pbem.rules import Game as RulesGame
from pbem.rules.bots import choose_move
from tests.support.clock import frozen_clock
from tests.support.games import PLAYERS, db_id, new_game, play, to_move
from tests.support.messages import caught, parts


def deadline(ctx: Any, game_id: str) -> datetime:
    with session_scope(ctx.engine) as session:
        game = session.get(Game, db_id(session, game_id))
        assert game is not None and game.deadline is not None
        return as_utc(game.deadline)  # type: ignore[return-value]


EMAILS = {p["name"]: p["email"] for p in PLAYERS}


def email_of(view: dict[str, Any]) -> str:
    return EMAILS[view["you"]]


def test_reminder_once_per_deadline_and_rearmed_by_a_move(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)  # 72-hour turns, reminder 24 hours before
    t, view = to_move(ctx, toks)
    due = deadline(ctx, game_id)
    assert due == now.at + timedelta(hours=72)
    now.at = due - timedelta(hours=25)
    clock.tick(ctx)
    assert caught(ctx, kind="reminder") == []
    now.at = due - timedelta(hours=23)
    clock.tick(ctx)
    clock.tick(ctx)
    now.advance(hours=10)
    clock.tick(ctx)
    (reminder,) = caught(ctx, kind="reminder")
    assert reminder["To"] == email_of(view)
    assert "hours left" in reminder["Subject"]
    with session_scope(ctx.engine) as session:
        assert as_utc(session.get(Game, db_id(session, game_id)).reminded_for) == due  # type: ignore[union-attr]
    # A move sets a new deadline and re-arms the reminder for the next player.
    services.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
    t2, view2 = to_move(ctx, toks)
    due2 = deadline(ctx, game_id)
    assert due2 == now.at + timedelta(hours=72)
    clock.tick(ctx)
    assert len(caught(ctx, kind="reminder")) == 1
    now.at = due2 - timedelta(hours=1)
    clock.tick(ctx)
    reminders = caught(ctx, kind="reminder")
    assert [m["To"] for m in reminders] == [email_of(view), email_of(view2)]
    assert "60 minutes left" in reminders[1]["Subject"]


def test_reminder_for_a_short_turn_waits_half_the_turn(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id = services.start_game(ctx, services.parse_players(PLAYERS[:2]), 6)
    from tests.support.games import seat_tokens

    for t in seat_tokens(ctx, game_id):
        services.accept(ctx, t)
    now.advance(hours=2, minutes=59)
    clock.tick(ctx)
    assert caught(ctx, kind="reminder") == []
    now.advance(minutes=2)
    clock.tick(ctx)
    assert len(caught(ctx, kind="reminder")) == 1


def test_no_reminder_for_mail_off_but_still_the_autopilot(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    services.set_mail(ctx, t, "none")
    now.advance(hours=71)
    clock.tick(ctx)
    assert caught(ctx, kind="reminder") == []
    now.advance(hours=2)
    clock.tick(ctx)
    assert services.public_game(ctx, game_id)["ply"] == 1
    assert sorted(m["To"] for m in caught(ctx, kind="deadline")) == sorted(
        p["email"] for p in PLAYERS if p["name"] != view["you"])


def _rules(ctx: Any, game_id: str) -> RulesGame:
    with session_scope(ctx.engine) as session:
        game = session.get(Game, db_id(session, game_id))
        assert game is not None and game.state
        return RulesGame.from_json(json.loads(game.state)), game.seed  # type: ignore[return-value]


def test_autopilot_moves_at_the_deadline(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    play(ctx, toks, 2)
    t, view = to_move(ctx, toks)
    rules, seed = _rules(ctx, game_id)  # type: ignore[misc]
    expected, order = choose_move(rules, random.Random(services.autopilot_seed(ctx.secret_key, seed, view["ply"])))
    turns_before = len(caught(ctx, kind="turn"))
    now.at = deadline(ctx, game_id) - timedelta(seconds=1)
    assert clock.expire_deadlines(ctx) == []
    now.advance(seconds=2)
    clock.tick(ctx)
    after = services.public_game(ctx, game_id)
    assert after["ply"] == view["ply"] + 1
    assert after["last_move"] == str(expected) and str(expected) in view["legal_moves"]
    with session_scope(ctx.engine) as session:
        record = session.exec(select(MoveRecord).where(MoveRecord.game_id == db_id(session, game_id),
                                                       MoveRecord.ply == view["ply"])).one()
        seat = session.exec(select(Seat).where(Seat.game_id == db_id(session, game_id), Seat.position == view["seat"])).one()
        assert record.by_autopilot and record.position == view["seat"] and record.move == str(expected)
        assert seat.autopilot_streak == 1
    # Everyone is told; the next player gets their turn mail as usual.
    deadlines = caught(ctx, kind="deadline")
    assert sorted(m["To"] for m in deadlines) == sorted(p["email"] for p in PLAYERS)
    for m in deadlines:
        text = parts(m)["text"]
        assert str(expected).replace("-", " → ") in text
        if m["To"] == email_of(view):
            assert "the autopilot moved for you" in m["Subject"]
        else:
            assert f"Time ran out for {view['you']}" in m["Subject"]
    turns = caught(ctx, kind="turn")
    assert len(turns) == turns_before + 1
    nxt_token, nxt = to_move(ctx, toks)
    assert turns[-1]["To"] == email_of(nxt)
    assert deadline(ctx, game_id) == now.at + timedelta(hours=72)
    # Nothing more happens until the next deadline, however often the clock runs.
    clock.tick(ctx)
    clock.tick(ctx)
    assert services.public_game(ctx, game_id)["ply"] == view["ply"] + 1
    assert len(caught(ctx, kind="deadline")) == 3
    # The player's own move resets the streak.
    services.submit_move(ctx, nxt_token, nxt["legal_moves"][0], None, nxt["ply"])


def test_the_autopilot_is_deterministic(ctx: Any) -> None:
    """The same position, game seed and ply give the same move: two games with
    the same state and seed, both timed out."""
    now = frozen_clock(ctx)
    first, toks1 = new_game(ctx)
    second, toks2 = new_game(ctx)
    with session_scope(ctx.engine) as session:
        a, b = session.get(Game, db_id(session, first)), session.get(Game, db_id(session, second))
        assert a is not None and b is not None
        b.state, b.seed, b.turn_seat = a.state, a.seed, a.turn_seat
        session.add(b)
    now.advance(hours=73)
    assert clock.expire_deadlines(ctx) == [db_id(ctx, first), db_id(ctx, second)]
    one, two = services.public_game(ctx, first), services.public_game(ctx, second)
    assert one["last_move"] == two["last_move"] and one["huts"] == two["huts"]
    assert services.autopilot_seed(ctx.secret_key, 12345, 0) != services.autopilot_seed(ctx.secret_key, 12345, 1)
    assert services.autopilot_seed("another key" * 4, 12345, 0) != services.autopilot_seed(ctx.secret_key, 12345, 0)


def test_three_missed_turns_in_a_row_show_absent(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    absent = view["seat"]
    for round_ in range(3):
        now.at = deadline(ctx, game_id) + timedelta(seconds=1)
        assert clock.expire_deadlines(ctx) == [db_id(ctx, game_id)]
        seen = services.public_game(ctx, game_id)["players"][absent]
        assert seen["absent"] is (round_ == 2)
        for _ in range(2):  # the others move themselves
            t2, v2 = to_move(ctx, toks)
            assert v2["seat"] != absent
            services.submit_move(ctx, t2, v2["legal_moves"][0], None, v2["ply"])
    public = services.public_game(ctx, game_id)
    assert [p["absent"] for p in public["players"]] == [i == absent for i in range(3)]
    for t3 in toks:  # every view shows it, and nobody's clan
        mine = services.seat_view(ctx, t3)
        assert mine["players"][absent]["absent"] is True
        assert all(p["clan"] is None for p in mine["players"])
    last = [m for m in caught(ctx, kind="deadline")][-1]
    assert "absent" in parts(last)["text"]
    # Coming back: their own move clears it.
    t4, v4 = to_move(ctx, toks)
    assert v4["seat"] == absent
    services.submit_move(ctx, t4, v4["legal_moves"][0], None, v4["ply"])
    assert services.public_game(ctx, game_id)["players"][absent]["absent"] is False


def test_a_move_in_time_beats_the_autopilot(ctx: Any) -> None:
    """The player moves just as the clock fires: the ply guard lets one through."""
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    services.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
    now.advance(hours=80)
    assert services.autopilot_move(ctx, db_id(ctx, game_id), view["ply"]) is None  # stale ply: nothing
    assert services.public_game(ctx, game_id)["ply"] == 1
    with pytest.raises(errors.Conflict):
        services.submit_move(ctx, t, view["legal_moves"][1], None, view["ply"])


def test_pause_pushes_the_deadline_and_is_limited(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    due = deadline(ctx, game_id)
    paused = services.pause_clock(ctx, t, 3)
    assert paused["vacation_days_left"] == 4
    assert paused["deadline"] == (due + timedelta(days=3)).isoformat()
    assert paused["players"][view["seat"]]["paused_until"] == (now.at + timedelta(days=3)).isoformat()
    # Visible to everyone.
    for other in toks:
        assert services.seat_view(ctx, other)["players"][view["seat"]]["paused_until"]
    assert services.public_game(ctx, game_id)["players"][view["seat"]]["paused_until"]
    # The old deadline passes: nothing happens; the reminder waits for the new one.
    now.at = due + timedelta(hours=1)
    clock.tick(ctx)
    assert services.public_game(ctx, game_id)["ply"] == 0
    assert caught(ctx, kind="reminder") == []
    # Limits: at most the days left; whole days; only during the game.
    with pytest.raises(errors.Invalid):
        services.pause_clock(ctx, t, 5)
    for bad in (0, -1, "2", 1.5, True, None):
        with pytest.raises(errors.Invalid):
            services.pause_clock(ctx, t, bad)
    longer = services.pause_clock(ctx, t, 4)  # extends the pause that is running
    assert longer["vacation_days_left"] == 0
    assert longer["deadline"] == (due + timedelta(days=7)).isoformat()
    with pytest.raises(errors.Invalid):
        services.pause_clock(ctx, t, 1)
    now.at = due + timedelta(days=7) - timedelta(hours=2)
    clock.tick(ctx)
    assert len(caught(ctx, kind="reminder")) == 1
    now.at = due + timedelta(days=7, seconds=1)
    clock.tick(ctx)
    assert services.public_game(ctx, game_id)["ply"] == 1


def test_a_turn_reaching_a_paused_player_starts_after_the_pause(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    (nxt,) = [x for x in toks if services.seat_view(ctx, x)["seat"] == (view["seat"] + 1) % 3]
    services.pause_clock(ctx, nxt, 2)
    assert deadline(ctx, game_id) == now.at + timedelta(hours=72)  # not their turn: unchanged
    now.advance(hours=1)
    services.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
    # Their clock starts when the pause ends.
    start = now.at - timedelta(hours=1)
    assert deadline(ctx, game_id) == start + timedelta(days=2) + timedelta(hours=72)
    assert services.seat_view(ctx, nxt)["your_turn"]


def test_pause_via_the_api(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    auth = {"Authorization": f"Bearer {t}"}
    ok = client.post("/api/v1/seat/pause", json={"days": 2}, headers=auth)
    assert ok.status_code == 200 and ok.json["vacation_days_left"] == 5
    assert ok.json["players"][view["seat"]]["paused_until"]
    too_many = client.post("/api/v1/seat/pause", json={"days": 6}, headers=auth)
    assert too_many.status_code == 422 and too_many.json["error"]["code"] == "invalid-days"
    assert client.post("/api/v1/seat/pause", json={"days": 1},
                       headers={"Authorization": "Bearer nope"}).status_code == 401
    assert client.post("/api/v1/seat/pause", json={}, headers=auth).status_code == 422
    assert services.seat_view(ctx, t)["vacation_days_left"] == 5


def test_pause_before_the_start_is_refused(ctx: Any) -> None:
    game_id, toks = new_game(ctx, start=False)
    with pytest.raises(errors.Conflict):
        services.pause_clock(ctx, toks[0], 1)


def test_daily_digest(ctx: Any) -> None:
    now = frozen_clock(ctx)
    now.at = now.at.replace(hour=5, minute=0)
    game_id, toks = new_game(ctx)
    services.set_mail(ctx, toks[0], "digest")
    services.set_mail(ctx, toks[1], "digest")
    turns_before = len(caught(ctx, kind="turn"))
    play(ctx, toks, 4)
    # Digest players got no turn mail of their own.
    digesters = sorted(email_of(services.seat_view(ctx, t)) for t in toks[:2])
    assert not {m["To"] for m in caught(ctx, kind="turn")[turns_before:]} & set(digesters)
    clock.tick(ctx)  # before DIGEST_HOUR: nothing yet
    assert caught(ctx, kind="digest") == []
    now.at = now.at.replace(hour=ctx.config["DIGEST_HOUR"], minute=5)
    clock.tick(ctx)
    # The hourly runs after it look at no seat that has today's digest: one query.
    statements: list[str] = []
    listen = lambda *args: statements.append(args[2])  # noqa: E731
    event.listen(ctx.engine, "before_cursor_execute", listen)
    try:
        assert clock.send_digests(ctx) == []
    finally:
        event.remove(ctx.engine, "before_cursor_execute", listen)
    assert [q.split()[0] for q in statements if not q.startswith("BEGIN")] == ["SELECT"]
    digests = caught(ctx, kind="digest")
    assert sorted(m["To"] for m in digests) == digesters
    history = services.public_game(ctx, game_id)["history"]
    for m in digests:
        text = parts(m)["text"]
        for h in history:
            assert f"{h['player']} moved {h['move'].replace('-', ' → ')}" in text
    # Next day, nothing happened: no digest.  The day after, only the new moves.
    now.advance(days=1)
    clock.tick(ctx)
    assert len(caught(ctx, kind="digest")) == 2
    play(ctx, toks, 1)
    now.advance(days=1)
    clock.tick(ctx)
    digests = caught(ctx, kind="digest")
    assert len(digests) == 4
    latest = services.public_game(ctx, game_id)["history"][-1]
    for m in digests[2:]:
        text = parts(m)["text"]
        assert text.count(" moved ") == 1 and latest["player"] in text


def test_clock_is_harmless_when_nothing_is_due(ctx: Any) -> None:
    frozen_clock(ctx)
    assert clock.tick(ctx) == {"autopilot": 0, "reminders": 0, "digests": 0, "swept": 0, "games_expired": 0,
                               "logins_deleted": 0, "outbox_deleted": 0, "caught_mail_deleted": 0}
    game_id, toks = new_game(ctx, start=False)
    assert clock.tick(ctx)["autopilot"] == 0

