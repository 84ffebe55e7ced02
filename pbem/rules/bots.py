"""The autopilot: a seeded greedy player that knows only its own clan.

It moves for absent players at deadlines.  For each legal move it plays the
move on a copy and weighs what its clan (and its chips) gain against what
the other clans gain: it does not know which of them are players, so it
counts each rival clan at its expected weight.

>>> import random
>>> from pbem.rules.deal import deal_game
>>> game = deal_game(["ann", "bob"], random.Random(5)).game()
>>> move, order = choose_move(game, random.Random(1))
>>> game.is_legal(move)
True
"""

from __future__ import annotations

import itertools
import random
from typing import Sequence

from .game import Game
from .move import Move
from .tables import CLAN_INDEX, CLANS


def choose_move(game: Game, rng: random.Random) -> tuple[Move, tuple[int, ...] | None]:
    """The autopilot's move for the seat to move, and its village order (or
    ``None`` for the default).  Raises ``ValueError`` if the game is over."""
    seat = game.turn
    if seat is None:
        raise ValueError("choose_move: the game is over; there is no move to choose")
    clan = game.clans[seat]
    if clan is None:
        raise ValueError(f"choose_move: seat {seat} has no clan to play for")
    mine = CLAN_INDEX[clan]
    # Of the other clans, this many belong to players; each is a rival with that chance.
    rival_weight = (len(game.players) - 1) / (len(CLANS) - 1)
    best: list[tuple[Move, tuple[int, ...] | None]] = []
    best_score = float("-inf")
    for move, founded in game.legal_moves_with_villages():
        orders: Sequence[tuple[int, ...] | None] = [None]
        if len(founded) > 1:
            orders = list(itertools.permutations(founded)) if len(founded) <= 4 else [None]
        for order in orders:
            score = _score(game, move, order, seat, mine, rival_weight)
            if score > best_score + 1e-9:
                best, best_score = [(move, order)], score
            elif abs(score - best_score) <= 1e-9:
                best.append((move, order))
    if not best:
        raise ValueError("choose_move: no legal move")
    return best[int(rng.random() * len(best))]


def _score(game: Game, move: Move, order: tuple[int, ...] | None, seat: int,
           mine: int, rival_weight: float) -> float:
    before = game.clan_scores[:]
    after = game.copy()
    after.push(move, order)
    gains = [a - b for a, b in zip(after.clan_scores, before)]
    chips = after.chips[seat] - game.chips[seat]
    rivals = sum(g for k, g in enumerate(gains) if k != mine)
    score = gains[mine] + chips - rival_weight * rivals
    # Keep our huts in play: a group of ours pushed into a lonely corner with
    # nothing to score is a wasted clan.
    score += 0.01 * after.live_huts(mine)
    return score


def random_move(game: Game, rng: random.Random) -> tuple[Move, None]:
    """A uniformly random legal move: the baseline the autopilot is measured against."""
    move = game.random_move(rng)
    if move is None:
        raise ValueError("random_move: the game is over")
    return move, None
