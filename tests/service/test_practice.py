"""Practice from here, through the service: a private game against the computer
from a finished game's replay position or from a running game's seat, which
starts exactly there, leaves the original alone, is never rated, and deals the
others' clans again from what the practising seat may see."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from sqlalchemy import text
from sqlmodel import col, select

from pbem import games
from pbem.core import errors
from pbem.core.db import session_scope
from pbem.core.models import Game, MoveRecord, Rating, Seat
from pbem.people.stats import stats_of
from pbem.rules.record import replay as replay_record
from pbem.rules.tables import CLANS
from pbem.table import replays
from tests.support.games import (db_id, game_state, new_game, play, play_to_end, redeal_others, seat_tokens,
                                 set_state, to_move)

ANN = "ann@example.org"


def _finished(ctx: Any) -> tuple[str, int]:
    """A game of three people played to its natural end (so its record replays), and its moves."""
    game_id, toks = new_game(ctx, 3)
    return game_id, play_to_end(ctx, toks)


def _rows_of(ctx: Any, game_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row that belongs to a game: the game, its seats, moves, mail and talk."""
    gid = db_id(ctx, game_id)
    out = {}
    with ctx.engine.connect() as conn:
        out["game"] = [tuple(r) for r in conn.execute(text("SELECT * FROM game WHERE id = :g"), {"g": gid})]
        for table in ("seat", "move", "outbox", "table_message", "reply_token", "webhook"):
            out[table] = [tuple(r) for r in conn.execute(
                text(f"SELECT * FROM {table} WHERE game_id = :g ORDER BY id"), {"g": gid})]
        out["rating"] = [tuple(r) for r in conn.execute(text("SELECT * FROM rating ORDER BY id"))]
    return out


def _practice_row(ctx: Any, public_id: str) -> tuple[Game, list[Seat]]:
    with session_scope(ctx.engine) as session:
        game = session.exec(select(Game).where(Game.public_id == public_id)).one()
        seats = list(session.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.position))).all())
        session.expunge_all()
        return game, seats


def _person_to_move(ctx: Any, token: str) -> dict[str, Any]:
    view = games.seat_view(ctx, token)
    assert view["your_turn"], view
    return view


@pytest.mark.parametrize("ply", [0, 7])
def test_practice_from_a_replay_starts_at_that_position(ctx: Any, ply: int) -> None:
    game_id, _ = _finished(ctx)
    before = _rows_of(ctx, game_id)
    step = replays.replay(ctx, game_id, ply)
    seat = ply % 3  # the seat to move then: the practice starts on the person's own turn
    made = games.practice_from_replay(ctx, game_id, ply, seat, "medium", ANN)
    view = _person_to_move(ctx, made.token)
    assert view["ply"] == ply and view["seat"] == seat
    assert view["huts"] == step.position["huts"]
    assert view["villages"] == step.position["villages"] and view["clan_scores"] == step.position["clan_scores"]
    assert [h["move"] for h in view["history"]] == [h["move"] for h in step.final["history"][:ply]]
    # The clans are the finished game's own (the end showed them to everyone).
    assert view["clan"] == step.final["players"][seat]["clan"]
    game, seats = _practice_row(ctx, made.game)
    assert game.practice_of == db_id(ctx, game_id) and game.practice_ply == ply
    assert [s.bot for s in seats] == ["medium" if n != seat else None for n in range(3)]
    assert seats[seat].email == ANN and seats[seat].name == "Ann"
    assert _rows_of(ctx, game_id) == before  # the original is untouched
    with session_scope(ctx.engine) as session:  # only the practice's own moves are its moves
        assert session.exec(select(MoveRecord).where(MoveRecord.game_id == game.id)).all() == []


