"""The game's fixed data: clans, terrains and the epoch chart.

The epoch chart is kept here and nowhere else (rules.md: "the table is data").

>>> [epoch_of_village(n) for n in range(1, 13)]
[1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5]
>>> village_value(5, "forest", 1), village_value(5, "mountain", 1), village_value(2, "steppe", 5)
(6, 0, 7)
"""

from __future__ import annotations

from dataclasses import dataclass

CLANS: tuple[str, ...] = ("red", "yellow", "green", "blue", "black")
CLAN_INDEX: dict[str, int] = {c: i for i, c in enumerate(CLANS)}
TERRAINS: tuple[str, ...] = ("mountain", "forest", "steppe", "grassland")

#: A territory of 7 or more huts may only move into a group at least as big.
BIG_GROUP = 7
#: The number of village chips: the 12th village ends the game.
VILLAGE_CHIPS = 12
MIN_PLAYERS = 2
MAX_PLAYERS = 4


@dataclass(frozen=True)
class Epoch:
    number: int
    roman: str
    villages: int
    favourable: tuple[str, ...]
    bonus: int
    hostile: tuple[str, ...]


EPOCHS: tuple[Epoch, ...] = (
    Epoch(1, "I", 4, ("forest",), 1, ("mountain",)),
    Epoch(2, "II", 3, ("mountain",), 2, ("grassland",)),
    Epoch(3, "III", 2, ("steppe",), 3, ("forest",)),
    Epoch(4, "IV", 2, ("grassland",), 4, ("steppe",)),
    Epoch(5, "V", 1, TERRAINS, 5, ()),
)

# The epoch of the n-th village, index n-1; derived from the chart above.
_EPOCH_OF_VILLAGE: tuple[int, ...] = tuple(
    e.number for e in EPOCHS for _ in range(e.villages)
)
assert len(_EPOCH_OF_VILLAGE) == VILLAGE_CHIPS


def epoch_of_village(number: int) -> int:
    """The epoch (1-5) that the village with this founding number belongs to."""
    return _EPOCH_OF_VILLAGE[min(max(number, 1), VILLAGE_CHIPS) - 1]


def village_value(huts: int, terrain: str, epoch: int) -> int:
    """What every clan present scores for a village of ``huts`` huts."""
    e = EPOCHS[epoch - 1]
    if terrain in e.hostile:
        return 0
    if terrain in e.favourable:
        return huts + e.bonus
    return huts


# The epoch of the n-th village at index n (1..12), and village_value as a
# table: a village scores factor * huts + bonus, village_value being affine in
# the huts.  Both are read off the chart above, once, for the engine's
# founding of a village (pbem.rules.game).
VILLAGE_EPOCHS: tuple[int, ...] = (0,) + tuple(epoch_of_village(n) for n in range(1, VILLAGE_CHIPS + 1))
VILLAGE_VALUES: dict[tuple[int, str], tuple[int, int]] = {
    (epoch, terrain): (village_value(1, terrain, epoch) - village_value(0, terrain, epoch),
                       village_value(0, terrain, epoch))
    for epoch in range(1, max(VILLAGE_EPOCHS) + 1)
    for terrain in TERRAINS
}
