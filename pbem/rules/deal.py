"""Setting a game up: huts by region, secret clans, the first player.

>>> import random
>>> deal = deal_game(["ann", "bob", "cid"], random.Random(7))
>>> game = deal.game()
>>> len(game.occupied()), sorted(c for c in game.clans) == sorted(deal.clans)
(60, True)
>>> deal_game(["ann", "bob", "cid"], random.Random(7)) == deal
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

from .board import Board, classic_board
from .errors import InvalidRecord
from .game import Game
from .tables import CLANS, MAX_PLAYERS, MIN_PLAYERS


@dataclass(frozen=True)
class Deal:
    """Everything drawn at the start of a game."""

    board: Board
    players: tuple[str, ...]
    setup: tuple[tuple[int, str], ...]
    clans: tuple[str, ...]
    first: int

    def game(self) -> Game:
        return Game(self.board, self.players, {t: [c] for t, c in self.setup},
                    clans=self.clans, first=self.first)


def deal_huts(board: Board, rng: random.Random) -> dict[int, str]:
    """One hut per territory: every region gets one hut of each clan, shuffled."""
    regions = board.regions_map()
    if not regions or any(len(ts) != len(CLANS) for ts in regions.values()) or \
            sum(len(ts) for ts in regions.values()) != len(board):
        raise InvalidRecord(f"board {board.name}: dealing needs regions of {len(CLANS)} territories each")
    out: dict[int, str] = {}
    for region in sorted(regions):
        colours = list(CLANS)
        rng.shuffle(colours)
        out.update(zip(sorted(regions[region]), colours))
    return out


def deal_game(players: Sequence[str], rng: random.Random, board: Board | None = None,
              *, secret: random.Random | None = None) -> Deal:
    """Deal huts, secret clans and the first player; deterministic for a seeded
    ``rng``.  The clans come from ``secret`` when given: a service passes
    ``random.SystemRandom()``, so that the public set-up (and any seed that
    reproduces it) says nothing about them.

    >>> public = random.Random(7)
    >>> a = deal_game(["ann", "bob"], random.Random(7), secret=random.SystemRandom())
    >>> a.setup == deal_game(["ann", "bob"], random.Random(7)).setup
    True
    """
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise InvalidRecord(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}")
    board = board or classic_board()
    huts = deal_huts(board, rng)
    clans = tuple((secret or rng).sample(CLANS, len(players)))
    first = rng.randrange(len(players))
    return Deal(board, tuple(players), tuple(sorted(huts.items())), clans, first)
