"""Seats the computer plays, through the service: starting a game with them,
their moves (after each commit, at most once, never out of turn, from the
seat's own view only), and a person handing their seat (or an away player's)
to the computer."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.core import errors
from pbem.core.db import session_scope
from pbem.core.models import Game, MoveRecord, Outbox, Seat
from pbem.words import describe_history
from tests.support.games import db_id, game_state, redeal_others, seat_tokens, set_state, to_move
from tests.support.messages import caught
from pbem import games
from pbem.games import computer

ANN = {"name": "Ann", "email": "ann@example.org"}
BOB = {"name": "Bob", "email": "bob@example.org"}


def _start(ctx: Any, players: list[dict[str, Any]], *, confirmed: bool = True) -> tuple[str, list[str]]:
    """A new game; when ``confirmed``, every person has accepted it (so it started)."""
    game_id = games.start_game(ctx, games.parse_players(players), confirmed=confirmed)
    toks = seat_tokens(ctx, game_id)
    if confirmed:
        for token in toks:
            games.accept(ctx, token)
    return game_id, toks


def _rows(ctx: Any, model: Any, game_id: str, order: Any) -> list[Any]:
    """The game's rows of ``model`` (moves, seats), detached from their session."""
    with session_scope(ctx.engine) as session:
        rows = session.exec(select(model).where(model.game_id == db_id(session, game_id)).order_by(order)).all()
        session.expunge_all()
        return list(rows)


def _moves(ctx: Any, game_id: str) -> list[MoveRecord]:
    return _rows(ctx, MoveRecord, game_id, col(MoveRecord.ply))


def _seats(ctx: Any, game_id: str) -> list[Seat]:
    return _rows(ctx, Seat, game_id, col(Seat.position))


def _recipients(ctx: Any) -> list[str]:
    with session_scope(ctx.engine) as session:
        return [r.recipient for r in session.exec(select(Outbox)).all()]


def _wait_for_the_computer(ctx: Any) -> list[tuple[int, int]]:
    """Keep the computer's turns instead of playing them (a test plays them)."""
    turns: list[tuple[int, int]] = []
    ctx.computer = lambda game_id, ply: turns.append((game_id, ply))
    return turns


def test_a_player_entry_may_be_the_computer(ctx: Any) -> None:
    players = games.parse_players([ANN, {"bot": "easy"}, {"bot": "hard"}])
    assert [(p.name, p.email, p.bot) for p in players] == [
        ("Ann", "ann@example.org", None), ("Ada", "", "easy"), ("Alan", "", "hard")]
    # A person's name is never given to the computer.
    players = games.parse_players([{"name": "ada", "email": "ada@example.org"}, {"bot": "medium"}])
    assert players[1].name == "Alan"
    # The first person starts the game, wherever the list names them.
    players = games.parse_players([{"bot": "easy"}, ANN, BOB])
    assert [(p.name, p.bot) for p in players] == [("Ann", None), ("Ada", "easy"), ("Bob", None)]


@pytest.mark.parametrize("players, field", [
    ([{"bot": "easy"}, {"bot": "hard"}], "bot"),  # a game needs a person
    ([ANN, {"bot": "impossible"}], "bot"),
    ([ANN, {"bot": ["easy"]}], "bot"),
    ([ANN, {"bot": "easy", "email": "ada@example.org"}], "bot"),
    ([ANN, {"bot": "easy", "name": "HAL"}], "bot"),
    ([ANN], None),
    ([ANN, {"bot": "easy"}, {"bot": "easy"}, {"bot": "easy"}, {"bot": "easy"}], None),
])
def test_bad_computer_entries_are_refused(ctx: Any, players: list[dict[str, Any]], field: str | None) -> None:
    with pytest.raises(errors.Invalid) as refused:
        games.parse_players(players)
    assert refused.value.field == field