def test_the_computer_moves_at_once_and_the_record_replays(ctx: Any) -> None:
    game_id, _ = _finished(ctx)
    made = games.practice_from_replay(ctx, game_id, 4, 0, "easy", ANN)  # move 5 is seat 1's: a computer's
    view = games.seat_view(ctx, made.token)
    assert view["your_turn"] and view["ply"] == 6  # both computers moved at once
    games.submit_move(ctx, made.token, view["legal_moves"][0], None, view["ply"])
    assert games.seat_view(ctx, made.token)["ply"] == 9
    record = games.export_game(ctx, made.game)
    assert record["format"] == "clans-record/1" and "clans" not in record  # still running: secret
    assert len(record["moves"]) == 9
    assert "error" not in replay_record({**record, "clans": dict(zip(record["players"], CLANS))})


def test_a_practice_game_is_never_rated_nor_counted(ctx: Any) -> None:
    game_id, _ = _finished(ctx)
    stats = stats_of(ctx, ANN)
    with session_scope(ctx.engine) as session:
        ratings = [(r.address_hash, r.mu, r.sigma, r.games) for r in session.exec(select(Rating)).all()]
    assert ratings  # the original was rated
    made = games.practice_from_replay(ctx, game_id, 0, 0, "easy", ANN)
    while games.seat_view(ctx, made.token)["status"] == "active":
        view = _person_to_move(ctx, made.token)
        games.submit_move(ctx, made.token, view["legal_moves"][0], None, view["ply"])
    game, seats = _practice_row(ctx, made.game)
    assert game.rated_at is None and seats[0].final_score is not None
    with session_scope(ctx.engine) as session:
        assert [(r.address_hash, r.mu, r.sigma, r.games) for r in session.exec(select(Rating)).all()] == ratings
    assert stats_of(ctx, ANN) == stats


def test_practice_from_a_running_game_redeals_the_others(ctx: Any, app: Any) -> None:
    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 5)
    token, view = to_move(ctx, toks)
    before = _rows_of(ctx, game_id)
    truth = game_state(ctx, game_id)["clans"]
    seen: Counter[tuple[str, ...]] = Counter()
    held: dict[int, set[str]] = {n: set() for n in range(3)}
    app.config["LIMIT_PRACTICE"] = "100 per minute"
    for _ in range(30):
        made = games.practice_from_seat(ctx, token, "easy")
        _, seats = _practice_row(ctx, made.game)
        clans = tuple(s.clan or "" for s in seats)
        assert clans[view["seat"]] == view["clan"]  # one's own clan is one's own
        assert len(set(clans)) == 3 and set(clans) <= set(CLANS)
        seen[clans] += 1
        for n, clan in enumerate(clans):
            held[n].add(clan)
        fresh = games.seat_view(ctx, made.token)
        assert fresh["huts"] == view["huts"] and fresh["ply"] == view["ply"] and fresh["your_turn"]
    # The others' clans are drawn among every clan but one's own (the game never
    # shows them): not the truth each time, and clans nobody holds among them.
    others = [n for n in range(3) if n != view["seat"]]
    assert len(seen) > 1 and seen[tuple(truth)] < 30
    for n in others:
        assert len(held[n]) >= 3 and view["clan"] not in held[n]
    assert _rows_of(ctx, game_id) == before  # the original is untouched


