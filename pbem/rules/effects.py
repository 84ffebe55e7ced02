"""What a move would do: for a position as a player sees it and each legal move,
the villages it founds (where, on which terrain, how that terrain stands in the
epoch of each village, strife, the points), the group it makes, and whether a
new epoch begins or the game ends.  The one source of the moves a mail offers.

It reads only a view (the huts on each territory by colour, the villages, how
many were founded): nothing anyone may not see, so no line can tell a clan.

>>> from pbem.rules.board import Board
>>> board = Board.from_data({"territories": [
...     {"id": 1, "terrain": "forest", "neighbours": [2]},
...     {"id": 2, "terrain": "steppe", "neighbours": [1, 3]},
...     {"id": 3, "terrain": "mountain", "neighbours": [2]}]})
>>> view = {"huts": {"1": {"blue": 3, "red": 1}, "2": {"green": 1}, "3": {"red": 1}}, "villages_founded": 0}
>>> for e in move_effects(board, view):
...     print(e.move, e.joins, [(v.territory, v.terrain, v.standing, v.points) for v in e.villages], e.end)
1-2 1 [] None
2-1 4 [(1, 'forest', 'favourable', 6), (3, 'mountain', 'hostile', 0)] no-legal-move
2-3 1 [(1, 'forest', 'favourable', 5), (3, 'mountain', 'hostile', 0)] no-legal-move
3-2 1 [] None
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from . import errors
from .board import Board
from .history import End
from .move import Move
from .tables import BIG_GROUP, CLANS, EPOCHS, VILLAGE_CHIPS, epoch_of_village, village_value

#: How a terrain stands in an epoch.
Standing = Literal["favourable", "hostile", "neutral"]


@dataclass(frozen=True)
class VillageEffect:
    """A village a move would found, valued as it would be."""

    number: int
    territory: int
    terrain: str
    epoch: int
    standing: Standing
    #: The colours strife would remove (each with exactly one hut, all five present).
    strife: tuple[str, ...]
    #: The huts left to value, and the colours scoring ``points`` each.
    huts: int
    clans: tuple[str, ...]
    points: int


@dataclass(frozen=True)
class MoveEffect:
    """What a legal move would do."""

    move: Move
    #: The huts moved, and the huts already on the territory they join.
    moved: int
    joins: int
    #: The villages founded, in the default order (ascending territory id); a
    #: move founding several lets the mover choose their order.
    villages: tuple[VillageEffect, ...]
    #: The epoch the next village would belong to, if this move ends the current
    #: one and the game goes on.
    new_epoch: int | None
    #: How the game would end with this move, or ``None``.
    end: End | None


def standing(terrain: str, epoch: int) -> Standing:
    """How ``terrain`` stands in ``epoch``: favourable, hostile or neither."""
    e = EPOCHS[epoch - 1]
    if terrain in e.favourable:
        return "favourable"
    if terrain in e.hostile:
        return "hostile"
    return "neutral"


def _position(board: Board, view: Mapping[str, object]) -> dict[int, dict[str, int]]:
    raw = view.get("huts")
    out: dict[int, dict[str, int]] = {}
    if not isinstance(raw, Mapping):
        return out
    for key, counts in raw.items():
        tid = int(key)
        if tid not in board:
            raise errors.InvalidRecord(f"view: territory {tid} is not on the board")
        if isinstance(counts, Mapping):
            huts = {str(c): int(n) for c, n in counts.items() if c in CLANS and int(n) > 0}
            if huts:
                out[tid] = huts
    return out


def _founded(view: Mapping[str, object]) -> int:
    founded = view.get("villages_founded")
    if isinstance(founded, int) and not isinstance(founded, bool):
        return founded
    villages = view.get("villages")
    return len(villages) if isinstance(villages, list) else 0


def move_effects(board: Board, view: Mapping[str, object]) -> list[MoveEffect]:
    """Every legal move in the position of ``view`` (by source, then target, in
    board order) with what it would do.  Empty once the game is over."""
    position = _position(board, view)
    founded = _founded(view)
    if view.get("finished") or founded >= VILLAGE_CHIPS:
        return []
    occupied = set(position)
    counts = _counts(position)
    nbrs = _neighbours(board)
    out = []
    for source in board.ids:
        if source not in occupied:
            continue
        s = counts[source]
        for target in nbrs[source]:
            if target in occupied and (s < BIG_GROUP or counts[target] >= s):
                out.append(_effect(board, nbrs, position, counts, occupied, founded, source, target))
    return out


@lru_cache(maxsize=8)
def _neighbours(board: Board) -> dict[int, tuple[int, ...]]:
    """Each territory's neighbours in board order."""
    return {tid: tuple(board.ids_of(board.neighbour_masks[i])) for i, tid in enumerate(board.ids)}


