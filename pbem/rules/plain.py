"""The plainest random playout we can write: the floor ``pbem bench rules`` and
``make bench`` measure the engine's playouts against.

It is what anyone would write first, and nothing slower: territories are dict
keys, huts are ``{clan: count}`` dicts, the legal moves are listed afresh by
looping over every occupied territory and its neighbours, the move is drawn with
``rng.choice``, and only the scores are kept (as the search keeps only them).  It
shares nothing with :class:`pbem.rules.game.Game` but the board's data, and
``tests/rules/test_plain.py`` checks that both play the same games to the same
scores.
"""

from __future__ import annotations

import random
from typing import Mapping, Sequence

BIG = 7
LAST_VILLAGE = 12
#: Per village number 1-12: (its epoch's favourable terrains, bonus, hostile terrains).
_EPOCHS = [
    (("forest",), 1, ("mountain",)),
    (("mountain",), 2, ("grassland",)),
    (("steppe",), 3, ("forest",)),
    (("grassland",), 4, ("steppe",)),
    (("mountain", "forest", "steppe", "grassland"), 5, ()),
]
_EPOCH_OF_VILLAGE = [0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4]


def plain_playout(neighbours: Mapping[int, Sequence[int]], terrain: Mapping[int, str],
                  setup: Mapping[int, Mapping[str, int]], players: int, to_move: int,
                  rng: random.Random) -> tuple[dict[str, int], list[int], int]:
    """Play uniformly random legal moves from ``setup`` (no village founded yet)
    to the end: each clan's score, each seat's chips, and the number of moves."""
    huts = {tid: dict(by_clan) for tid, by_clan in setup.items()}
    scores: dict[str, int] = {}
    chips = [0] * players
    seat, villages, moves = to_move, 0, 0
    while villages < LAST_VILLAGE:
        legal = []
        for source in sorted(huts):
            size = sum(huts[source].values())
            for target in neighbours[source]:
                if target in huts and (size < BIG or sum(huts[target].values()) >= size):
                    legal.append((source, target))
        if not legal:
            break
        source, target = rng.choice(legal)
        moving = huts.pop(source)
        for clan, count in moving.items():
            huts[target][clan] = huts[target].get(clan, 0) + count
        moves += 1
        around = [n for n in neighbours[source] if n in huts]
        for tid in sorted(around):
            if villages == LAST_VILLAGE or any(n in huts for n in neighbours[tid]):
                continue
            villages += 1
            village = huts[tid]
            if len(village) == 5:  # strife: a clan alone in a village of all five loses its hut
                for clan in [c for c, count in village.items() if count == 1]:
                    del village[clan]
                if not village:
                    del huts[tid]
            favourable, bonus, hostile = _EPOCHS[_EPOCH_OF_VILLAGE[villages - 1]]
            size = sum(village.values())
            points = 0 if terrain[tid] in hostile else size + bonus if terrain[tid] in favourable else size
            for clan in village:
                scores[clan] = scores.get(clan, 0) + points
            chips[seat] += 1
        seat = (seat + 1) % players
    return scores, chips, moves
