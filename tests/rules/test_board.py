"""The map: the classic board's shape and the refusal of anything that is not a map."""

from __future__ import annotations

import copy
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pbem.rules.board import Board, classic_board, load_board
from pbem.rules.errors import InvalidBoard, InvalidRecord
from pbem.rules.tables import CLANS, TERRAINS

from tests.support.rules import board_data, path_adjacency

#: The shipped map is the project's map (the shared boards/classic.json) byte for
#: byte: its SHA-256, pinned here so that the test needs no copy outside the repository.
SHIPPED_BOARD = Path(__file__).resolve().parents[2] / "pbem" / "rules" / "boards" / "classic.json"
SHARED_BOARD_SHA256 = "1a09d977658bddcd339ee1e401e7898d2df258245ef4be5b310a7890278d21fd"


# -- the classic board ---------------------------------------------------------------


def test_classic_has_60_territories() -> None:
    b = classic_board()
    assert len(b) == 60
    assert len(set(b.ids)) == 60
    assert all(isinstance(t, int) and t > 0 for t in b)


def test_classic_has_12_regions_of_5() -> None:
    regions = classic_board().regions_map()
    assert len(regions) == 12
    assert all(len(ts) == len(CLANS) == 5 for ts in regions.values())
    assert sorted(t for ts in regions.values() for t in ts) == sorted(classic_board().ids)


def test_classic_adjacency_is_symmetric_and_irreflexive() -> None:
    b = classic_board()
    for t in b:
        assert t not in b.neighbours(t)
        assert not b.adjacent(t, t)
        for o in b.neighbours(t):
            assert t in b.neighbours(o)
            assert b.adjacent(t, o) and b.adjacent(o, t)


def test_classic_has_15_of_each_terrain() -> None:
    counts = Counter(classic_board().terrain(t) for t in classic_board())
    assert counts == {t: 15 for t in TERRAINS}


def test_classic_every_territory_touches_2_to_7() -> None:
    b = classic_board()
    degrees = [len(b.neighbours(t)) for t in b]
    assert min(degrees) >= 2 and max(degrees) <= 7


def test_classic_is_connected() -> None:
    b = classic_board()
    seen = {b.ids[0]}
    todo = [b.ids[0]]
    while todo:
        for o in b.neighbours(todo.pop()):
            if o not in seen:
                seen.add(o)
                todo.append(o)
    assert seen == set(b.ids)


def test_classic_is_cached_and_named() -> None:
    assert classic_board() is classic_board()
    assert load_board("classic") is classic_board()
    assert classic_board().name == "classic"
    assert classic_board().to_data() == "classic"


def test_shipped_board_matches_shared_map() -> None:
    assert hashlib.sha256(SHIPPED_BOARD.read_bytes()).hexdigest() == SHARED_BOARD_SHA256
    shared = json.loads(SHIPPED_BOARD.read_text("utf-8"))
    b = classic_board()
    for t in shared["territories"]:
        assert b.terrain(t["id"]) == t["terrain"]
        assert b.neighbours(t["id"]) == frozenset(t["neighbours"])
    assert len(shared["territories"]) == len(b)


def test_adjacent_with_unknown_ids_is_false() -> None:
    b = classic_board()
    assert not b.adjacent(1, 10**6)
    assert not b.adjacent(10**6, 1)
    assert 10**6 not in b
    assert 1 in b


# -- inline boards ---------------------------------------------------------------------


def test_inline_board_round_trips_through_to_data() -> None:
    data = board_data(path_adjacency(4), {1: "forest", 2: "mountain", 3: "steppe", 4: "grassland"})
    b = Board.from_data(data)
    assert b.ids == (1, 2, 3, 4)
    assert b.terrain(2) == "mountain"
    assert b.neighbours(2) == {1, 3}
    again = Board.from_data(b.to_data())
    assert again.ids == b.ids and again.terrains == b.terrains
    assert again.neighbour_masks == b.neighbour_masks


def test_inline_board_ignores_extra_keys() -> None:
    data = board_data(path_adjacency(2))
    data["territories"][0].update(region=3, outline=[[0, 0]], label="x")
    b = Board.from_data(data)
    assert b.region(1) == 3 and b.region(2) is None


def good() -> dict[str, Any]:
    return board_data(path_adjacency(3), "forest")


