"""The autopilot: legal, deterministic for a seed, and much better than random."""

from __future__ import annotations

import random

import pytest

from pbem.rules import bots
from pbem.rules.bots import choose_move
from pbem.rules.deal import deal_game
from pbem.rules.game import Game
from pbem.rules.move import Move
from pbem.rules.playout import autopilot_match

from tests.support.rules import huts, make_board, make_game, pairs_adjacency

NAMES = ("ann", "bob", "cid", "dee")


def autopilot_game(seed: int, n: int) -> Game:
    """Every seat played by the autopilot, checking each choice before it is pushed."""
    rng = random.Random(seed)
    game = deal_game(NAMES[:n], rng).game()
    while not game.is_over():
        move, order = choose_move(game, rng)
        assert game.is_legal(move)
        assert move in set(game.legal_moves())
        founded = game.founding(move)
        if order is not None:
            assert len(founded) > 1
            assert sorted(order) == list(founded)
        game.push(move, order)
        assert game.ply <= 60
    return game


@pytest.mark.parametrize("seed, n", [(1, 2), (2, 3), (3, 4)])
def test_autopilot_plays_a_whole_legal_game(seed: int, n: int) -> None:
    game = autopilot_game(seed, n)
    assert game.end in ("twelfth-village", "no-legal-move")
    assert len(game.villages) <= 12 and sum(game.chips) == len(game.villages)
    assert game.outcome() is not None


def test_autopilot_is_deterministic_for_a_seed() -> None:
    a = autopilot_game(7, 3)
    b = autopilot_game(7, 3)
    assert [p.move for p in a.history] == [p.move for p in b.history]
    assert a.to_json() == b.to_json()


def test_choose_move_does_not_change_the_game() -> None:
    game = deal_game(NAMES[:3], random.Random(4)).game()
    before = game.to_json()
    first = choose_move(game, random.Random(9))
    assert game.to_json() == before
    assert choose_move(game, random.Random(9)) == first


def test_autopilot_takes_the_village_of_its_own_clan() -> None:
    # ann (red) to move: joining the red pair scores red 6; the blue pair would score a rival
    board = make_board(pairs_adjacency(3))
    game = make_game(board, {1: huts(red=3), 2: huts(red=3), 3: ["blue"], 4: ["blue"],
                             5: huts(green=2), 6: huts(green=1, blue=1)})
    for seed in range(10):
        move, order = choose_move(game, random.Random(seed))
        assert move in (Move(1, 2), Move(2, 1))
        assert order is None


def test_choose_move_refuses_a_finished_game() -> None:
    game = make_game(make_board(pairs_adjacency(1)), {1: ["red"], 2: ["blue"]})
    game.push(Move(1, 2))
    with pytest.raises(ValueError):
        choose_move(game, random.Random(1))
    with pytest.raises(ValueError):
        bots.random_move(game, random.Random(1))


def test_choose_move_needs_a_clan() -> None:
    game = make_game(make_board(pairs_adjacency(1)), {1: ["red"], 2: ["blue"]}, clans=None)
    with pytest.raises(ValueError):
        choose_move(game, random.Random(1))


def test_random_mover_is_legal() -> None:
    rng = random.Random(3)
    game = deal_game(NAMES[:2], rng).game()
    while not game.is_over():
        move, order = bots.random_move(game, rng)
        assert order is None and game.is_legal(move)
        game.push(move)


def test_autopilot_beats_a_random_mover() -> None:
    stats = autopilot_match(60)
    assert stats.games == 60
    assert stats.wins >= 51, f"won only {stats.wins} of 60"
    assert stats.win_rate >= 0.85