def test_a_game_against_the_computer_waits_only_for_its_creator(ctx: Any) -> None:
    game_id, toks = _start(ctx, [ANN, {"bot": "easy"}, {"bot": "medium"}], confirmed=False)
    view = games.seat_view(ctx, toks[0])
    assert view["status"] == "invited"
    assert [(p["bot"], p["accepted"]) for p in view["players"]] == [(None, False), ("easy", True), ("medium", True)]
    assert _recipients(ctx) == ["ann@example.org"]  # the confirmation, to Ann only
    (confirm,) = caught(ctx, kind="invite")
    assert "Ada (computer) and Alan (computer)" in confirm["Subject"]
    games.accept(ctx, toks[0])
    # The game started and the computers moved until it was Ann's turn.
    view = games.seat_view(ctx, toks[0])
    assert view["status"] == "active" and view["your_turn"]
    moves = _moves(ctx, game_id)
    seats = {s.position: s for s in _seats(ctx, game_id)}
    assert len(moves) == view["ply"] and all(seats[m.position].bot for m in moves)
    assert set(_recipients(ctx)) == {"ann@example.org"}
    assert [m["Subject"] for m in caught(ctx, kind="turn")]  # Ann has her turn mail


def test_one_person_and_three_computers_play_a_whole_game(ctx: Any) -> None:
    game_id, _ = _start(ctx, [ANN, {"bot": "easy"}, {"bot": "medium"}, {"bot": "hard"}])
    ann = next(t for t in seat_tokens(ctx, game_id) if games.seat_view(ctx, t)["you"] == "Ann")
    for _ in range(200):
        view = games.seat_view(ctx, ann)
        if view["finished"]:
            break
        assert view["your_turn"], "the computers left a turn unplayed"
        games.submit_move(ctx, ann, view["legal_moves"][0], None, view["ply"])
    view = games.seat_view(ctx, ann)
    assert view["finished"] and view["status"] == "finished"
    moves = _moves(ctx, game_id)
    assert [m.ply for m in moves] == list(range(len(moves)))  # each move once, in order
    ann_seat = next(s.position for s in _seats(ctx, game_id) if s.bot is None)
    # Play went round the table in seat order: nobody moved out of turn.
    assert all(m.position == m.ply % 4 for m in moves)
    assert any(m.position == ann_seat for m in moves) and any(m.position != ann_seat for m in moves)
    # Only Ann was ever mailed: her turns and the end.
    assert set(_recipients(ctx)) == {"ann@example.org"}
    assert len(caught(ctx, kind="game-over")) == 1
    lines = describe_history(view)
    assert all(("(computer)" in line) == (m.position != ann_seat) for line, m in zip(lines, moves))


def _computer_to_move(ctx: Any, players: list[dict[str, Any]]) -> tuple[str, list[str], int]:
    """A started game in which the computer is to move and has not yet moved."""
    turns = _wait_for_the_computer(ctx)
    game_id, toks = _start(ctx, players)
    for _ in range(len(players)):
        if turns:
            break
        token, view = to_move(ctx, toks)
        games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])
    assert turns, "the computer was never to move"
    game, ply = turns[-1]
    assert game == db_id(ctx, game_id)
    return game_id, toks, ply


def test_two_workers_racing_store_one_move(ctx: Any) -> None:
    game_id, toks, ply = _computer_to_move(ctx, [ANN, {"bot": "medium"}])
    gid = db_id(ctx, game_id)
    before = len(_moves(ctx, game_id))
    results: list[str | None] = []
    start = threading.Barrier(2)

    def worker() -> None:
        start.wait()
        results.append(games.computer_move(ctx, gid, ply))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(results) == 2 and results.count(None) == 1  # one stored it, the other found it stored
    assert len(_moves(ctx, game_id)) == before + 1
    # A late repeat of the same task finds the game moved on.
    assert games.computer_move(ctx, gid, ply) is None
    assert len(_moves(ctx, game_id)) == before + 1


