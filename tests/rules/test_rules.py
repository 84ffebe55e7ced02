"""Each rule of rules.md on small inline boards."""

from __future__ import annotations

import json
import random
from typing import Any, Sequence

import pytest

from pbem.rules import errors
from pbem.rules.game import Game
from pbem.rules.move import Move
from pbem.rules.record import replay
from pbem.rules.tables import CLANS, EPOCHS, TERRAINS, epoch_of_village, village_value

from tests.support.rules import (
    CODES,
    board_data,
    huts,
    make_board,
    make_game,
    make_record,
    pairs_adjacency,
    path_adjacency,
)


def state(game: Game) -> str:
    return json.dumps(game.to_json(), sort_keys=True)


def winners(game: Game) -> tuple[str, ...]:
    outcome = game.outcome()
    assert outcome is not None
    return outcome.winners


def total_huts(game: Game) -> int:
    return sum(game.count(t) for t in game.occupied())


def play_pairs(game: Game, pairs: Sequence[int]) -> None:
    """Found one village on each pair j by moving 2j-1 into 2j."""
    for j in pairs:
        game.push(Move(2 * j - 1, 2 * j))


# -- a turn ------------------------------------------------------------------------------


def test_a_move_takes_all_huts() -> None:
    game = make_game(make_board(path_adjacency(3)),
                     {1: huts(red=2, blue=1), 2: ["green"], 3: ["yellow"]})
    founded = game.push(Move(1, 2))
    assert founded == []
    assert game.count(1) == 0 and game.huts(1) == {}
    assert game.huts(2) == {"red": 2, "blue": 1, "green": 1}
    assert game.huts(3) == {"yellow": 1}
    assert game.occupied() == [2, 3]
    assert total_huts(game) == 5
    assert game.ply == 1 and game.turn == 1


PATH5 = {1: ["red"], 2: ["blue"], 4: ["green"], 5: ["yellow"]}  # 3 is empty


@pytest.mark.parametrize("move", [Move(2, 3), Move(4, 3)])
def test_target_must_not_be_empty(move: Move) -> None:
    game = make_game(make_board(path_adjacency(5)), PATH5)
    with pytest.raises(errors.EmptyTarget) as info:
        game.push(move)
    assert info.value.code == "empty-target"
    assert not game.is_legal(move)


@pytest.mark.parametrize("move", [Move(1, 4), Move(2, 4), Move(1, 5), Move(1, 1), Move(2, 2)])
def test_target_must_be_adjacent(move: Move) -> None:
    game = make_game(make_board(path_adjacency(5)), PATH5)
    with pytest.raises(errors.NotAdjacent) as info:
        game.push(move)
    assert info.value.code == "not-adjacent"
    assert not game.is_legal(move)


def test_source_must_not_be_empty() -> None:
    game = make_game(make_board(path_adjacency(5)), PATH5)
    with pytest.raises(errors.EmptySource):
        game.push(Move(3, 2))


@pytest.mark.parametrize("move", [Move(9, 1), Move(1, 9), Move(0, 1), Move(10**30, 1), Move(1, 10**30)])
def test_territory_must_exist(move: Move) -> None:
    game = make_game(make_board(path_adjacency(5)), PATH5)
    with pytest.raises(errors.UnknownTerritory):
        game.push(move)


def test_legal_moves_of_a_small_position() -> None:
    game = make_game(make_board(path_adjacency(5)), PATH5)
    assert list(game.legal_moves()) == [Move(1, 2), Move(2, 1), Move(4, 5), Move(5, 4)]


def test_any_player_may_move_any_colour() -> None:
    # ann plays red, but may move the blue and green huts alone
    game = make_game(make_board(path_adjacency(3)), {1: ["blue"], 2: ["green"], 3: ["green"]})
    game.push(Move(1, 2))
    assert game.huts(2) == {"blue": 1, "green": 1}


