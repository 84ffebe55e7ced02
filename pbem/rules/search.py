"""The ``hard`` computer player: determinized flat Monte Carlo over fast playouts.

It knows what its player view shows and nothing more (:mod:`.knowledge`).  For
each of the autopilot's best few moves it plays many games to the end, each
time from the same position with the other players' clans drawn afresh
(:func:`sample_clans`, weighted by what their moves so far suggest), and keeps
the move whose games it won by most.  Every candidate meets the same draws
(common random numbers), so that the comparison is between moves, not luck.

>>> import random
>>> from pbem.rules.deal import deal_game
>>> from pbem.rules.views import player_view
>>> game = deal_game(["ann", "bob"], random.Random(5)).game()
>>> move, order = search_move(player_view(game, game.turn), random.Random(1), Budget(playouts=40, seconds=None))
>>> game.is_legal(move)
True
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Sequence

from .bots import ranked_moves
from .knowledge import game_from_view, unknown_clans
from .move import Move
from .playout import Finish, random_finish
from .tables import CLAN_INDEX
from .views import PlayerView


@dataclass(frozen=True)
class Budget:
    """How much a decision may cost: at most ``playouts`` games to the end, and
    at most ``seconds`` of wall time (``None``: no time box, so that the same
    seed gives the same move on any machine)."""

    playouts: int = 2400
    seconds: float | None = 0.8


#: How many of the autopilot's best moves are searched.
CANDIDATES = 8


def sample_clans(view: PlayerView, rng: random.Random) -> tuple[str | None, ...]:
    """One guess of every seat's clan: the viewer's own, and for the others
    distinct clans drawn from those the viewer cannot rule out."""
    seat = view["seat"]
    n = len(view["players"])
    drawn = iter(rng.sample(unknown_clans(view), n - 1))
    return tuple(view["clan"] if i == seat else next(drawn) for i in range(n))


def search_move(view: PlayerView, rng: random.Random, budget: Budget = Budget()
                ) -> tuple[Move, tuple[int, ...] | None]:
    """The search player's move for the seat of ``view`` (it must be its turn),
    and its village order (``None`` for the default)."""
    if not view["your_turn"]:
        raise ValueError(f"search_move: it is not seat {view['seat']}'s turn")
    root = game_from_view(view)
    ranked = ranked_moves(root)
    if not ranked:
        raise ValueError("search_move: no legal move")
    candidates = ranked[:CANDIDATES]
    if len(candidates) == 1:
        return candidates[0][1], candidates[0][2]
    seat = view["seat"]
    totals = [0.0] * len(candidates)
    deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
    played = 0
    # Each candidate's position after its move, made once: a random finish
    # leaves the position it starts from as it was.
    after = []
    for _, move, order in candidates:
        game = root.copy()
        game.push(move, order)
        after.append(game)
    while played + len(candidates) <= budget.playouts:
        clans = sample_clans(view, rng)
        seed = rng.getrandbits(64)
        for k, game in enumerate(after):
            totals[k] += _margin(random_finish(game, random.Random(seed)), clans, seat)
        played += len(candidates)
        if deadline is not None and time.perf_counter() >= deadline:
            break
    best = max(range(len(candidates)), key=lambda k: (totals[k], -k))
    return candidates[best][1], candidates[best][2]


def _margin(finish: Finish, clans: Sequence[str | None], seat: int) -> float:
    """How far the seat's final score is above the best of the others'."""
    scores = finish.clan_scores
    finals = [scores[CLAN_INDEX[c]] + chips for c, chips in zip(clans, finish.chips) if c is not None]
    mine = finals[seat]
    others = max(f for i, f in enumerate(finals) if i != seat)
    return mine - others
