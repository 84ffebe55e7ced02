"""The search's random finish and the bench's plain playout play the rules' games.

``random_finish`` must end where ``Game._play_randomly`` ends with the same draws
(the search's choices, and so the computer's moves, do not change with it), and
leave the position it starts from as it was; the plain playout (the bench's
floor) must score the games the engine scores when both make the same choices.
"""

from __future__ import annotations

import random

import pytest

from pbem.rules.deal import deal_game
from pbem.rules.game import Game
from pbem.rules.playout import PLAYERS, random_finish
from pbem.rules.plain import plain_playout


@pytest.mark.parametrize("players", [("ann", "bob"), PLAYERS, ("ann", "bob", "cid", "dee")])
def test_a_random_finish_ends_as_the_full_playout_does(players: tuple[str, ...]) -> None:
    for seed in range(150):
        game = deal_game(players, random.Random(seed)).game()
        # Start some finishes from the middle of a game, with villages founded.
        for _ in range(seed % 30):
            move = game.random_move(random.Random(seed * 7))
            if move is None:
                break
            game.push(move)
        before = game.to_json()
        full = game.copy()
        full._play_randomly(random.Random(seed))
        finish = random_finish(game, random.Random(seed))
        assert (finish.clan_scores, finish.chips) == (full.clan_scores, full.chips), seed
        assert finish.moves == full.ply - game.ply, seed
        assert game.to_json() == before, "a random finish changed the position it started from"


def test_a_random_finish_of_a_finished_game_plays_nothing() -> None:
    game = deal_game(PLAYERS, random.Random(3)).game()
    game._play_randomly(random.Random(4))
    finish = random_finish(game, random.Random(5))
    assert (finish.clan_scores, finish.chips, finish.moves) == (game.clan_scores, game.chips, 0)


class _Recorder(random.Random):
    """Records the index each ``choice`` took, so the engine can make the same choices."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.taken: list[int] = []

    def choice(self, seq):  # type: ignore[no-untyped-def,override]
        k = self.randrange(len(seq))
        self.taken.append(k)
        return seq[k]


@pytest.mark.parametrize("seed", range(60))
def test_the_plain_playout_scores_the_games_the_engine_scores(seed: int) -> None:
    deal = deal_game(PLAYERS, random.Random(seed))
    board = deal.board
    neighbours = {tid: sorted(board.neighbours(tid)) for tid in board.ids}
    terrain = {tid: board.terrain(tid) for tid in board.ids}
    rng = _Recorder(seed)
    scores, chips, moves = plain_playout(neighbours, terrain, {t: {c: 1} for t, c in deal.setup}, len(PLAYERS),
                                         deal.first, rng)
    game: Game = deal.game()
    for k in rng.taken:
        legal = sorted(game.legal_moves(), key=lambda m: (m.source, m.target))
        game.push(legal[k])
    assert game.is_over() and game.ply == moves
    engine = {clan: score for clan, score in game.scores().items() if score}
    assert {clan: score for clan, score in scores.items() if score} == engine
    assert chips == game.chips