@pytest.mark.parametrize(
    "source, target, legal",
    [
        (7, 3, False),
        (7, 6, False),
        (7, 1, False),
        (8, 7, False),
        (12, 11, False),
        (7, 7, True),   # equal groups: either may move into the other
        (9, 9, True),
        (7, 8, True),
        (7, 20, True),
        (3, 7, True),   # smaller into 7 or more
        (1, 12, True),
        (6, 5, True),   # below 7, anything goes
        (6, 1, True),
        (1, 6, True),
    ],
)
def test_seven_or_more(source: int, target: int, legal: bool) -> None:
    game = make_game(make_board(path_adjacency(2)),
                     {1: huts(red=source), 2: huts(blue=target)})
    move = Move(1, 2)
    assert game.is_legal(move) is legal
    assert (move in list(game.legal_moves())) is legal
    if legal:
        game.push(move)
        assert game.huts(2) == {"red": source, "blue": target}
    else:
        before = state(game)
        with pytest.raises(errors.ImmovableGroup) as info:
            game.push(move)
        assert info.value.code == "immovable-group"
        assert state(game) == before
        # the other way round is always possible: the smaller joins the bigger
        assert game.is_legal(Move(2, 1))


def test_seven_group_counts_huts_of_all_colours() -> None:
    game = make_game(make_board(path_adjacency(2)),
                     {1: huts(red=2, blue=2, green=2, yellow=1), 2: huts(black=6)})
    assert not game.is_legal(Move(1, 2))
    assert list(game.legal_moves()) == [Move(2, 1)]


# -- villages ------------------------------------------------------------------------------

# 2 - 1 - 4, 1 - 3 - 5, and a separate pair 6 - 7
STAR = {1: [2, 3, 4], 3: [5], 6: [7]}
STAR_SETUP = {1: ["red"], 2: ["blue"], 3: ["green"], 4: ["yellow"], 5: ["black"], 6: ["red"], 7: ["blue"]}


def test_only_the_target_and_neighbours_of_the_source_become_villages() -> None:
    game = make_game(make_board(STAR), STAR_SETUP)
    before = state(game)
    assert game.founding(Move(1, 4)) == (2, 4)
    assert state(game) == before  # founding() only looks
    villages = game.push(Move(1, 4))
    assert [(v.number, v.territory) for v in villages] == [(1, 2), (2, 4)]
    assert [v.territory for v in game.villages] == [2, 4]
    # 3 kept an occupied neighbour (5); 6 and 7 were not touched
    assert game.founding(Move(3, 5)) == (5,)
    assert game.founding(Move(6, 7)) == (7,)


def test_single_hut_village() -> None:
    game = make_game(make_board(STAR), STAR_SETUP)
    first, second = game.push(Move(1, 4))
    assert first.territory == 2 and first.huts == {"blue": 1}
    assert first.points == 1 and first.clans == ("blue",)
    assert second.huts == {"red": 1, "yellow": 1} and second.points == 2
    assert game.scores() == {"red": 2, "yellow": 2, "green": 0, "blue": 1, "black": 0}
    assert game.chips == [2, 0]
    assert first.founder == second.founder == 0


def test_a_village_never_moves_nor_is_reached_again() -> None:
    game = make_game(make_board(STAR), STAR_SETUP)
    game.push(Move(1, 4))
    legal = list(game.legal_moves())
    assert legal == [Move(3, 5), Move(5, 3), Move(6, 7), Move(7, 6)]
    for v in (2, 4):
        assert all(v not in m for m in legal)
        with pytest.raises(errors.EmptyTarget):
            game.push(Move(v, 1))
    game.push(Move(6, 7))
    game.push(Move(5, 3))
    assert [v.territory for v in game.villages] == [2, 4, 7, 3]
    assert game.end == "no-legal-move"
    # the huts of a village stay on it
    assert game.position() == {2: {"blue": 1}, 3: {"green": 1, "black": 1},
                               4: {"red": 1, "yellow": 1}, 7: {"red": 1, "blue": 1}}


