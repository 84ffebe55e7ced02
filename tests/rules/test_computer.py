"""The computer players: legal at every level, deterministic for a seed when
not time-boxed, and honest — they decide from their own player view alone."""

from __future__ import annotations

import itertools
import random
import time

import pytest

from pbem.rules.computer import Budget, Level, computer_move
from pbem.rules.deal import deal_game
from pbem.rules.game import Game
from pbem.rules.knowledge import game_from_view, unknown_clans
from pbem.rules.search import sample_clans, search_move
from pbem.rules.tables import CLANS
from pbem.rules.views import player_view
from tests.support.rules import random_moves

NAMES = ("ann", "bob", "cid", "dee")
#: Small enough for many decisions in a test, and not time-boxed: the same
#: seed must give the same decision on any machine.
SMALL = Budget(playouts=48, seconds=None)


def position(seed: int, players: int, plies: int) -> Game:
    """A dealt game after ``plies`` random moves (fewer if it ends first)."""
    rng = random.Random(seed)
    return random_moves(deal_game(NAMES[:players], rng).game(), rng, plies)


@pytest.mark.parametrize("level", list(Level))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_level_plays_a_whole_legal_game(level: Level, players: int) -> None:
    rng = random.Random(players)
    game = deal_game(NAMES[:players], rng).game()
    while not game.is_over():
        view = player_view(game, game.turn)
        move, order = computer_move(view, level, rng, SMALL)
        assert move in set(game.legal_moves())
        if order is not None:
            assert sorted(order) == sorted(game.founding(move))
        game.push(move, order)
    assert game.outcome() is not None


def test_a_view_rebuilds_the_game_it_shows() -> None:
    game = position(11, 3, 25)
    seat = game.turn
    assert seat is not None
    seen = game_from_view(player_view(game, seat))
    assert seen.position() == game.position()
    assert seen.villages == game.villages
    assert seen.clan_scores == game.clan_scores and seen.chips == game.chips
    assert seen.turn == game.turn and seen.ply == game.ply and seen.epoch == game.epoch
    assert sorted(map(str, seen.legal_moves())) == sorted(map(str, game.legal_moves()))
    # Only its own clan: the others' are unknown to it.
    assert [c for i, c in enumerate(seen.clans) if i != seat] == [None, None]
    assert seen.clans[seat] == game.clans[seat]
    # Played on from the rebuilt game, the same moves score the same.
    for move in itertools.islice(game.legal_moves(), 5):
        a, b = game.copy(), seen.copy()
        a.push(move)
        b.push(move)
        assert a.clan_scores == b.clan_scores and a.position() == b.position()


def test_sampled_clans_are_distinct_and_never_the_viewers() -> None:
    game = position(3, 4, 10)
    view = player_view(game, 2)
    rng = random.Random(0)
    seen = set()
    for _ in range(200):
        clans = sample_clans(view, rng)
        assert clans[2] == game.clans[2]
        assert len(set(clans)) == 4 and None not in clans
        seen.update(c for i, c in enumerate(clans) if i != 2)
    assert seen == set(unknown_clans(view)) == set(CLANS) - {game.clans[2]}


@pytest.mark.parametrize("level", list(Level))
def test_no_decision_depends_on_the_other_players_clans(level: Level) -> None:
    """The honesty test: for a fixed seed, every assignment of the others'
    clans gives the same decision (the computer never sees them)."""
    checked = 0
    for seed in range(6):
        game = position(seed, 3, 6 * seed)
        seat = game.turn
        if seat is None:
            continue
        own = game.clans[seat]
        decisions = set()
        for others in itertools.permutations([c for c in CLANS if c != own], 2):
            drawn = iter(others)
            game.clans = tuple(own if i == seat else next(drawn) for i in range(3))
            decisions.add(computer_move(player_view(game, seat), level, random.Random(seed), SMALL))
        assert len(decisions) == 1, (seed, decisions)
        checked += 1
    assert checked >= 5


def test_what_a_computer_decides_changes_with_its_own_clan() -> None:
    """The honesty test's counterpart: its own clan is read (so the test above
    would catch a decision that ignored the view altogether)."""
    game = position(4, 2, 8)
    seat = game.turn
    assert seat is not None
    choices = set()
    for clan in CLANS:
        game.clans = tuple(clan if i == seat else None for i in range(2))
        choices.add(computer_move(player_view(game, seat), Level.MEDIUM, random.Random(1), SMALL))
    assert len(choices) > 1


def test_a_computer_refuses_to_move_out_of_turn() -> None:
    game = position(5, 3, 4)
    other = (game.turn + 1) % 3 if game.turn is not None else 0
    with pytest.raises(ValueError, match="not seat"):
        computer_move(player_view(game, other), Level.EASY, random.Random(1))


def test_the_search_is_time_boxed() -> None:
    game = position(6, 4, 0)
    view = player_view(game, game.turn)
    # A huge playout budget, but a box of a twentieth of a second: it stops.
    start = time.perf_counter()
    move, _ = search_move(view, random.Random(2), Budget(playouts=10**9, seconds=0.05))
    assert time.perf_counter() - start < 5
    assert move in set(game.legal_moves())


def test_easy_plays_worse_than_medium() -> None:
    """Easy is beatable: the autopilot wins most two-player games against it."""
    rng = random.Random(4)
    wins = 0
    for n in range(30):
        game = deal_game(("medium", "easy"), rng).game()
        while not game.is_over():
            view = player_view(game, game.turn)
            level = Level.MEDIUM if game.turn == 0 else Level.EASY
            game.push(*computer_move(view, level, rng))
        finals = game.final_scores()
        assert finals is not None
        wins += finals[0] > finals[1]
    assert wins >= 20
