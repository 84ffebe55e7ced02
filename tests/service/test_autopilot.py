"""The autopilot, with ``ctx.now`` moved by hand: it moves for a player whose
deadline passed, the same way every time, and three missed turns in a row show
the player absent."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import select

from pbem.workers import clock
from pbem.core import errors
from pbem.core.db import session_scope
from pbem.core.models import Game, MoveRecord, Seat
from pbem.rules import Game as RulesGame
from pbem.rules.bots import choose_move
from tests.support.clock import frozen_clock
from tests.support.games import PLAYERS, db_id, deadline, email_of, new_game, play, to_move
from tests.support.messages import caught, parts
from pbem import games


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
    expected, order = choose_move(rules, random.Random(games.autopilot_seed(ctx.secret_key, seed, view["ply"])))
    turns_before = len(caught(ctx, kind="turn"))
    now.at = deadline(ctx, game_id) - timedelta(seconds=1)
    assert clock.expire_deadlines(ctx) == []
    now.advance(seconds=2)
    clock.tick(ctx)
    after = games.public_game(ctx, game_id)
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
    assert games.public_game(ctx, game_id)["ply"] == view["ply"] + 1
    assert len(caught(ctx, kind="deadline")) == 3
    # The player's own move resets the streak.
    games.submit_move(ctx, nxt_token, nxt["legal_moves"][0], None, nxt["ply"])


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
    one, two = games.public_game(ctx, first), games.public_game(ctx, second)
    assert one["last_move"] == two["last_move"] and one["huts"] == two["huts"]
    assert games.autopilot_seed(ctx.secret_key, 12345, 0) != games.autopilot_seed(ctx.secret_key, 12345, 1)
    assert games.autopilot_seed("another key" * 4, 12345, 0) != games.autopilot_seed(ctx.secret_key, 12345, 0)


def test_three_missed_turns_in_a_row_show_absent(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    absent = view["seat"]
    for round_ in range(3):
        now.at = deadline(ctx, game_id) + timedelta(seconds=1)
        assert clock.expire_deadlines(ctx) == [db_id(ctx, game_id)]
        seen = games.public_game(ctx, game_id)["players"][absent]
        assert seen["absent"] is (round_ == 2)
        for _ in range(2):  # the others move themselves
            t2, v2 = to_move(ctx, toks)
            assert v2["seat"] != absent
            games.submit_move(ctx, t2, v2["legal_moves"][0], None, v2["ply"])
    public = games.public_game(ctx, game_id)
    assert [p["absent"] for p in public["players"]] == [i == absent for i in range(3)]
    for t3 in toks:  # every view shows it, and nobody's clan
        mine = games.seat_view(ctx, t3)
        assert mine["players"][absent]["absent"] is True
        assert all(p["clan"] is None for p in mine["players"])
    last = [m for m in caught(ctx, kind="deadline")][-1]
    assert "absent" in parts(last)["text"]
    # Coming back: their own move clears it.
    t4, v4 = to_move(ctx, toks)
    assert v4["seat"] == absent
    games.submit_move(ctx, t4, v4["legal_moves"][0], None, v4["ply"])
    assert games.public_game(ctx, game_id)["players"][absent]["absent"] is False


def test_a_move_in_time_beats_the_autopilot(ctx: Any) -> None:
    """The player moves just as the clock fires: the ply guard lets one through."""
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
    now.advance(hours=80)
    assert games.autopilot_move(ctx, db_id(ctx, game_id), view["ply"]) is None  # stale ply: nothing
    assert games.public_game(ctx, game_id)["ply"] == 1
    with pytest.raises(errors.Conflict):
        games.submit_move(ctx, t, view["legal_moves"][1], None, view["ply"])



def test_the_autopilots_move_is_posted_and_pushed_as_a_players_is(pctx: Any, receiver: Any) -> None:
    """The autopilot reads the game's webhooks and the seats' push subscriptions
    with the game (as a player's move does with the seat's token): the move is
    posted to the game's webhook and the next mover, subscribed, is pushed."""
    from sqlmodel import col

    from pbem.core.models import Outbox
    from pbem.core.outbox import OutboxKind
    from pbem.table import push, webhooks
    from tests.support.push import Browser

    receiver.status = 201
    now = frozen_clock(pctx)
    game_id, toks = new_game(pctx, 2)
    mover, _ = to_move(pctx, toks)
    nxt = next(t for t in toks if t != mover)
    assert push.subscribe(pctx, nxt, Browser(receiver.url).subscription()).subscribed
    webhooks.add_webhook(pctx, toks[0], "json", f"{receiver.url}/hook")
    position = games.seat_view(pctx, nxt)["seat"]
    with session_scope(pctx.engine) as session:
        nxt_seat = session.exec(select(Seat.id).where(Seat.game_id == db_id(session, game_id),
                                                      Seat.position == position)).one()

    def written() -> list[tuple[str, str]]:
        with session_scope(pctx.engine) as session:
            rows = session.exec(select(Outbox.kind, Outbox.recipient).where(
                col(Outbox.kind).in_([OutboxKind.PUSH, OutboxKind.WEBHOOK])).order_by(col(Outbox.id))).all()
            return [(str(k), r) for k, r in rows]

    before = written()
    now.at = deadline(pctx, game_id) + timedelta(minutes=1)
    assert len(clock.expire_deadlines(pctx)) == 1
    new = written()[len(before):]
    assert (str(OutboxKind.PUSH), f"push:{nxt_seat}") in new
    assert any(k == str(OutboxKind.WEBHOOK) for k, _ in new)
