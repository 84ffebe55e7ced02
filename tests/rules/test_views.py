"""What each viewer may see: no clan before the end except your own, everything after."""

from __future__ import annotations

import json
import random
from typing import Any, Iterator

import pytest

from pbem.rules.deal import deal_game
from pbem.rules.game import Game
from pbem.rules.move import Move
from pbem.rules.record import result
from pbem.rules.tables import CLANS
from pbem.rules.views import player_view, public_view, view_for

from tests.support.rules import make_board, make_game, pairs_adjacency, path_adjacency

NAMES = ("ann", "bob", "cid", "dee")


def walk_json(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any, Any]]:
    """Every (path, key, value) of the dicts inside ``value``."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield path, k, v
            yield from walk_json(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk_json(v, path + (i,))


def clan_values(view: dict[str, Any]) -> list[tuple[tuple[Any, ...], Any]]:
    """Every non-None value under a key named ``clan``, with where it is."""
    return [(path, v) for path, k, v in walk_json(view) if k == "clan" and v is not None]


def assert_no_name_to_clan(view: dict[str, Any], game: Game, allowed: set[str]) -> None:
    """No dict maps a player's name to a clan (nor a name to a dict with a clan)."""
    for path, k, v in walk_json(view):
        if k in game.players and k not in allowed:
            assert v not in CLANS, (path, k, v)
            if isinstance(v, dict):
                assert v.get("clan") is None


def games_in_progress(seed: int, n: int) -> Iterator[Game]:
    rng = random.Random(seed)
    game = deal_game(NAMES[:n], rng).game()
    while not game.is_over():
        yield game
        game.push(game.random_move(rng))  # type: ignore[arg-type]


@pytest.mark.parametrize("seed, n", [(1, 2), (2, 3), (3, 4), (4, 4)])
def test_no_clan_before_the_end(seed: int, n: int) -> None:
    seen = 0
    for game in games_in_progress(seed, n):
        if game.ply % 5:
            continue
        seen += 1
        view = public_view(game)
        json.dumps(view)
        assert [p["clan"] for p in view["players"]] == [None] * n
        assert clan_values(view) == []
        assert "clans" not in view
        assert view["final_scores"] is None and view["winners"] is None
        assert all(p["final_score"] is None for p in view["players"])
        assert_no_name_to_clan(view, game, allowed=set())
        for seat in range(n):
            mine = player_view(game, seat)
            json.dumps(mine)
            assert mine["clan"] == game.clans[seat]
            assert [p["clan"] for p in mine["players"]] == [None] * n
            assert clan_values(mine) == [((), game.clans[seat])]
            assert "clans" not in mine
            assert_no_name_to_clan(mine, game, allowed=set())
            # nothing but the seat's own clan is added to the public view
            extra = {k: v for k, v in mine.items() if k not in view}
            assert set(extra) == {"seat", "you", "clan", "your_turn", "legal_moves", "founding"}
            assert {k: mine[k] for k in view} == view
    assert seen >= 3


def test_public_view_of_a_game_in_progress() -> None:
    game = make_game(make_board(pairs_adjacency(3)), {t: ["red"] for t in range(1, 7)},
                     players=("ann", "bob", "cid"), clans=("red", "blue", "green"), first=1)
    game.push(Move(1, 2))
    view = public_view(game)
    assert view["board"] == "inline"
    assert view["ply"] == 1 and view["epoch"] == 1 and view["villages_founded"] == 1
    assert view["next"] == "cid" and view["next_seat"] == 2
    assert [p["to_move"] for p in view["players"]] == [False, False, True]
    assert [p["chips"] for p in view["players"]] == [0, 1, 0]
    assert [p["name"] for p in view["players"]] == ["ann", "bob", "cid"]
    assert view["finished"] is False and view["end"] is None
    assert view["last_move"] == "1-2"
    assert view["history"] == [{"ply": 1, "seat": 1, "player": "bob", "move": "1-2", "villages": [1]}]
    r = result(game)
    for key in ("huts", "villages", "clan_scores", "next", "finished", "end", "epoch"):
        assert view[key] == r[key]
    assert view_for(game, None) == view
    assert view_for(game, 0) == player_view(game, 0)


def test_everything_is_revealed_at_the_end() -> None:
    game = make_game(make_board(path_adjacency(2)), {1: ["red"], 2: ["blue"]},
                     players=("ann", "bob", "cid"), clans=("red", "green", "blue"), first=1)
    game.push(Move(1, 2))
    view = public_view(game)
    assert view["finished"] is True and view["end"] == "no-legal-move"
    assert [p["clan"] for p in view["players"]] == ["red", "green", "blue"]
    assert [p["final_score"] for p in view["players"]] == [2, 1, 2]
    assert view["final_scores"] == {"ann": 2, "bob": 1, "cid": 2}
    assert view["winners"] == ["ann", "cid"]
    assert view["next"] is None and view["next_seat"] is None
    assert not any(p["to_move"] for p in view["players"])
    for seat in range(3):
        mine = player_view(game, seat)
        assert mine["your_turn"] is False and mine["legal_moves"] == [] and mine["founding"] == {}


@pytest.mark.parametrize("seed", [5, 6])
def test_revealed_after_a_whole_random_game(seed: int) -> None:
    game = None
    for game in games_in_progress(seed, 4):
        pass
    assert game is not None
    assert game.is_over()
    view = public_view(game)
    outcome = game.outcome()
    assert outcome is not None
    assert [p["clan"] for p in view["players"]] == list(game.clans)
    assert [p["final_score"] for p in view["players"]] == list(outcome.final_scores)
    assert view["winners"] == list(outcome.winners)


def test_legal_moves_only_on_your_turn() -> None:
    game = make_game(make_board(path_adjacency(5)), {1: ["red"], 2: ["blue"], 3: ["red"], 4: ["green"], 5: ["red"]})
    for _ in range(2):
        turn = game.turn
        assert turn is not None
        mine = player_view(game, turn)
        assert mine["your_turn"] is True
        assert mine["legal_moves"] == [str(m) for m in game.legal_moves()]
        assert mine["legal_moves"]
        assert mine["founding"] == {str(m): list(game.founding(m)) for m in game.legal_moves() if game.founding(m)}
        other = player_view(game, 1 - turn)
        assert other["your_turn"] is False
        assert other["legal_moves"] == [] and other["founding"] == {}
        assert other["you"] == game.players[1 - turn] and other["seat"] == 1 - turn
        game.push(next(iter(game.legal_moves())))


def test_founding_lists_multi_village_moves() -> None:
    game = make_game(make_board({1: [2], 2: [3]}), {1: ["red"], 2: ["blue"], 3: ["green"]})
    mine = player_view(game, 0)
    # moving the middle group founds both ends; an end joining the middle founds nothing
    assert mine["founding"] == {"2-1": [1, 3], "2-3": [1, 3]}
    assert mine["legal_moves"] == ["1-2", "2-1", "2-3", "3-2"]
