"""What a game leaves as it is played: each move (:class:`Played`), each village
founded and what it scored (:class:`Village`), and how the game ended
(``End``, :class:`Outcome`).  Records only: :class:`pbem.rules.game.Game`
makes them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping, NamedTuple

from .move import Move

#: Why a game ended.
End = Literal["twelfth-village", "no-legal-move"]


@dataclass(frozen=True)
class Village:
    """A founded village, as it was valued."""

    number: int
    territory: int
    epoch: int
    founder: int
    terrain: str
    huts: Mapping[str, int]
    removed: Mapping[str, int]
    clans: tuple[str, ...]
    points: int


def new_village(**fields: Any) -> Village:
    """``Village(**fields)``, made without the generated ``__init__``: a frozen
    dataclass sets each field through ``object.__setattr__``, which costs more
    than all the rest of founding a village.  Pass every field."""
    village = object.__new__(Village)
    village.__dict__.update(fields)
    return village


class Played(NamedTuple):
    """One move of the history: who played it, and the order of the villages it
    founded as the mover chose it (``order`` is empty when it founded none)."""

    ply: int
    seat: int
    move: Move
    order: tuple[int, ...]
    villages: tuple[int, ...]
    explicit_order: bool = False


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended."""

    end: str
    final_scores: tuple[int, ...]
    winners: tuple[str, ...]
    clans: tuple[str | None, ...]