def test_no_village_while_an_occupied_neighbour_remains() -> None:
    game = make_game(make_board(path_adjacency(4)), {t: ["red"] for t in range(1, 5)})
    assert game.founding(Move(2, 3)) == (1,)  # 1 loses its only neighbour; 3 still has 4
    assert game.founding(Move(1, 2)) == ()
    assert game.push(Move(1, 2)) == []
    assert game.villages == []


# -- strife --------------------------------------------------------------------------------

PAIR = pairs_adjacency(1)


def found_one(setup_1: list[str], setup_2: list[str], terrain: str = "steppe",
              players: Sequence[str] = ("ann", "bob"), clans: Sequence[str] = ("red", "blue")) -> tuple[Game, Any]:
    game = make_game(make_board(PAIR, {1: "steppe", 2: terrain}), {1: setup_1, 2: setup_2},
                     players=players, clans=clans)
    (village,) = game.push(Move(1, 2))
    return game, village


def test_strife_rulebook_example() -> None:
    game, v = found_one(huts(blue=1, yellow=1, green=1), huts(black=4, red=2))
    assert v.huts == {"black": 4, "red": 2, "blue": 1, "yellow": 1, "green": 1}
    assert v.removed == {"blue": 1, "yellow": 1, "green": 1}
    assert v.clans == ("black", "red")
    assert v.points == 6
    assert game.huts(2) == {"black": 4, "red": 2}
    assert game.scores() == {"red": 6, "yellow": 0, "green": 0, "blue": 0, "black": 6}
    assert game.chips == [1, 0]


def test_no_strife_with_four_colours() -> None:
    game, v = found_one(huts(red=1, blue=1), huts(green=1, yellow=1))
    assert v.removed == {}
    assert v.points == 4
    assert v.clans == ("blue", "green", "red", "yellow")
    assert game.huts(2) == {"red": 1, "blue": 1, "green": 1, "yellow": 1}


def test_strife_without_singles_removes_nothing() -> None:
    game, v = found_one(huts(red=2, blue=2, green=2), huts(yellow=2, black=2))
    assert v.removed == {}
    assert v.points == 10
    assert v.clans == tuple(sorted(CLANS))


def test_strife_removes_exactly_the_single_huts() -> None:
    game, v = found_one(huts(red=2, blue=3, green=1), huts(yellow=1, black=2))
    assert v.removed == {"green": 1, "yellow": 1}
    assert game.huts(2) == {"red": 2, "blue": 3, "black": 2}
    assert v.points == 7
    assert v.clans == ("black", "blue", "red")
    assert game.scores() == {"red": 7, "yellow": 0, "green": 0, "blue": 7, "black": 7}


def test_strife_of_five_single_huts_leaves_nothing() -> None:
    game, v = found_one(huts(red=1, blue=1, green=1), huts(yellow=1, black=1))
    assert v.removed == {c: 1 for c in CLANS}
    assert v.clans == ()
    assert game.count(2) == 0
    assert game.position() == {}
    assert game.scores() == {c: 0 for c in CLANS}
    assert game.chips == [1, 0]  # the founder still takes the chip
    assert total_huts(game) == 0


# -- values and epochs --------------------------------------------------------------------

CHART = {
    # epoch: (favourable, bonus, hostile)
    1: ({"forest"}, 1, {"mountain"}),
    2: ({"mountain"}, 2, {"grassland"}),
    3: ({"steppe"}, 3, {"forest"}),
    4: ({"grassland"}, 4, {"steppe"}),
    5: (set(TERRAINS), 5, set()),
}
FIRST_VILLAGE_OF_EPOCH = {1: 1, 2: 5, 3: 8, 4: 10, 5: 12}


def expected_value(huts_left: int, terrain: str, epoch: int) -> int:
    favourable, bonus, hostile = CHART[epoch]
    if terrain in hostile:
        return 0
    return huts_left + (bonus if terrain in favourable else 0)


