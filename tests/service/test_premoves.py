"""Pre-moves through the service: set while it is not your turn, refused at once
when they can never be legal, played as the turn comes (whoever brought it: a
person, the autopilot, the computer, another pre-move), passed over once
illegal, cleared, told in the next mail, and never seen by anyone else."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import select

from pbem.core import errors
from pbem.core.db import session_scope
from pbem.core.models import MoveRecord, Outbox
from pbem.rules import Game as RulesGame, classic_board
from pbem.workers import clock
from tests.support.clock import frozen_clock
from tests.support.games import PLAYERS, db_id, deadline, finish, game_state, new_game, seat_tokens, to_move
from tests.support.messages import caught, newest, parts
from pbem import games


def _seats_in_turn(ctx: Any, toks: list[str]) -> tuple[list[str], dict[str, Any]]:
    """The tokens from the seat to move on, round the table, and its view."""
    token, view = to_move(ctx, toks)
    i = toks.index(token)
    return toks[i:] + toks[:i], view


def _apart(view: dict[str, Any], *avoid: str) -> str:
    """A legal move that shares no territory with the moves ``avoid`` (so it stays
    legal after them)."""
    used = {int(t) for m in avoid for t in m.split("-")}
    return next(m for m in view["legal_moves"] if not {int(t) for t in m.split("-")} & used)


def _moves(ctx: Any, game_id: str) -> list[tuple[int, int, str, bool]]:
    with session_scope(ctx.engine) as session:
        rows = session.exec(select(MoveRecord).where(MoveRecord.game_id == db_id(session, game_id))
                            .order_by(MoveRecord.ply)).all()
        return [(r.ply, r.position, r.move, r.by_autopilot) for r in rows]


def _legal(ctx: Any, game_id: str) -> list[str]:
    """The legal moves of the game's position, whoever is to move."""
    return [str(m) for m in RulesGame.from_json(game_state(ctx, game_id)).legal_moves()]


def _email(ctx: Any, token: str) -> str:
    return next(p["email"] for p in PLAYERS if p["name"] == games.seat_view(ctx, token)["you"])


def test_a_list_is_set_shown_and_cleared(ctx: Any) -> None:
    _, toks = new_game(ctx)
    (mover, nxt, _), view = _seats_in_turn(ctx, toks)
    first, second = view["legal_moves"][0], view["legal_moves"][1]
    got = games.set_premoves(ctx, nxt, [first, {"move": second, "order": None}, first])
    assert got["moves"] == [{"move": first, "order": None}, {"move": second, "order": None}]  # once each
    assert got["limit"] == games.MAX_PREMOVES and got["fired"] is None and got["missed"] is None
    assert games.premoves_of(ctx, nxt)["moves"] == got["moves"]
    assert games.clear_premoves(ctx, nxt)["moves"] == []
    assert games.premoves_of(ctx, nxt)["moves"] == []
    assert games.clear_premoves(ctx, nxt)["moves"] == []  # again: nothing to clear, no error


@pytest.mark.parametrize("moves, code", [
    (["1-99"], "unknown-territory"),
    (["1-1"], "not-adjacent"),
    (["1-60"], "not-adjacent"),
    (["one-two"], "malformed-move"),
    ([{"move": "1-2", "order": "3"}], "bad-order"),
    ([{"move": "1-2", "order": [3, 3]}], "bad-order"),
    ([{"move": "1-2", "order": [1.5]}], "bad-order"),
    ([{"move": "1-2", "then": 3}], "invalid-premoves"),
    ("1-2", "invalid-premoves"),
    (["1-2"] * 3 + [f"{a}-{b}" for a, b in classic_board().edges[:10]], "too-many-premoves"),
])
def test_moves_that_can_never_be_legal_are_refused_at_once(ctx: Any, moves: Any, code: str) -> None:
    _, toks = new_game(ctx)
    (_, nxt, _), view = _seats_in_turn(ctx, toks)
    games.set_premoves(ctx, nxt, [view["legal_moves"][0]])
    with pytest.raises(errors.ServiceError) as refused:
        games.set_premoves(ctx, nxt, moves)
    assert refused.value.code == code and refused.value.status == 422
    assert [m["move"] for m in games.premoves_of(ctx, nxt)["moves"]] == [view["legal_moves"][0]]  # unchanged


