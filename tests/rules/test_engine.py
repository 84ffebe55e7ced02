"""The engine's fast paths: the board's derived tables, the playout loop and the
shortcuts taken in founding villages give exactly what the plain paths give."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from pbem.rules.board import Board, classic_board
from pbem.rules.deal import deal_game
from pbem.rules.game import Game
from pbem.rules.history import Village
from pbem.rules.playout import random_game
from pbem.rules.tables import TERRAINS, VILLAGE_CHIPS, VILLAGE_EPOCHS, VILLAGE_VALUES, epoch_of_village, village_value

from tests.support.rules import huts, make_board, path_adjacency


def odd_board() -> Board:
    """Ids out of index order, uneven degrees."""
    return Board.from_data({"territories": [
        {"id": 30, "terrain": "forest", "neighbours": [7, 12]},
        {"id": 7, "terrain": "steppe", "neighbours": [30, 12, 99]},
        {"id": 12, "terrain": "mountain", "neighbours": [30, 7]},
        {"id": 99, "terrain": "grassland", "neighbours": [7]},
    ]})


@pytest.mark.parametrize("board", [classic_board(), odd_board()], ids=["classic", "odd"])
def test_engine_tables_match_the_adjacency(board: Board) -> None:
    n = len(board)
    pairs = {(a, b) for a in range(n) for b in range(n) if board.neighbour_masks[a] >> b & 1}
    assert set(board.edges) == {(a, b) for a, b in pairs if a < b}
    assert len(board.edges) == len(set(board.edges))
    assert set(board.arcs) == pairs and len(board.arcs) == len(pairs)
    for e, (a, b) in enumerate(board.edges):
        assert board.arcs[2 * e] == (a, b) and board.arcs[2 * e + 1] == (b, a)
        assert (b, e) in board.incident[a] and (a, e) in board.incident[b]
    assert sum(len(inc) for inc in board.incident) == len(pairs)
    for s, t in pairs:
        move = board.moves[s][t]
        assert (move.source, move.target) == (board.ids[s], board.ids[t])
    assert sum(len(m) for m in board.moves) == len(pairs)


def test_village_value_table_matches_the_chart() -> None:
    assert VILLAGE_EPOCHS[1:] == tuple(epoch_of_village(n) for n in range(1, VILLAGE_CHIPS + 1))
    for (epoch, terrain), (factor, bonus) in VILLAGE_VALUES.items():
        for k in range(0, 80):
            assert factor * k + bonus == village_value(k, terrain, epoch)
    assert {t for _, t in VILLAGE_VALUES} == set(TERRAINS)


def test_villages_made_in_play_are_ordinary_villages() -> None:
    game = random_game(random.Random(3))
    assert game.villages
    for v in game.villages:
        assert type(v) is Village
        again = Village(**{f.name: getattr(v, f.name) for f in dataclasses.fields(Village)})
        assert v == again and repr(v) == repr(again) and vars(v) == vars(again)
        assert dataclasses.replace(v) == v
        with pytest.raises(dataclasses.FrozenInstanceError):
            v.points = 0  # type: ignore[misc]


@pytest.mark.parametrize("seed", range(12))
def test_a_playout_is_what_pushing_its_moves_gives(seed: int) -> None:
    players = ("ann", "bob", "cid", "dee")[: 2 + seed % 3]
    played = random_game(random.Random(seed), players)
    step = deal_game(players, random.Random(seed)).game()
    for p in played.history:
        assert p.move in set(step.legal_moves())
        founded = step.push(p.move, list(p.order) if p.explicit_order else None)
        assert tuple(v.number for v in founded) == p.villages
    assert step.to_json() == played.to_json()
    assert (step._occ, step._live, sorted(step._edges)) == (played._occ, played._live, sorted(played._edges))
    assert [tuple(p) for p in step.history] == [tuple(p) for p in played.history]


def test_the_playout_draw_is_uniform_and_legal_beside_big_groups() -> None:
    # 1:8 - 2:3 - 3:9 - 4:1 in a line: 1-2, 3-2 and 3-4 are illegal (7 or more
    # moving onto fewer), so three of the six arcs must never be drawn.
    game = Game(make_board(path_adjacency(4)), ["ann", "bob"],
                {1: huts(red=8), 2: huts(blue=3), 3: huts(green=9), 4: huts(black=1)})
    legal = {(m.source, m.target) for m in game.legal_moves()}
    assert legal == {(2, 1), (2, 3), (4, 3)}
    rng = random.Random(1)
    seen: Counter[tuple[int, int]] = Counter()
    for _ in range(3000):
        copy = game.copy()
        copy._play_randomly(rng)
        first = copy.history[0].move
        seen[first.source, first.target] += 1
    assert set(seen) == legal
    assert all(900 < k < 1100 for k in seen.values()), seen
