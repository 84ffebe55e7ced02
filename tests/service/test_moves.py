"""Moves through the service layer: one transaction, guarded by the ply."""

from __future__ import annotations

import json
import threading

import pytest
from sqlmodel import select

from pbem.core import errors
from pbem.core.db import session_scope
from pbem.core.models import Game, MoveRecord, Outbox
from pbem.rules.record import replay
from tests.support.games import PLAYERS, db_id, new_game, play, to_move
from tests.support.messages import caught
from pbem import games
from pbem.games import announcing, moves, push_turn


def _snapshot(ctx, game_id):
    with session_scope(ctx.engine) as session:
        game = session.get(Game, db_id(session, game_id))
        moves = session.exec(select(MoveRecord).where(MoveRecord.game_id == db_id(session, game_id))).all()
        outbox = session.exec(select(Outbox).where(Outbox.game_id == db_id(session, game_id))).all()
        return (game.ply, game.state, game.deadline, len(moves), len(outbox))


def test_a_legal_move_is_stored_and_the_next_player_is_mailed(ctx):
    game_id, toks = new_game(ctx)
    token, view = to_move(ctx, toks)
    move = view["legal_moves"][0]
    after = games.submit_move(ctx, token, move, None, view["ply"])
    assert after["ply"] == 1 and after["last_move"] == move and not after["your_turn"]
    nxt = after["next_seat"]
    turn_mail = caught(ctx, kind="turn")
    # the first player's turn mail when the game started, then the next player's
    email_of = {p["name"]: p["email"] for p in PLAYERS}
    names = [p["name"] for p in after["players"]]
    assert [str(m["To"]) for m in turn_mail] == [email_of[names[view["seat"]]], email_of[names[nxt]]]
    with session_scope(ctx.engine) as session:
        rows = session.exec(select(MoveRecord).where(MoveRecord.game_id == db_id(session, game_id))).all()
    assert [(r.ply, r.move) for r in rows] == [(0, move)]


@pytest.mark.parametrize("move, code", [
    ("1-1", "not-adjacent"),
    ("99-1", "unknown-territory"),
    ("one-two", "malformed-move"),
    ("1-60", "not-adjacent"),
])
def test_a_refused_move_changes_nothing(ctx, move, code):
    game_id, toks = new_game(ctx)
    token, view = to_move(ctx, toks)
    before = _snapshot(ctx, game_id)
    with pytest.raises(errors.MoveRefused) as refused:
        games.submit_move(ctx, token, move, None, view["ply"])
    assert refused.value.code == code and refused.value.status == 422
    assert _snapshot(ctx, game_id) == before


def test_bad_order_is_refused(ctx):
    game_id, toks = new_game(ctx)
    token, view = to_move(ctx, toks)
    before = _snapshot(ctx, game_id)
    with pytest.raises(errors.MoveRefused) as refused:
        games.submit_move(ctx, token, view["legal_moves"][0], [999], view["ply"])
    assert refused.value.code == "bad-order"
    assert _snapshot(ctx, game_id) == before


def test_stale_ply_and_wrong_turn_are_conflicts(ctx):
    game_id, toks = new_game(ctx)
    token, view = to_move(ctx, toks)
    others = [t for t in toks if t != token]
    before = _snapshot(ctx, game_id)
    with pytest.raises(errors.Conflict) as stale:
        games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"] + 1)
    assert stale.value.code == "stale" and stale.value.status == 409
    with pytest.raises(errors.Conflict) as wrong:
        games.submit_move(ctx, others[0], view["legal_moves"][0], None, view["ply"])
    assert wrong.value.code == "not-your-turn"
    assert _snapshot(ctx, game_id) == before


def test_resubmitting_an_accepted_move_is_not_applied_twice(ctx):
    game_id, toks = new_game(ctx)
    token, view = to_move(ctx, toks)
    move = view["legal_moves"][0]
    first = games.submit_move(ctx, token, move, None, view["ply"])
    after_first = _snapshot(ctx, game_id)
    again = games.submit_move(ctx, token, move, None, view["ply"])
    assert again["ply"] == first["ply"] == 1
    assert _snapshot(ctx, game_id) == after_first
    # a different move for that old ply is stale, not a replay
    with pytest.raises(errors.Conflict):
        games.submit_move(ctx, token, view["legal_moves"][1], None, view["ply"])


def test_two_submissions_at_once_apply_exactly_one(ctx):
    game_id, toks = new_game(ctx)
    token, view = to_move(ctx, toks)
    moves = view["legal_moves"][:2]
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def submit(move):
        barrier.wait()
        try:
            games.submit_move(ctx, token, move, None, view["ply"])
            outcomes.append("ok")
        except errors.Conflict as e:
            outcomes.append(e.code)

    threads = [threading.Thread(target=submit, args=(m,)) for m in moves]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(outcomes) == ["ok", "stale"]
    with session_scope(ctx.engine) as session:
        assert session.get(Game, db_id(session, game_id)).ply == 1
        assert len(session.exec(select(MoveRecord).where(MoveRecord.game_id == db_id(session, game_id))).all()) == 1


@pytest.mark.parametrize("where", ["turn mail", "view after the writes"])
def test_a_request_that_dies_midway_stores_nothing(ctx, monkeypatch, where):
    game_id, toks = new_game(ctx)
    token, view = to_move(ctx, toks)
    before = _snapshot(ctx, game_id)

    def die(*args, **kwargs):
        raise RuntimeError("the process died here")

    # Deciding the turn mail (on SQLite after the game and the move were written;
    # PostgreSQL writes all three at once after it), or after every write.
    if where == "turn mail":
        monkeypatch.setattr(announcing, "row_values", die)
        monkeypatch.setattr(push_turn, "row_values", die)  # the turn's own rows (push, mail) are decided there
    else:
        monkeypatch.setattr(moves, "game_view", die)
    with pytest.raises(RuntimeError):
        games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])
    assert _snapshot(ctx, game_id) == before


def test_moves_before_the_start_are_refused(ctx):
    game_id, toks = new_game(ctx, start=False)
    with pytest.raises(errors.Conflict) as refused:
        games.submit_move(ctx, toks[0], "1-2", None, 0)
    assert refused.value.code == "not-started"


def test_forged_tokens_are_unauthorized(ctx):
    new_game(ctx)
    for token in ["x" * 43, "", None, "a b", "A" * 500]:
        with pytest.raises(errors.Unauthorized):
            games.seat_view(ctx, token)
        with pytest.raises(errors.Unauthorized):
            games.submit_move(ctx, token, "1-2", None, 0)


def test_a_whole_game_exports_a_record_that_replays_to_what_the_service_shows(ctx):
    game_id, toks = new_game(ctx, 2)
    with pytest.raises(errors.NotFound):
        games.export_game(ctx, "nosuchgame2345")
    while True:
        view = games.public_game(ctx, game_id)
        if view["finished"]:
            break
        play(ctx, toks, 1)
    record = games.export_game(ctx, game_id)
    assert set(record["clans"].values()) == {p["clan"] for p in view["players"]}
    result = replay(record)
    assert "error" not in result, result
    for key in ("huts", "villages", "clan_scores", "end", "final_scores", "winners"):
        assert json.loads(json.dumps(result[key])) == json.loads(json.dumps(view[key])), key
    assert result["chips"] == {p["name"]: p["chips"] for p in view["players"]}
    game_over = caught(ctx, kind="game-over")
    assert len(game_over) == 2
    with pytest.raises(errors.Conflict) as over:
        games.submit_move(ctx, toks[0], "1-2", None, view["ply"])
    assert over.value.code == "game-over"