def move_effect(board: Board, view: Mapping[str, object], move: Move) -> MoveEffect:
    """What ``move`` would do in the position of ``view``; raises
    :class:`~pbem.rules.errors.IllegalMove` (as the game would) if it is not legal."""
    position = _position(board, view)
    founded = _founded(view)
    if view.get("finished") or founded >= VILLAGE_CHIPS:
        raise errors.GameOver(f"{move}: the game is over", move=str(move), end=str(view.get("end")))
    if move.source not in board or move.target not in board:
        unknown = move.source if move.source not in board else move.target
        raise errors.UnknownTerritory(f"{move}: there is no territory {unknown} on this board", move=str(move),
                                      territory=unknown)
    if move.source not in position:
        raise errors.EmptySource(f"{move}: territory {move.source} has no huts", move=str(move),
                                 territory=move.source, ply=-1)
    if not board.adjacent(move.source, move.target):
        raise errors.NotAdjacent(f"{move}: territory {move.target} does not border {move.source}",
                                 move=str(move), source=move.source, target=move.target)
    if move.target not in position:
        raise errors.EmptyTarget(f"{move}: territory {move.target} is empty", move=str(move),
                                 territory=move.target, ply=-1)
    if not _legal(position, move.source, move.target):
        s, t = sum(position[move.source].values()), sum(position[move.target].values())
        raise errors.ImmovableGroup(f"{move}: {s} huts may only move into a group at least as big",
                                    move=str(move), huts=s, source=move.source, target=move.target,
                                    target_huts=t)
    return _effect(board, _neighbours(board), position, _counts(position), set(position), founded, move.source,
                   move.target)


def _legal(position: Mapping[int, Mapping[str, int]], source: int, target: int) -> bool:
    s, t = sum(position[source].values()), sum(position[target].values())
    return s < BIG_GROUP or t >= s


def _counts(position: Mapping[int, Mapping[str, int]]) -> dict[int, int]:
    return {tid: sum(huts.values()) for tid, huts in position.items()}


def _effect(board: Board, nbrs: Mapping[int, tuple[int, ...]], position: Mapping[int, Mapping[str, int]],
            counts: Mapping[int, int], occupied: set[int], founded: int, source: int, target: int) -> MoveEffect:
    after = occupied - {source}
    # Only the target and the source's neighbours can be left alone (rules.md).
    lonely = sorted(
        tid for tid in nbrs[source]
        if tid in after and not any(n in after for n in nbrs[tid])
    )
    villages = []
    for k, tid in enumerate(lonely):
        number = founded + k + 1
        if number > VILLAGE_CHIPS:
            break  # past the 12th: not a village
        huts = dict(position[tid])
        if tid == target:
            for clan, n in position[source].items():
                huts[clan] = huts.get(clan, 0) + n
        strife: tuple[str, ...] = ()
        if len(huts) == len(CLANS):
            strife = tuple(c for c in CLANS if huts.get(c) == 1)
        kept = {c: n for c, n in huts.items() if c not in strife}
        epoch = epoch_of_village(number)
        terrain = board.terrain(tid)
        villages.append(VillageEffect(
            number=number, territory=tid, terrain=terrain, epoch=epoch, standing=standing(terrain, epoch),
            strife=strife, huts=sum(kept.values()), clans=tuple(c for c in CLANS if c in kept),
            points=village_value(sum(kept.values()), terrain, epoch)))
    total = founded + len(villages)
    end: End | None = None
    if total >= VILLAGE_CHIPS:
        end = "twelfth-village"
    elif not any(any(n in after for n in nbrs[tid]) for tid in after):
        end = "no-legal-move"
    new_epoch = None
    if end is None and villages and epoch_of_village(total + 1) > epoch_of_village(founded + 1):
        new_epoch = epoch_of_village(total + 1)
    return MoveEffect(move=board.moves[board.index[source]][board.index[target]], moved=counts[source],
                      joins=counts[target], villages=tuple(villages), new_epoch=new_epoch, end=end)
