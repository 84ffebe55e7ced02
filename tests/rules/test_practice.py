"""Practice from a position, in the rules: the practice record replays to the
original's position, and the re-deal of the others' clans reads the practising
seat's view only (the honesty test, as the computer's)."""

from __future__ import annotations

import itertools
import random

import pytest

from pbem.rules import errors
from pbem.rules.deal import deal_game
from pbem.rules.game import Game
from pbem.rules.practice import practice_record, redeal
from pbem.rules.record import export_record, play_record
from pbem.rules.tables import CLANS
from pbem.rules.views import player_view
from tests.support.rules import random_moves

NAMES = ("ann", "bob", "cid", "dee")


def position(seed: int, players: int, plies: int) -> Game:
    """A dealt game, its first player in seat 0 (as the service seats them), after random moves."""
    rng = random.Random(seed)
    deal = deal_game(NAMES[:players], rng)
    game = Game(deal.board, deal.players, {t: [c] for t, c in deal.setup}, clans=deal.clans)
    return random_moves(game, rng, plies)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_practice_record_replays_to_every_position(players: int) -> None:
    game = position(players, players, 60)
    record = export_record(game)
    others = ["x", "y", "z", "w"][:players]
    for ply in range(0, game.ply, 7):
        practice = play_record(practice_record(record, ply, others, CLANS[:players]))
        original = play_record(dict(record, moves=record["moves"][:ply]))
        assert practice.position() == original.position()
        assert practice.turn == original.turn and practice.chips == original.chips
        assert practice.villages == original.villages  # who founded them is by seat
        assert practice.players == tuple(others) and practice.clans == tuple(CLANS[:players])


def test_a_practice_record_refuses_what_is_not_there() -> None:
    record = export_record(position(1, 3, 4))
    for ply in (-1, 5, True):
        with pytest.raises(errors.InvalidRecord):
            practice_record(record, ply, ["a", "b", "c"], ["red", "blue", "green"])  # type: ignore[arg-type]
    with pytest.raises(errors.InvalidRecord):
        practice_record(record, 2, ["a", "b"], ["red", "blue"])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_redeal_never_depends_on_the_others_clans(players: int) -> None:
    """For one draw, every assignment of the others' real clans gives the same re-deal."""
    for seed in range(4):
        game = position(seed, players, 5 + seed)
        seat = seed % players
        own = game.clans[seat]
        deals = set()
        for others in itertools.permutations([c for c in CLANS if c != own], players - 1):
            drawn = iter(others)
            game.clans = tuple(own if i == seat else next(drawn) for i in range(players))
            deals.add(redeal(player_view(game, seat), random.Random(seed)))
        assert len(deals) == 1, deals
        (dealt,) = deals
        assert dealt[seat] == own and len(set(dealt)) == players


def test_the_redeal_draws_every_clan_but_ones_own() -> None:
    game = position(3, 3, 6)
    view = player_view(game, 0)
    held = {n: set() for n in range(3)}  # type: dict[int, set[str]]
    for seed in range(200):
        for n, clan in enumerate(redeal(view, random.Random(seed))):
            held[n].add(clan)
    assert held[0] == {game.clans[0]}
    assert held[1] == held[2] == set(CLANS) - {game.clans[0]}