def broken(mutate: Any) -> Any:
    data = copy.deepcopy(good())
    out = mutate(data)
    return data if out is None else out


BAD_BOARDS = {
    "asymmetric": broken(lambda d: d["territories"][0].__setitem__("neighbours", [])),
    "asymmetric-one-way": {"territories": [
        {"id": 1, "terrain": "forest", "neighbours": [2]},
        {"id": 2, "terrain": "forest", "neighbours": []}]},
    "unknown-terrain": broken(lambda d: d["territories"][1].__setitem__("terrain", "lake")),
    "terrain-missing": broken(lambda d: d["territories"][1].pop("terrain")),
    "terrain-wrong-case": broken(lambda d: d["territories"][1].__setitem__("terrain", "Forest")),
    "duplicate-id": {"territories": [
        {"id": 1, "terrain": "forest", "neighbours": [2]},
        {"id": 2, "terrain": "forest", "neighbours": [1]},
        {"id": 2, "terrain": "steppe", "neighbours": [1]}]},
    "self-neighbour": broken(lambda d: d["territories"][0]["neighbours"].append(1)),
    "string-id": broken(lambda d: d["territories"][0].__setitem__("id", "1")),
    "float-id": broken(lambda d: d["territories"][0].__setitem__("id", 1.0)),
    "bool-id": {"territories": [
        {"id": True, "terrain": "forest", "neighbours": [2]},
        {"id": 2, "terrain": "forest", "neighbours": [1]}]},
    "zero-id": broken(lambda d: d["territories"][0].__setitem__("id", 0)),
    "negative-id": broken(lambda d: d["territories"][0].__setitem__("id", -1)),
    "huge-id": broken(lambda d: d["territories"][0].__setitem__("id", 10**30)),
    "missing-id": broken(lambda d: d["territories"][0].pop("id")),
    "unknown-neighbour": broken(lambda d: d["territories"][2]["neighbours"].append(99)),
    "bool-neighbour": broken(lambda d: d["territories"][2]["neighbours"].append(True)),
    "string-neighbour": broken(lambda d: d["territories"][2]["neighbours"].append("1")),
    "neighbour-twice": broken(lambda d: d["territories"][0]["neighbours"].append(2)),
    "neighbours-not-list": broken(lambda d: d["territories"][0].__setitem__("neighbours", 2)),
    "neighbours-missing": broken(lambda d: d["territories"][0].pop("neighbours")),
    "territory-not-object": broken(lambda d: d["territories"].append([4, "forest", []])),
    "empty-list": {"territories": []},
    "no-territories": {},
    "territories-not-list": {"territories": {"1": {"terrain": "forest"}}},
    "list": [{"id": 1, "terrain": "forest", "neighbours": []}],
    "number": 60,
    "null": None,
}


@pytest.mark.parametrize("name", sorted(BAD_BOARDS))
def test_invalid_board_refused(name: str) -> None:
    with pytest.raises(InvalidBoard) as info:
        Board.from_data(BAD_BOARDS[name])
    assert info.value.code == "invalid-record"
    assert str(info.value).startswith("board")


def test_the_good_board_of_the_broken_ones_is_good() -> None:
    # The refusals above are due to the mutation, not to the base board.
    b = Board.from_data(good())
    assert len(b) == 3


def test_too_many_territories_refused() -> None:
    n = 1001
    data = {"territories": [{"id": i, "terrain": "steppe", "neighbours": []} for i in range(1, n + 1)]}
    with pytest.raises(InvalidBoard):
        Board.from_data(data)
    data["territories"].pop()
    assert len(Board.from_data(data)) == 1000


def test_single_territory_board_is_a_board() -> None:
    assert len(Board.from_data({"territories": [{"id": 7, "terrain": "steppe", "neighbours": []}]})) == 1


def test_load_board_refuses_unknown_names() -> None:
    with pytest.raises(InvalidBoard):
        load_board("classic2")
    with pytest.raises(InvalidBoard):
        load_board("")


def test_invalid_board_is_an_invalid_record_and_value_error() -> None:
    assert issubclass(InvalidBoard, InvalidRecord)
    assert issubclass(InvalidBoard, ValueError)


def test_board_is_immutable() -> None:
    b = classic_board()
    with pytest.raises(AttributeError):
        b.name = "other"  # type: ignore[misc]