def test_the_computer_never_moves_for_a_person_or_out_of_turn(ctx: Any) -> None:
    game_id, toks, ply = _computer_to_move(ctx, [ANN, {"bot": "easy"}])
    gid = db_id(ctx, game_id)
    assert games.computer_move(ctx, gid, ply + 1) is None  # not this move
    assert games.computer_move(ctx, gid + 1000, ply) is None  # no such game
    # Nobody moves for the computer's seat with its link, even on its turn.
    bot_token = next(t for t in toks if games.seat_view(ctx, t)["you"] == "Ada")
    view = games.seat_view(ctx, bot_token)
    assert view["your_turn"] and view["ply"] == ply
    with pytest.raises(errors.Conflict) as refused:
        games.submit_move(ctx, bot_token, view["legal_moves"][0], None, view["ply"])
    assert refused.value.code == "computer-seat"
    assert len(_moves(ctx, game_id)) == ply
    assert games.computer_move(ctx, gid, ply) is not None
    # Now it is Ann's turn: the computer does not move for her.
    assert games.computer_move(ctx, gid, ply + 1) is None
    assert len(_moves(ctx, game_id)) == ply + 1


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_the_computer_decides_from_its_own_view_only(ctx: Any, level: str) -> None:
    """Give every other seat a different clan: the computer's move is the same.
    (The hard player's time box is made longer than its cap of playouts needs,
    so that its search is the same twice.)"""
    ctx.config["BOT_SECONDS"] = 30
    game_id, _, ply = _computer_to_move(ctx, [ANN, {"bot": level}, BOB])
    gid = db_id(ctx, game_id)
    computer = next(s.position for s in _seats(ctx, game_id) if s.bot)
    with session_scope(ctx.engine) as session:
        game = session.get(Game, gid)
        assert game is not None
        saved = {"state": game.state, "ply": game.ply, "turn_seat": game.turn_seat}
    first = games.computer_move(ctx, gid, ply)
    assert first is not None
    # Back to the position before the move, with the others' clans redealt.
    with session_scope(ctx.engine) as session:
        session.exec(select(MoveRecord).where(MoveRecord.game_id == gid, MoveRecord.ply == ply)).one()
        for row in session.exec(select(MoveRecord).where(MoveRecord.game_id == gid, MoveRecord.ply >= ply)):
            session.delete(row)
        game = session.get(Game, gid)
        assert game is not None
        for name, value in saved.items():
            setattr(game, name, value)
        session.add(game)
    state = game_state(ctx, game_id)
    redeal_others(ctx, game_id, computer)
    assert game_state(ctx, game_id)["clans"] != state["clans"]
    assert game_state(ctx, game_id)["clans"][computer] == state["clans"][computer]
    assert games.computer_move(ctx, gid, ply) == first
    set_state(ctx, game_id, state)


def test_a_player_hands_their_seat_to_the_computer(ctx: Any) -> None:
    game_id, toks = _start(ctx, [ANN, BOB])
    token, view = to_move(ctx, toks)
    other = next(t for t in toks if t != token)
    games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])
    # The player to move now leaves: the computer moves at once, and goes on moving.
    left = {"Ann": ANN, "Bob": BOB}[games.seat_view(ctx, other)["you"]]["email"]
    mailed_before = _recipients(ctx).count(left)
    view = games.hand_to_computer(ctx, other, "medium")
    me = view["players"][view["seat"]]
    assert me["bot"] == "medium" and me["bot_from"] == 1 and view["mail"] == "none"
    assert len(_moves(ctx, game_id)) == 2
    assert games.seat_view(ctx, token)["your_turn"]
    with pytest.raises(errors.Conflict) as refused:
        games.set_mail(ctx, other, "every")
    assert refused.value.code == "computer-seat"
    with pytest.raises(errors.Conflict):
        games.hand_to_computer(ctx, other, "easy")  # it cannot be handed twice, nor taken back
    # The history names the computer only for the moves it made.
    lines = describe_history(games.seat_view(ctx, token))
    assert "(computer)" not in lines[0] and "(computer)" in lines[1]
    # The seat that left gets no more mail; the other player gets theirs.
    assert _recipients(ctx)[-1] != left and _recipients(ctx).count(left) == mailed_before
    # Its old mail's unsubscribe link still works (turning mail back on does not).
    assert games.set_mail(ctx, other, "none")["mail"] == "none"
    # The last person at the table cannot leave the game to the computer.
    with pytest.raises(errors.Conflict) as refused:
        games.hand_to_computer(ctx, token, "hard")
    assert refused.value.code == "last-person"