def test_a_move_from_or_onto_an_empty_territory_can_never_be_legal(ctx: Any) -> None:
    _, toks = new_game(ctx)
    (mover, nxt, _), view = _seats_in_turn(ctx, toks)
    move = view["legal_moves"][0]
    games.submit_move(ctx, mover, move, None, view["ply"])
    source, target = move.split("-")
    other = next(t for t in classic_board().neighbours(int(source)) if t != int(target))
    _, later = _seats_in_turn(ctx, toks)
    # The seat to move now is nxt; the one after sets a move from the territory just emptied.
    after = toks[(toks.index(nxt) + 1) % len(toks)]
    with pytest.raises(errors.MoveRefused) as refused:
        games.set_premoves(ctx, after, [f"{source}-{other}"])
    assert refused.value.code == "empty-source"
    with pytest.raises(errors.MoveRefused) as refused:
        games.set_premoves(ctx, after, [f"{other}-{source}"])
    assert refused.value.code in ("empty-target", "empty-source")


def test_not_on_your_own_turn_nor_before_the_start_nor_after_the_end(ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    (mover, nxt, _), view = _seats_in_turn(ctx, toks)
    with pytest.raises(errors.Conflict) as refused:
        games.set_premoves(ctx, mover, [view["legal_moves"][0]])
    assert refused.value.code == "your-turn" and refused.value.status == 409
    assert games.premoves_of(ctx, mover)["moves"] == []
    _, waiting = new_game(ctx, start=False)
    with pytest.raises(errors.Conflict) as refused:
        games.set_premoves(ctx, waiting[1], ["1-2"])
    assert refused.value.code == "not-started"
    finish(ctx, game_id, toks)
    with pytest.raises(errors.Conflict) as refused:
        games.set_premoves(ctx, nxt, ["1-2"])
    assert refused.value.code == "game-over"


def test_a_pre_move_fires_as_the_turn_comes_skipping_what_became_illegal(ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    (mover, nxt, third), view = _seats_in_turn(ctx, toks)
    move = view["legal_moves"][0]
    # nxt's first choice is the very move the mover is about to make (then illegal: its source is empty).
    kept = _apart(view, move)
    games.set_premoves(ctx, nxt, [move, kept])
    turns_before = len(caught(ctx, kind="turn"))
    games.submit_move(ctx, mover, move, None, view["ply"])
    ply = view["ply"]
    assert _moves(ctx, game_id)[-2:] == [(ply, view["seat"], move, False),
                                         (ply + 1, (view["seat"] + 1) % 3, kept, False)]
    assert games.seat_view(ctx, third)["your_turn"]
    own = games.premoves_of(ctx, nxt)
    assert own["moves"] == [] and own["fired"] == {"ply": ply + 1, "move": kept, "order": None, "rank": 2, "of": 2}
    # One turn mail more, to the third seat: none for the seat whose pre-move was played.
    turns = caught(ctx, kind="turn")
    assert [m["To"] for m in turns[turns_before:]] == [_email(ctx, third)]
    # Its next mail says which one was played.
    _, later = to_move(ctx, toks)
    games.submit_move(ctx, third, later["legal_moves"][0], None, later["ply"])
    _, again = to_move(ctx, toks)
    games.submit_move(ctx, mover, again["legal_moves"][0], None, again["ply"])
    mail = newest(ctx, _email(ctx, nxt), "turn")
    assert mail is not None
    text, html = parts(mail)["text"], parts(mail)["html"]
    said = f"Your pre-move {kept.replace('-', ' → ')} (your choice 2 of 2) was played as move {ply + 2}."
    assert said in text and said in html
    # ... and only that mail: the others' mail never tells it.
    for other in caught(ctx):
        if other["To"] != _email(ctx, nxt):
            assert "pre-move" not in str(parts(other)["text"])


def test_nothing_fires_when_none_is_legal_and_the_turn_mail_says_so(ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    (mover, nxt, _), view = _seats_in_turn(ctx, toks)
    move = view["legal_moves"][0]
    games.set_premoves(ctx, nxt, [move])
    games.submit_move(ctx, mover, move, None, view["ply"])
    assert games.seat_view(ctx, nxt)["your_turn"] and len(_moves(ctx, game_id)) == view["ply"] + 1
    own = games.premoves_of(ctx, nxt)
    assert own["moves"] == [] and own["missed"] == {"ply": view["ply"] + 1,
                                                    "moves": [{"move": move, "order": None}]}
    mail = newest(ctx, _email(ctx, nxt), "turn")
    assert mail is not None
    said = f"None of your pre-moves ({move.replace('-', ' → ')}) could be played when your turn came"
    assert said in parts(mail)["text"] and said in parts(mail)["html"]
    # Their own move finds the list empty, and their later mail no longer says it.
    after = games.seat_view(ctx, nxt)
    games.submit_move(ctx, nxt, after["legal_moves"][0], None, after["ply"])
    assert games.premoves_of(ctx, nxt)["moves"] == []


def test_pre_moves_chain_round_the_table(ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    (mover, second, third), view = _seats_in_turn(ctx, toks)
    move = view["legal_moves"][0]
    b = _apart(view, move)
    c = _apart(view, move, b)
    games.set_premoves(ctx, second, [b])
    games.set_premoves(ctx, third, [{"move": c, "order": None}])
    turns_before = len(caught(ctx, kind="turn"))
    games.submit_move(ctx, mover, move, None, view["ply"])
    assert [m[2] for m in _moves(ctx, game_id)[-3:]] == [move, b, c]
    assert games.seat_view(ctx, mover)["your_turn"]
    assert [m["To"] for m in caught(ctx, kind="turn")[turns_before:]] == [_email(ctx, mover)]


def test_the_autopilot_brings_the_turn_and_the_pre_move_fires(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    (mover, nxt, _), view = _seats_in_turn(ctx, toks)
    # Whatever the autopilot plays for the mover, a move far from everything stays legal for nxt.
    candidates = [m for m in view["legal_moves"]]
    games.set_premoves(ctx, nxt, candidates[:games.MAX_PREMOVES])
    now.at = deadline(ctx, game_id) + timedelta(seconds=1)
    clock.tick(ctx)
    moves = _moves(ctx, game_id)
    assert moves[-2][1] == view["seat"] and moves[-2][3]  # the autopilot's
    assert moves[-1][1] == (view["seat"] + 1) % 3 and not moves[-1][3]  # nxt's pre-move, not the autopilot's
    assert games.premoves_of(ctx, nxt)["fired"]["move"] == moves[-1][2]


def test_the_computer_brings_the_turn_and_the_pre_move_fires(ctx: Any) -> None:
    turns: list[tuple[int, int]] = []
    ctx.computer = lambda game_id, ply: turns.append((game_id, ply))
    game_id = games.start_game(ctx, games.parse_players([PLAYERS[0], {"bot": "easy"}]), confirmed=True)
    toks = seat_tokens(ctx, game_id)
    for t in toks:
        games.accept(ctx, t)
    ann = next(t for t in toks if games.seat_view(ctx, t)["you"] == "Ann")
    view = games.seat_view(ctx, ann)
    if not view["your_turn"]:
        games.computer_move(ctx, *turns[-1])
        view = games.seat_view(ctx, ann)
    games.submit_move(ctx, ann, view["legal_moves"][0], None, view["ply"])
    view = games.seat_view(ctx, ann)
    assert not view["your_turn"]
    games.set_premoves(ctx, ann, _legal(ctx, game_id)[:games.MAX_PREMOVES])
    games.computer_move(ctx, *turns[-1])
    moves = _moves(ctx, game_id)
    assert len(moves) == view["ply"] + 2 and moves[-1][1] == view["seat"]
    assert not games.seat_view(ctx, ann)["your_turn"]  # the computer's turn again
    assert turns[-1][1] == view["ply"] + 2


def test_no_one_else_ever_sees_the_list(ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    (mover, nxt, third), view = _seats_in_turn(ctx, toks)

    def world() -> Any:
        with session_scope(ctx.engine) as session:
            outbox = session.exec(select(Outbox.id).where(Outbox.game_id == db_id(session, game_id))).all()
        return (json.dumps([games.seat_view(ctx, t) for t in (mover, third)], sort_keys=True),
                json.dumps(games.public_game(ctx, game_id), sort_keys=True),
                json.dumps(games.export_game(ctx, game_id), sort_keys=True),
                json.dumps(games.seat_view(ctx, nxt), sort_keys=True), sorted(outbox))

    before = world()
    games.set_premoves(ctx, nxt, [{"move": view["legal_moves"][-1], "order": None}])
    # Nothing anyone else reads changed: no view (the computer decides from its seat's
    # view), no record, no mail or webhook post written.
    assert world() == before
    games.clear_premoves(ctx, nxt)
    assert world() == before