def test_the_redeal_reads_nothing_of_the_hidden_clans(ctx: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the others really hold, the same draw gives the same practice clans."""
    import random as random_module

    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 2)
    token, view = to_move(ctx, toks)
    monkeypatch.setattr("pbem.games.practice.random.SystemRandom", lambda: random_module.Random(5))
    first = _practice_row(ctx, games.practice_from_seat(ctx, token, "easy").game)[1]
    state = game_state(ctx, game_id)
    redeal_others(ctx, game_id, view["seat"])
    assert game_state(ctx, game_id)["clans"] != state["clans"]
    second = _practice_row(ctx, games.practice_from_seat(ctx, token, "easy").game)[1]
    assert [s.clan for s in first] == [s.clan for s in second]
    set_state(ctx, game_id, state)


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_a_practice_computer_decides_from_its_own_view_only(ctx: Any, level: str) -> None:
    """The computer's honesty in a practice game: give the other seats other clans,
    and its move is the same."""
    ctx.config["BOT_SECONDS"] = 30
    game_id, _ = _finished(ctx)
    turns: list[tuple[int, int]] = []
    ctx.computer = lambda gid, ply: turns.append((gid, ply))
    made = games.practice_from_replay(ctx, game_id, 4, 0, level, ANN)  # seat 1 (the computer) to move
    (gid, ply), = turns
    with session_scope(ctx.engine) as session:
        game = session.get(Game, gid)
        assert game is not None
        saved = {"state": game.state, "ply": game.ply, "turn_seat": game.turn_seat}
    first = games.computer_move(ctx, gid, ply)
    assert first is not None
    with session_scope(ctx.engine) as session:
        for row in session.exec(select(MoveRecord).where(MoveRecord.game_id == gid)):
            session.delete(row)
        game = session.get(Game, gid)
        assert game is not None
        for name, value in saved.items():
            setattr(game, name, value)
        session.add(game)
    state = game_state(ctx, made.game)
    redeal_others(ctx, made.game, 1)
    assert game_state(ctx, made.game)["clans"][1] == state["clans"][1]
    assert game_state(ctx, made.game)["clans"] != state["clans"]
    assert games.computer_move(ctx, gid, ply) == first


def test_refusals_change_nothing(ctx: Any) -> None:
    finished, moves = _finished(ctx)
    running, toks = new_game(ctx, 3)
    games_before = _count(ctx)
    cases: list[tuple[Any, int, str]] = [
        (lambda: games.practice_from_replay(ctx, running, 0, 0, "easy", ANN), 409, "not-finished"),
        (lambda: games.practice_from_replay(ctx, finished, moves, 0, "easy", ANN), 422, "no-such-position"),
        (lambda: games.practice_from_replay(ctx, finished, -1, 0, "easy", ANN), 422, "no-such-position"),
        (lambda: games.practice_from_replay(ctx, finished, "2", 0, "easy", ANN), 422, "no-such-position"),
        (lambda: games.practice_from_replay(ctx, finished, 0, 3, "easy", ANN), 422, "invalid-seat"),
        (lambda: games.practice_from_replay(ctx, finished, 0, 0, "genius", ANN), 422, "invalid-level"),
        (lambda: games.practice_from_replay(ctx, finished, 0, 0, "easy", "nobody@example.org"), 401,
         "not-signed-in"),
        (lambda: games.practice_from_replay(ctx, "nope", 0, 0, "easy", ANN), 404, "not-found"),
        (lambda: games.practice_from_seat(ctx, "x" * 43, "easy"), 401, "unauthorized"),
        (lambda: games.practice_from_seat(ctx, toks[0], None), 422, "invalid-level"),
        (lambda: games.practice_from_seat(ctx, toks[0], "easy", 3), 409, "stale"),  # the player saw another move
        (lambda: games.practice_from_seat(ctx, toks[0], "easy", "0"), 400, "bad-request"),
    ]
    for call, status, code in cases:
        with pytest.raises(errors.ServiceError) as e:
            call()
        assert (e.value.status, e.value.code) == (status, code)
    with pytest.raises(errors.Conflict) as c:
        games.practice_from_seat(ctx, seat_tokens(ctx, finished)[0], "easy")
    assert c.value.code == "game-over"
    assert _count(ctx) == games_before


def test_practice_starts_are_limited_per_person(ctx: Any, app: Any) -> None:
    game_id, _ = _finished(ctx)
    app.config["LIMIT_PRACTICE"] = "2 per hour"
    games.practice_from_replay(ctx, game_id, 0, 0, "easy", ANN)
    games.practice_from_replay(ctx, game_id, 1, 1, "easy", ANN)
    count = _count(ctx)
    with pytest.raises(errors.RateLimited):
        games.practice_from_replay(ctx, game_id, 2, 2, "easy", ANN)
    assert _count(ctx) == count


def _count(ctx: Any) -> int:
    with session_scope(ctx.engine) as session:
        return len(session.exec(select(Game.id)).all())