def test_an_away_player_can_be_handed_to_the_computer_by_another(ctx: Any) -> None:
    game_id, toks = _start(ctx, [ANN, BOB, {"name": "Cid", "email": "cid@example.org"}])
    views = [games.seat_view(ctx, t) for t in toks]
    away = views[2]["seat"]
    with pytest.raises(errors.Conflict) as refused:
        games.hand_to_computer(ctx, toks[0], "easy", away)
    assert refused.value.code == "not-absent"
    with pytest.raises(errors.Invalid) as bad:
        games.hand_to_computer(ctx, toks[0], "easy", 7)
    assert bad.value.code == "invalid-seat"
    with pytest.raises(errors.Invalid):
        games.hand_to_computer(ctx, toks[0], "genius", away)
    with session_scope(ctx.engine) as session:
        seat = session.exec(select(Seat).where(Seat.game_id == db_id(session, game_id), Seat.position == away)).one()
        seat.autopilot_streak = 3  # the autopilot moved for them three times running
        session.add(seat)
    with pytest.raises(errors.Invalid) as weaker:
        games.hand_to_computer(ctx, toks[0], "easy", away)  # weaker than the autopilot playing it
    assert weaker.value.code == "invalid-level"
    view = games.hand_to_computer(ctx, toks[0], "hard", away)
    assert view["players"][away]["bot"] == "hard" and not view["players"][away]["absent"]
    assert view["players"][view["seat"]]["bot"] is None  # Ann still plays her own seat


def test_hard_computer_work_is_bounded_per_person_and_hour(ctx: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past HARD_MOVES_PER_HOUR hard moves in one person's games within an hour,
    the hard computer searches with the small budget in that person's games
    (issue 27 §2); another person's games keep the full one, and so does the
    first person's an hour later."""
    from pbem.rules.computer import Budget
    from tests.support.clock import frozen_clock

    now = frozen_clock(ctx)
    monkeypatch.setattr(computer, "HARD_MOVES_PER_HOUR", 4)
    budgets: list[tuple[str, int]] = []
    decide = computer.decide

    def watched(view: Any, level: Any, rng: Any, budget: Budget) -> Any:
        budgets.append((level.value, budget.playouts))
        return decide(view, level, rng, budget)

    monkeypatch.setattr(computer, "decide", watched)
    full, small = Budget().playouts, games.HARD_SMALL_BUDGET.playouts

    def play_moves(token: str, count: int) -> None:
        for _ in range(count):
            view = games.seat_view(ctx, token)
            games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])

    game_id, _ = _start(ctx, [ANN, {"bot": "hard"}, {"bot": "hard"}])
    ann = next(t for t in seat_tokens(ctx, game_id) if games.seat_view(ctx, t)["you"] == "Ann")
    play_moves(ann, 4)  # Ann's moves, each followed by two hard ones (some before her first)
    assert [b for _, b in budgets[:4]] == [full] * 4 and budgets[4:] and {b for _, b in budgets[4:]} == {small}
    budgets.clear()
    bob_game, _ = _start(ctx, [BOB, {"bot": "hard"}])
    bob = next(t for t in seat_tokens(ctx, bob_game) if games.seat_view(ctx, t)["you"] == "Bob")
    play_moves(bob, 1)
    assert budgets and {b for _, b in budgets} == {full}  # Bob's hour is his own
    budgets.clear()
    now.advance(minutes=61)
    play_moves(ann, 1)
    assert budgets and budgets[0][1] == full
