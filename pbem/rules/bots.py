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
    ranked = ranked_moves(game)
    if not ranked:
        raise ValueError("choose_move: no legal move")
    top = ranked[0][0]
    best = [(move, order) for score, move, order in ranked if score >= top - 1e-9]
    return best[int(rng.random() * len(best))]


def ranked_moves(game: Game) -> list[tuple[float, Move, tuple[int, ...] | None]]:
    """Every legal move of the seat to move with its best village order, as the
    autopilot weighs it, best first (equal scores in the order of
    :meth:`Game.legal_moves`).  Only the mover's own clan is read."""
    seat = game.turn
    if seat is None:
        raise ValueError("ranked_moves: the game is over; there is no move to choose")
    clan = game.clans[seat]
    if clan is None:
        raise ValueError(f"ranked_moves: seat {seat} has no clan to play for")
    mine = CLAN_INDEX[clan]
    # Of the other clans, this many belong to players; each is a rival with that chance.
    rival_weight = (len(game.players) - 1) / (len(CLANS) - 1)
    ranked: list[tuple[float, Move, tuple[int, ...] | None]] = []
    for move, founded in game.legal_moves_with_villages():
        orders: Sequence[tuple[int, ...] | None] = [None]
        if len(founded) > 1:
            orders = list(itertools.permutations(founded)) if len(founded) <= 4 else [None]
        best: tuple[float, Move, tuple[int, ...] | None] | None = None
        for order in orders:
            score = _score(game, move, order, seat, mine, rival_weight)
            if best is None or score > best[0] + 1e-9:
                best = (score, move, order)
        assert best is not None  # every move has an order
        ranked.append(best)
    ranked.sort(key=lambda entry: -entry[0])
    return ranked


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


#: The easy player picks among this many of the autopilot's best moves when it
#: does not simply play at random.
EASY_TOP = 5


def easy_move(game: Game, rng: random.Random) -> tuple[Move, tuple[int, ...] | None]:
    """A beginner's move: half the time any legal move, otherwise one of the
    autopilot's few best (so it founds the odd village, and blunders often)."""
    if rng.random() < 0.5:
        return random_move(game, rng)
    ranked = ranked_moves(game)
    if not ranked:
        raise ValueError("easy_move: no legal move")
    _, move, order = ranked[int(rng.random() * min(EASY_TOP, len(ranked)))]
    return move, order


def random_move(game: Game, rng: random.Random) -> tuple[Move, None]:
    """A uniformly random legal move: the baseline the autopilot is measured against."""
    move = game.random_move(rng)
    if move is None:
        raise ValueError("random_move: the game is over")
    return move, None
