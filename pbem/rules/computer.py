"""The computer players: a move for a seat from that seat's player view alone.

A computer player is honest by construction: :func:`computer_move` takes the
view a human in the seat would get (:func:`pbem.rules.views.player_view`) and
a random source, and nothing else; the game it thinks about is rebuilt from
that view (:mod:`.knowledge`).

>>> import random
>>> from pbem.rules.deal import deal_game
>>> from pbem.rules.views import player_view
>>> game = deal_game(["ann", "bob", "cid"], random.Random(2)).game()
>>> view = player_view(game, game.turn)
>>> [game.is_legal(computer_move(view, level, random.Random(3), Budget(playouts=30, seconds=None))[0])
...  for level in Level]
[True, True, True]
"""

from __future__ import annotations

import random
from enum import Enum

from .bots import choose_move, easy_move
from .knowledge import game_from_view
from .move import Move
from .search import Budget, search_move
from .views import PlayerView

__all__ = ["Budget", "Level", "computer_move"]


class Level(str, Enum):
    """How well a computer player plays."""

    #: Legal moves with a mild preference for sensible ones: a beginner beats it.
    EASY = "easy"
    #: The autopilot: the best gain for its clan one move ahead.
    MEDIUM = "medium"
    #: A search over many games played to the end (:mod:`.search`).
    HARD = "hard"


def computer_move(view: PlayerView, level: Level, rng: random.Random, budget: Budget = Budget()
                  ) -> tuple[Move, tuple[int, ...] | None]:
    """The move (and village order, ``None`` for the default) that a computer
    player of ``level`` makes in the seat of ``view``; it must be that seat's turn.
    ``budget`` bounds the ``hard`` player's search."""
    if not view["your_turn"]:
        raise ValueError(f"computer_move: it is not seat {view['seat']}'s turn")
    if level is Level.HARD:
        return search_move(view, rng, budget)
    game = game_from_view(view)
    if level is Level.EASY:
        return easy_move(game, rng)
    return choose_move(game, rng)