def test_the_chart() -> None:
    assert [e.villages for e in EPOCHS] == [4, 3, 2, 2, 1]
    assert [epoch_of_village(n) for n in range(1, 13)] == [1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5]
    for e in EPOCHS:
        fav, bonus, hostile = CHART[e.number]
        assert set(e.favourable) == fav and e.bonus == bonus and set(e.hostile) == hostile
    # in epochs I-IV each terrain is favourable once and hostile once
    assert sorted(t for e in EPOCHS[:4] for t in e.favourable) == sorted(TERRAINS)
    assert sorted(t for e in EPOCHS[:4] for t in e.hostile) == sorted(TERRAINS)


@pytest.mark.parametrize("epoch", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("terrain", TERRAINS)
@pytest.mark.parametrize("size", [1, 2, 5])
def test_village_value(epoch: int, terrain: str, size: int) -> None:
    assert village_value(size, terrain, epoch) == expected_value(size, terrain, epoch)


@pytest.mark.parametrize("epoch", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("terrain", TERRAINS)
def test_village_value_in_play(epoch: int, terrain: str) -> None:
    n = FIRST_VILLAGE_OF_EPOCH[epoch]
    terrains = {2 * j: "steppe" if j != n else terrain for j in range(1, 13)}
    terrains.update({2 * j - 1: "steppe" for j in range(1, 13)})
    board = make_board(pairs_adjacency(12), terrains)
    setup = {t: ["red"] if t % 2 else ["blue", "green"] for t in range(1, 25)}
    game = make_game(board, setup)
    play_pairs(game, range(1, n))
    assert game.epoch == epoch
    scores_before, chips_before = game.scores(), sum(game.chips)
    (v,) = game.push(Move(2 * n - 1, 2 * n))
    assert (v.number, v.epoch, v.terrain) == (n, epoch, terrain)
    assert v.points == expected_value(3, terrain, epoch)
    assert v.clans == ("blue", "green", "red")
    assert sum(game.chips) == chips_before + 1  # the chip is taken even on hostile terrain
    for c in ("red", "green", "blue"):
        assert game.scores()[c] == scores_before[c] + v.points
    assert game.scores()["black"] == game.scores()["yellow"] == 0


def test_hostile_terrain_scores_nothing_but_takes_the_chip() -> None:
    game, v = found_one(huts(red=3), huts(blue=2), terrain="mountain")
    assert (v.epoch, v.points) == (1, 0)
    assert v.clans == ("blue", "red")
    assert game.scores() == {c: 0 for c in CLANS}
    assert game.chips == [1, 0]
    assert game.final_scores() == (1, 0)


def test_favourable_bonus_and_every_clan_scores_the_full_value() -> None:
    # rules.md: 3 blue, 1 yellow, 1 red on forest in epoch I: 6 each
    game, v = found_one(huts(yellow=1, red=1), huts(blue=3), terrain="forest")
    assert v.points == 6
    assert game.scores() == {"red": 6, "yellow": 6, "green": 0, "blue": 6, "black": 0}


def test_epochs_advance_by_chips() -> None:
    board = make_board(pairs_adjacency(13))
    game = make_game(board, {t: ["red"] for t in range(1, 27)})
    epochs = []
    for j in range(1, 13):
        epochs.append(game.epoch)
        (v,) = game.push(Move(2 * j - 1, 2 * j))
        assert v.epoch == epochs[-1] and v.number == j
    assert epochs == [1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5]
    assert game.end == "twelfth-village"
    assert game.epoch == 5


# A - S - T with A forest and T mountain, after three single villages: moving S into T
# founds A and T, the 4th (epoch I) and 5th (epoch II) villages.
BOUNDARY = {**pairs_adjacency(3), 7: [8], 8: [9], 10: [11]}
BOUNDARY_TERRAINS = {7: "forest", 9: "mountain"}
BOUNDARY_SETUP = {**{t: ["black"] for t in range(1, 7)}, 7: ["red"], 8: ["blue"], 9: ["green"],
                  10: ["yellow"], 11: ["yellow"]}


def boundary_game() -> Game:
    game = make_game(make_board(BOUNDARY, BOUNDARY_TERRAINS), BOUNDARY_SETUP)
    play_pairs(game, [1, 2, 3])
    assert len(game.villages) == 3 and game.turn == 1
    return game


@pytest.mark.parametrize(
    "order, expected",
    [
        # (territory, number, epoch, points)
        (None, [(7, 4, 1, 1 + 1), (9, 5, 2, 2 + 2)]),    # default: ascending id
        ([7, 9], [(7, 4, 1, 1 + 1), (9, 5, 2, 2 + 2)]),
        ([9, 7], [(9, 4, 1, 0), (7, 5, 2, 1)]),          # mountain hostile in I, forest plain in II
    ],
)
def test_movers_order_across_an_epoch_boundary(order: list[int] | None, expected: list[tuple[int, ...]]) -> None:
    game = boundary_game()
    assert game.founding(Move(8, 9)) == (7, 9)
    villages = game.push(Move(8, 9), order)
    assert [(v.territory, v.number, v.epoch, v.points) for v in villages] == expected
    assert all(v.founder == 1 for v in villages)
    assert game.chips == [2, 3]
    points = {v.territory: v.points for v in villages}
    assert game.scores()["red"] == points[7]
    assert game.scores()["blue"] == game.scores()["green"] == points[9]
    assert game.epoch == 2 and game.end is None


@pytest.mark.parametrize("order", [[], [7], [9], [7, 7], [7, 9, 9], [7, 9, 10], [9, 8], [1, 7, 9]])
def test_bad_order(order: list[int]) -> None:
    game = boundary_game()
    before = state(game)
    with pytest.raises(errors.BadOrder) as info:
        game.push(Move(8, 9), order)
    assert info.value.code == "bad-order"
    assert state(game) == before


def test_order_on_a_move_that_founds_nothing() -> None:
    game = make_game(make_board(path_adjacency(4)), {t: ["red"] for t in range(1, 5)})
    with pytest.raises(errors.BadOrder):
        game.push(Move(1, 2), [2])
    game.push(Move(1, 2), [])  # the empty order is exactly the villages it founds
    assert game.ply == 1


# -- the end ---------------------------------------------------------------------------------

# 11 pairs, then A(23) - S(24) - T(25), and one more pair 26 - 27 that could still move
TWELVE = {**pairs_adjacency(11), 23: [24], 24: [25], 26: [27]}
TWELVE_SETUP = {**{t: ["black"] for t in range(1, 23)}, 23: ["yellow"], 24: ["red"], 25: ["blue"],
                26: ["green"], 27: ["green"]}


def eleven_villages() -> Game:
    game = make_game(make_board(TWELVE), TWELVE_SETUP, players=("ann", "bob", "cid"),
                     clans=("red", "blue", "green"))
    play_pairs(game, range(1, 12))
    assert len(game.villages) == 11 and game.end is None
    return game


@pytest.mark.parametrize("order, twelfth, not_a_village", [(None, 23, 25), ([23, 25], 23, 25), ([25, 23], 25, 23)])
def test_twelfth_village_ends_the_game(order: list[int] | None, twelfth: int, not_a_village: int) -> None:
    game = eleven_villages()
    scores = game.scores()
    mover = game.turn
    assert mover == 2
    villages = game.push(Move(24, 25), order)
    assert [v.territory for v in villages] == [twelfth]
    (v,) = villages
    assert (v.number, v.epoch) == (12, 5)
    assert v.points == game.count(twelfth) + 5
    assert len(game.villages) == 12
    assert sum(game.chips) == 12 and game.chips[mover] == 4
    assert game.end == "twelfth-village" and game.is_over() and game.turn is None
    # the other one is no village: not scored, no chip, its huts stay where they are
    assert not_a_village not in [x.territory for x in game.villages]
    assert game.count(not_a_village) >= 1
    for clan in game.huts(not_a_village):
        if clan not in game.huts(twelfth):
            assert game.scores()[clan] == scores[clan]
    # 26 - 27 could still move, but the game is over
    assert list(game.legal_moves()) == []
    assert game.random_move(random.Random(1)) is None
    with pytest.raises(errors.GameOver):
        game.push(Move(26, 27))
    assert game.epoch == 5


def test_twelfth_village_default_order_scores() -> None:
    game = eleven_villages()
    game.push(Move(24, 25))
    # 23 (one yellow hut) is the 12th in epoch V: 1 + 5; red and blue on 25 score nothing
    assert game.scores()["yellow"] == 6
    assert game.scores()["red"] == game.scores()["blue"] == 0
    assert game.huts(25) == {"red": 1, "blue": 1}


def test_no_legal_move_ends_the_game() -> None:
    game = make_game(make_board(path_adjacency(3)), {1: ["red"], 2: ["blue"], 3: ["red"]})
    game.push(Move(1, 2))
    assert game.end is None
    game.push(Move(3, 2))
    assert game.end == "no-legal-move"
    assert game.turn is None and game.is_over()
    assert list(game.legal_moves()) == []
    assert game.random_move(random.Random(0)) is None
    assert len(game.villages) == 1
    assert game.epoch == 1
    with pytest.raises(errors.GameOver) as info:
        game.push(Move(2, 3))
    assert info.value.code == "game-over"


def test_no_legal_move_at_the_start() -> None:
    board = make_board({1: [2], 2: [], 3: []})
    game = make_game(board, {})
    assert game.is_over() and game.end == "no-legal-move"
    assert game.final_scores() == (0, 0)
    assert winners(game) == ("ann", "bob")


def test_lonely_occupied_territory_in_setup_is_refused() -> None:
    board = make_board({1: [2], 2: [], 3: []})
    with pytest.raises(errors.InvalidRecord):
        make_game(board, {1: ["red"], 2: ["blue"], 3: ["green"]})


def test_setup_refuses_unknown_territory_and_colour() -> None:
    board = make_board(path_adjacency(2))
    with pytest.raises(errors.InvalidRecord):
        make_game(board, {1: ["red"], 3: ["blue"]})
    with pytest.raises(errors.InvalidRecord):
        make_game(board, {1: ["red"], 2: ["white"]})


# -- turns and scores ------------------------------------------------------------------------


@pytest.mark.parametrize("first, seats", [(0, [0, 1, 2, 0, 1, 2]), (1, [1, 2, 0, 1, 2, 0]), (2, [2, 0, 1, 2, 0, 1])])
def test_turn_order_with_first(first: int, seats: list[int]) -> None:
    board = make_board(pairs_adjacency(7))
    game = make_game(board, {t: ["red"] for t in range(1, 15)}, players=("ann", "bob", "cid"),
                     clans=("red", "blue", "green"), first=first)
    turns = []
    for j in range(1, 7):
        turns.append(game.turn)
        game.push(Move(2 * j - 1, 2 * j))
    assert turns == seats
    assert [v.founder for v in game.villages] == seats
    assert [p.seat for p in game.history] == seats
    assert game.chips == [2, 2, 2]


def test_moves_do_not_depend_on_whose_turn_it_is() -> None:
    board = make_board(STAR)
    a = make_game(board, STAR_SETUP, first=0)
    b = make_game(board, STAR_SETUP, first=1)
    assert list(a.legal_moves()) == list(b.legal_moves())


def test_final_scores_are_clan_score_plus_chips_and_ties_share() -> None:
    board = make_board(path_adjacency(2))
    game = make_game(board, {1: ["red"], 2: ["blue"]}, players=("ann", "bob", "cid"),
                     clans=("red", "green", "blue"), first=1)
    game.push(Move(1, 2))  # bob founds red+blue: 2 points each, one chip to bob
    assert game.end == "no-legal-move"
    assert game.chips == [0, 1, 0]
    assert game.final_scores() == (2, 1, 2)
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winners == ("ann", "cid")
    assert outcome.final_scores == (2, 1, 2)
    assert outcome.clans == ("red", "green", "blue")


def test_chips_can_decide_the_game() -> None:
    board = make_board(path_adjacency(2))
    game = make_game(board, {1: ["red"], 2: ["blue"]})  # ann red, bob blue: 2 each, ann's chip
    game.push(Move(1, 2))
    assert game.final_scores() == (3, 2)
    assert winners(game) == ("ann",)


def test_unowned_clans_score_but_do_not_win() -> None:
    game, v = found_one(huts(green=3), huts(black=2), players=("ann", "bob"), clans=("red", "blue"))
    assert game.scores()["green"] == game.scores()["black"] == 5
    assert game.final_scores() == (1, 0)
    assert winners(game) == ("ann",)


def test_no_final_scores_without_clans_or_before_the_end() -> None:
    board = make_board(path_adjacency(3))
    game = make_game(board, {1: ["red"], 2: ["blue"], 3: ["red"]}, clans=None)
    assert game.final_scores() is None and game.outcome() is None
    game.push(Move(1, 2))
    assert game.final_scores() is None
    game.push(Move(3, 2))
    assert game.is_over()
    assert game.final_scores() is None and game.outcome() is None


# -- the order of the checks -----------------------------------------------------------------

# 1 - 2 - 3 - 4 - 5 and a lone 6: 1 has 3 huts, 2 has 7, 3 is empty
CHECKS_BOARD = {**path_adjacency(5), 6: []}
CHECKS_SETUP = {1: huts(blue=3), 2: huts(red=7), 4: ["green"], 5: ["yellow"]}


def checks_game() -> Game:
    return make_game(make_board(CHECKS_BOARD), CHECKS_SETUP)


@pytest.mark.parametrize(
    "move, order, code",
    [
        (Move(99, 3), None, "unknown-territory"),     # also: empty source
        (Move(3, 99), None, "unknown-territory"),     # also: empty source, not adjacent
        (Move(99, 98), [1], "unknown-territory"),
        (Move(3, 6), None, "empty-source"),           # also: not adjacent, empty target
        (Move(3, 3), None, "empty-source"),
        (Move(6, 2), None, "empty-source"),
        (Move(2, 6), None, "not-adjacent"),           # also: empty target, 7 into smaller
        (Move(2, 2), None, "not-adjacent"),           # FROM = TO
        (Move(1, 4), [5], "not-adjacent"),            # also: bad order
        (Move(2, 3), None, "empty-target"),           # also: 7 into smaller (nothing)
        (Move(4, 3), [4], "empty-target"),            # also: bad order
        (Move(2, 1), None, "immovable-group"),
        (Move(2, 1), [99], "immovable-group"),        # also: bad order
        (Move(1, 2), [5], "bad-order"),
        (Move(1, 2), [], "bad-order"),
    ],
)
def test_first_failing_check_names_the_code(move: Move, order: list[int] | None, code: str) -> None:
    game = checks_game()
    before = state(game)
    with pytest.raises(errors.IllegalMove) as info:
        game.push(move, order)
    assert info.value.code == code
    assert info.value.move == str(move)
    assert state(game) == before  # a refused move changes nothing
    assert list(game.legal_moves()) == [Move(1, 2), Move(4, 5), Move(5, 4)]
    # and the game goes on normally afterwards
    assert game.push(Move(1, 2), [2])[0].territory == 2


def test_game_over_is_checked_first() -> None:
    game = make_game(make_board(path_adjacency(2)), {1: ["red"], 2: ["blue"]})
    game.push(Move(1, 2))
    before = state(game)
    for move in (Move(99, 98), Move(1, 2), Move(2, 1), Move(2, 2)):
        with pytest.raises(errors.GameOver):
            game.push(move, [99])
        assert state(game) == before


def test_errors_are_value_errors_with_the_record_codes() -> None:
    classes = [errors.InvalidRecord, errors.GameOver, errors.MalformedMove, errors.UnknownTerritory,
               errors.EmptySource, errors.NotAdjacent, errors.EmptyTarget, errors.ImmovableGroup,
               errors.BadOrder]
    assert [c.code for c in classes] == list(CODES)
    assert all(issubclass(c, ValueError) and issubclass(c, errors.RulesError) for c in classes)


# The same order through records: move_index names the refused move, after the ones before it.

CHECKS_RECORD_BOARD = board_data(CHECKS_BOARD)
CHECKS_RECORD_SETUP = {"1": ["blue"] * 3, "2": ["red"] * 7, "4": "green", "5": "yellow"}


@pytest.mark.parametrize(
    "moves, code, index",
    [
        (["4-5", "garbage"], "malformed-move", 1),
        (["4-5", {"order": [1]}], "malformed-move", 1),
        (["4-5", {"move": "x-1", "order": "x"}], "malformed-move", 1),
        (["4-5", "99-3"], "unknown-territory", 1),
        (["4-5", "3-99"], "unknown-territory", 1),
        (["4-5", "3-6"], "empty-source", 1),
        (["4-5", "4-5"], "empty-source", 1),
        (["2-6"], "not-adjacent", 0),
        (["2-3"], "empty-target", 0),
        (["2-1"], "immovable-group", 0),
        ([{"move": "1-2", "order": [5]}], "bad-order", 0),
        ([{"move": "1-2", "order": [2, 2]}], "bad-order", 0),
        ([{"move": "1-2", "order": ["2"]}], "bad-order", 0),
        ([{"move": "1-2", "order": [True]}], "bad-order", 0),
        (["1-2", "4-5", "2-1"], "game-over", 2),
        (["1-2", "4-5", "garbage"], "game-over", 2),
        (["1-2", "4-5", {"order": "x"}], "game-over", 2),
    ],
)
def test_record_refusals(moves: list[Any], code: str, index: int) -> None:
    out = replay(make_record(CHECKS_RECORD_BOARD, CHECKS_RECORD_SETUP, moves))
    assert "error" in out, out
    assert out["error"]["code"] == code
    assert out["error"]["move_index"] == index
    assert out["error"]["move"] == moves[index]


def test_record_plays_the_legal_moves() -> None:
    out = replay(make_record(CHECKS_RECORD_BOARD, CHECKS_RECORD_SETUP,
                             [{"move": "1-2", "order": [2]}, {"move": "4-5", "order": None}]))
    assert "error" not in out
    assert out["end"] == "no-legal-move"
    assert [v["territory"] for v in out["villages"]] == [2, 5]
    assert [v["founder"] for v in out["villages"]] == ["ann", "bob"]


def test_invalid_record_is_checked_before_the_moves() -> None:
    record = make_record(CHECKS_RECORD_BOARD, CHECKS_RECORD_SETUP, ["garbage"], players=["ann"],
                         clans={"ann": "red"})
    out = replay(record)
    assert out["error"]["code"] == "invalid-record"
    assert out["error"]["move_index"] is None


@pytest.mark.parametrize(
    "raw, code",
    [
        ({"move": "99-3", "order": "x"}, "unknown-territory"),
        ({"move": "3-6", "order": [True]}, "empty-source"),
        ({"move": "2-2", "order": ["2"]}, "not-adjacent"),
        ({"move": "2-3", "order": 7}, "empty-target"),
        ({"move": "2-1", "order": [1.5]}, "immovable-group"),
    ],
)
def test_order_type_is_checked_last(raw: dict[str, Any], code: str) -> None:
    # record.md: "Each move is checked in the table's order; the first failing check
    # names the code" -- bad-order is the last check.
    out = replay(make_record(CHECKS_RECORD_BOARD, CHECKS_RECORD_SETUP, [raw]))
    assert out["error"]["code"] == code


def test_push_text() -> None:
    game = checks_game()
    with pytest.raises(errors.MalformedMove):
        game.push_text("1 2")
    game.push_text(" 1 to 2 ", [2], strict=False)
    assert game.ply == 1 and [v.territory for v in game.villages] == [2]


def test_bool_in_order_is_refused_by_push() -> None:
    game = make_game(make_board(path_adjacency(2)), {1: ["red"], 2: ["blue"]})
    with pytest.raises(errors.BadOrder):
        game.push(Move(2, 1), [True])
