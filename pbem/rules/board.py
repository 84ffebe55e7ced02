"""The map: territories, terrains and adjacency, loaded from data and validated.

>>> b = classic_board()
>>> len(b), b.terrain(1), sorted(b.neighbours(1))
(60, 'grassland', [2, 10, 16])
>>> Board.from_data({"territories": [{"id": 1, "terrain": "forest", "neighbours": [2]},
...                                  {"id": 2, "terrain": "forest", "neighbours": []}]})
Traceback (most recent call last):
...
pbem.rules.errors.InvalidBoard: board: territory 1 lists 2 as a neighbour but 2 does not list 1
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any, Iterator

from .errors import InvalidBoard
from .move import Move
from .tables import TERRAINS

# Ids are compared as Python ints; this bound keeps absurd JSON numbers out.
MAX_TERRITORY_ID = 10**9


@dataclass(frozen=True, eq=False)
class Board:
    """An immutable map.  Territories are addressed by their id on the outside and
    by a dense index (0..n-1) inside the engine, where adjacency is a bit mask."""

    name: str
    ids: tuple[int, ...]
    terrains: tuple[str, ...]
    regions: tuple[int | None, ...]
    neighbour_masks: tuple[int, ...]
    index: dict[int, int] = field(repr=False)
    #: The source data (outlines, labels, lakes, rivers) for drawing, or ``None``.
    data: dict[str, Any] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, territory: object) -> bool:
        return territory in self.index

    def __iter__(self) -> Iterator[int]:
        return iter(self.ids)

    def terrain(self, territory: int) -> str:
        return self.terrains[self.index[territory]]

    def region(self, territory: int) -> int | None:
        return self.regions[self.index[territory]]

    def neighbours(self, territory: int) -> frozenset[int]:
        return frozenset(self.ids_of(self.neighbour_masks[self.index[territory]]))

    def adjacent(self, a: int, b: int) -> bool:
        ia, ib = self.index.get(a), self.index.get(b)
        if ia is None or ib is None:
            return False
        return bool(self.neighbour_masks[ia] >> ib & 1)

    def ids_of(self, mask: int) -> list[int]:
        """The territory ids whose bits are set in ``mask``, in index order."""
        out = []
        while mask:
            low = mask & -mask
            out.append(self.ids[low.bit_length() - 1])
            mask ^= low
        return out

    # -- tables for the engine, derived once per board (the board is immutable) --

    @cached_property
    def edges(self) -> tuple[tuple[int, int], ...]:
        """Every pair of adjacent territories once, as indices ``(a, b)`` with ``a < b``;
        the engine numbers edges by their place here."""
        out = []
        for a, mask in enumerate(self.neighbour_masks):
            above = mask >> (a + 1) << (a + 1)
            while above:
                low = above & -above
                out.append((a, low.bit_length() - 1))
                above ^= low
        return tuple(out)

    @cached_property
    def arcs(self) -> tuple[tuple[int, int], ...]:
        """Both directions of every edge: arc ``2e`` is edge ``e`` as ``(a, b)``, arc
        ``2e + 1`` the same edge as ``(b, a)``."""
        return tuple(arc for a, b in self.edges for arc in ((a, b), (b, a)))

    @cached_property
    def incident(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """For each territory index, its ``(neighbour index, edge number)`` pairs."""
        out: list[list[tuple[int, int]]] = [[] for _ in self.ids]
        for e, (a, b) in enumerate(self.edges):
            out[a].append((b, e))
            out[b].append((a, e))
        return tuple(tuple(pairs) for pairs in out)

    @cached_property
    def moves(self) -> tuple[dict[int, Move], ...]:
        """For each source index, the :class:`Move` to each neighbour by target index:
        made once, and shared by the history of every game on this board."""
        return tuple(
            {t: Move(self.ids[s], self.ids[t]) for t, _ in self.incident[s]}
            for s in range(len(self.ids))
        )

    def regions_map(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for tid, region in zip(self.ids, self.regions):
            if region is not None:
                out.setdefault(region, []).append(tid)
        return out

    def to_data(self) -> dict[str, Any] | str:
        """What a record stores: the name of a shipped board, or the inline data."""
        if self.name == "classic":
            return "classic"
        return {
            "territories": [
                {
                    "id": tid,
                    "terrain": self.terrains[i],
                    "neighbours": self.ids_of(self.neighbour_masks[i]),
                    **({"region": self.regions[i]} if self.regions[i] is not None else {}),
                }
                for i, tid in enumerate(self.ids)
            ]
        }

    @classmethod
    def from_data(cls, data: Any, *, name: str = "inline") -> "Board":
        """Build a board from its JSON form, refusing anything that is not a map."""
        if not isinstance(data, dict) or not isinstance(data.get("territories"), list):
            raise InvalidBoard("board: expected an object with a list of territories")
        raw = data["territories"]
        if not raw:
            raise InvalidBoard("board: no territories")
        ids: list[int] = []
        terrains: list[str] = []
        regions: list[int | None] = []
        neighbour_ids: list[list[int]] = []
        for n, t in enumerate(raw):
            if not isinstance(t, dict):
                raise InvalidBoard(f"board: territory #{n} is not an object")
            tid = t.get("id")
            if not isinstance(tid, int) or not _is_id(tid):
                raise InvalidBoard(f"board: territory #{n} has id {tid!r}, not a positive integer")
            if t.get("terrain") not in TERRAINS:
                raise InvalidBoard(
                    f"board: territory {tid} has terrain {t.get('terrain')!r}, "
                    f"not one of {', '.join(TERRAINS)}"
                )
            nbrs = t.get("neighbours")
            if not isinstance(nbrs, list) or not all(_is_id(x) for x in nbrs):
                raise InvalidBoard(f"board: territory {tid} needs a list of neighbour ids")
            if len(set(nbrs)) != len(nbrs):
                raise InvalidBoard(f"board: territory {tid} lists a neighbour twice")
            if tid in nbrs:
                raise InvalidBoard(f"board: territory {tid} lists itself as a neighbour")
            region = t.get("region")
            ids.append(tid)
            terrains.append(t["terrain"])
            regions.append(region if isinstance(region, int) and not isinstance(region, bool) else None)
            neighbour_ids.append(nbrs)
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise InvalidBoard(f"board: territory id {dup} is used twice")
        if len(ids) > 1000:  # pair codes in the engine hold ids below 1024
            raise InvalidBoard(f"board: {len(ids)} territories is more than a board may have")
        index = {tid: i for i, tid in enumerate(ids)}
        as_sets = {tid: set(nb) for tid, nb in zip(ids, neighbour_ids)}
        for tid, nb in as_sets.items():
            for other in sorted(nb):
                if other not in index:
                    raise InvalidBoard(f"board: territory {tid} lists unknown neighbour {other}")
                if tid not in as_sets[other]:
                    raise InvalidBoard(
                        f"board: territory {tid} lists {other} as a neighbour "
                        f"but {other} does not list {tid}"
                    )
        masks = tuple(sum(1 << index[o] for o in nb) for nb in neighbour_ids)
        return cls(
            name=name,
            ids=tuple(ids),
            terrains=tuple(terrains),
            regions=tuple(regions),
            neighbour_masks=masks,
            index=index,
            data=data if name != "inline" else None,
        )


def _is_id(value: object) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and 0 < value <= MAX_TERRITORY_ID
    )


@lru_cache(maxsize=None)
def classic_board() -> Board:
    """The classic 60-territory map shipped with the package."""
    text = resources.files("pbem.rules").joinpath("boards/classic.json").read_text("utf-8")
    return Board.from_data(json.loads(text), name="classic")


def load_board(spec: Any) -> Board:
    """A board from a record's ``board`` field: ``"classic"`` or inline data."""
    if spec == "classic":
        return classic_board()
    if isinstance(spec, str):
        raise InvalidBoard(f"board: unknown board name {spec!r}")
    return Board.from_data(spec)
