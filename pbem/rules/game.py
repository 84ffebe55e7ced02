"""A game of Clans in progress: the position, the legal moves, and applying them.
What it leaves as it is played (the moves, the villages, the outcome) is
recorded in :mod:`pbem.rules.history`.

>>> from pbem.rules.board import Board
>>> board = Board.from_data({"territories": [
...     {"id": 1, "terrain": "forest", "neighbours": [2]},
...     {"id": 2, "terrain": "steppe", "neighbours": [1, 3]},
...     {"id": 3, "terrain": "steppe", "neighbours": [2]}]})
>>> setup = {1: ["blue", "blue", "blue", "red", "yellow"], 2: ["green"], 3: ["red"]}
>>> game = Game(board, ["ann", "bob"], setup, clans=["red", "blue"])
>>> [str(m) for m in game.legal_moves()]
['1-2', '2-1', '2-3', '3-2']
>>> game.founding(Move(2, 1))
(1, 3)
>>> [(v.territory, v.points, v.clans) for v in game.push(Move(2, 1))]
[(1, 7, ('blue', 'green', 'red', 'yellow')), (3, 1, ('red',))]
>>> game.is_over(), game.end, game.outcome().winners
(True, 'no-legal-move', ('ann',))
"""

from __future__ import annotations

from random import Random
from typing import Any, Iterator, Mapping, Sequence

from . import errors
from .board import Board, load_board
from .history import End, Outcome, Played, Village, new_village
from .move import Move
from .tables import BIG_GROUP, CLAN_INDEX, CLANS, VILLAGE_CHIPS, VILLAGE_EPOCHS, VILLAGE_VALUES, epoch_of_village

_NCLANS = len(CLANS)
_FIELD = 16  # bits per clan in a packed territory
_FIELD_MASK = (1 << _FIELD) - 1
_SHIFT = 10  # a pair code is source << _SHIFT | target (boards have < 1024 territories)
_MASK = (1 << _SHIFT) - 1


def _unpack(packed: int) -> dict[str, int]:
    out = {}
    for c in CLANS:
        if not packed:
            break
        k = packed & _FIELD_MASK
        if k:
            out[c] = k
        packed >>= _FIELD
    return out


class Game:
    """A mutable position with its history, in the manner of ``chess.Board``:
    :meth:`push` applies a move, :meth:`legal_moves` generates them.

    Inside, territories are dense indices and occupancy is a bit mask, so that
    random playouts run fast.
    """

    def __init__(
        self,
        board: Board,
        players: Sequence[str],
        setup: Mapping[int, Sequence[str]],
        *,
        clans: Sequence[str | None] | None = None,
        first: int = 0,
    ) -> None:
        self.board = board
        self.players: tuple[str, ...] = tuple(players)
        self.clans: tuple[str | None, ...] = (
            tuple(clans) if clans is not None else (None,) * len(self.players)
        )
        self.first = first
        self.setup: dict[int, tuple[str, ...]] = {}
        position: dict[int, dict[str, int]] = {}
        for tid, huts in setup.items():
            if tid not in board.index:
                raise errors.InvalidRecord(f"set-up: territory {tid} is not on the board")
            for clan in huts:
                if clan not in CLAN_INDEX:
                    raise errors.InvalidRecord(f"set-up: {clan!r} on {tid} is not a clan")
            if huts:
                self.setup[tid] = tuple(huts)
                position[tid] = {c: list(huts).count(c) for c in CLANS if c in huts}
        self._load_position(position)
        lonely = self._occ & ~self._live
        if lonely:
            raise errors.InvalidRecord(
                f"set-up: territory {board.ids_of(lonely)[0]} is occupied but has no occupied neighbour"
            )
        self.villages: list[Village] = []
        self.clan_scores = [0] * _NCLANS
        self.chips = [0] * len(self.players)
        self.history: list[Played] = []
        self.end: End | None = None if self._live else "no-legal-move"

    def _load_position(self, position: Mapping[int, Mapping[str, int]]) -> None:
        """Set the engine's arrays from ``{territory: {clan: huts}}``."""
        board = self.board
        n = len(board)
        nbr = board.neighbour_masks
        self._counts = [0] * n
        # Huts by clan packed into one int per territory, a 16-bit field per
        # clan, so that moving a group is a single addition.
        self._packed = [0] * n
        totals = [0] * _NCLANS
        occ = 0
        for tid, by_clan in position.items():
            i = board.index[tid]
            for clan, k in by_clan.items():
                c = CLAN_INDEX[clan]
                totals[c] += k
                self._packed[i] += k << (_FIELD * c)
                self._counts[i] += k
            if self._counts[i]:
                occ |= 1 << i
        if max(totals) >= 1 << _FIELD:
            raise errors.InvalidRecord("set-up: too many huts")
        self._occ = occ
        # The board's tables, held here too so the hot path reads them in one step.
        self._nbr = nbr
        self._incident = board.incident
        self._arcs = board.arcs
        self._moves = board.moves
        # "live": occupied territories with an occupied neighbour.  A legal move
        # exists exactly when this is non-zero (the smaller group can always join
        # the bigger), and the territories a move drops from it become villages.
        # (Occupancy is read from the counts, not the mask: the mask is wider
        # than a machine digit, so each shift of it allocates.)
        counts = self._counts
        live = 0
        for i in range(n):
            if counts[i] and nbr[i] & occ:
                live |= 1 << i
        self._live = live
        # Every edge (numbered as in ``board.edges``) between two occupied
        # territories, with each edge's place in the list in ``_slot``, so that a
        # uniformly random legal move costs O(1) and an edge is dropped in O(1).
        # Undirected edges halve the upkeep of ordered pairs; the direction is
        # drawn with the edge, and the 7-or-more rule is checked when it is read.
        # (Territories only ever empty, so edges are only ever dropped.)
        edges: list[int] = []
        slot = [0] * len(board.edges)
        # Each occupied territory's number of occupied neighbours: a small-int
        # count, so a move finds its villages without a wide mask operation.
        deg = [0] * n
        for e, (a, b) in enumerate(board.edges):
            if counts[a] and counts[b]:
                slot[e] = len(edges)
                edges.append(e)
                deg[a] += 1
                deg[b] += 1
        self._edges, self._slot, self._deg = edges, slot, deg

    # -- reading the position -------------------------------------------------

    @property
    def ply(self) -> int:
        """The number of moves played."""
        return len(self.history)

    @property
    def turn(self) -> int | None:
        """The seat to move, or ``None`` once the game is over."""
        if self.end is not None:
            return None
        return (self.first + len(self.history)) % len(self.players)

    @property
    def epoch(self) -> int:
        """The epoch of the next village; once over, that of the last one (1 if none)."""
        if self.end is not None:
            return epoch_of_village(len(self.villages)) if self.villages else 1
        return epoch_of_village(len(self.villages) + 1)

    def is_over(self) -> bool:
        return self.end is not None

    def huts(self, territory: int) -> dict[str, int]:
        """The huts on a territory by clan (clans with none left out)."""
        return _unpack(self._packed[self.board.index[territory]])

    def count(self, territory: int) -> int:
        return self._counts[self.board.index[territory]]

    def occupied(self) -> list[int]:
        return self.board.ids_of(self._occ)

    def position(self) -> dict[int, dict[str, int]]:
        """Every non-empty territory with its huts by clan, in the board's order.
        (Read straight from the packed huts: every request's view and every
        stored snapshot asks for it.)"""
        ids = self.board.ids
        return {ids[i]: _unpack(p) for i, p in enumerate(self._packed) if p}

    def live_huts(self, clan: int) -> int:
        """The huts of clan number ``clan`` (its index in ``CLANS``) on territories
        that can still move or be joined."""
        total = 0
        live, packed, shift = self._live, self._packed, _FIELD * clan
        while live:
            low = live & -live
            live ^= low
            total += packed[low.bit_length() - 1] >> shift & _FIELD_MASK
        return total

    def scores(self) -> dict[str, int]:
        return dict(zip(CLANS, self.clan_scores))

    # -- moves -----------------------------------------------------------------

    def legal_moves(self) -> Iterator[Move]:
        """Every legal move, by source then target in board order (no move
        depends on whose turn it is).  This is the one source of legal moves."""
        if self.end is not None:
            return
        moves = self._moves
        for code in sorted(self._legal_codes()):
            yield moves[code >> _SHIFT][code & _MASK]

    def legal_moves_with_villages(self) -> list[tuple[Move, tuple[int, ...]]]:
        """Every legal move (in :meth:`legal_moves`' order) with the villages it
        would found: one pass, without checking again moves known to be legal."""
        if self.end is not None:
            return []
        moves, founding = self._moves, self._founding
        return [(moves[code >> _SHIFT][code & _MASK], founding(code >> _SHIFT, code & _MASK))
                for code in sorted(self._legal_codes())]

    def _legal_codes(self) -> list[int]:
        counts, arcs = self._counts, self._arcs
        out = []
        for e in self._edges:
            for s, t in arcs[2 * e], arcs[2 * e + 1]:
                if counts[s] < BIG_GROUP or counts[t] >= counts[s]:
                    out.append(s << _SHIFT | t)
        return out

    def random_move(self, rng: Random) -> Move | None:
        """A uniformly random legal move (``None`` once the game is over)."""
        arc = self._random_arc(rng)
        if arc is None:
            return None
        return self._moves[arc[0]][arc[1]]

    def _random_arc(self, rng: Random) -> tuple[int, int] | None:
        """A uniformly random legal move as ``(source, target)`` indices."""
        edges, counts, arcs = self._edges, self._counts, self._arcs
        if self.end is not None or not edges:
            return None
        uniform = rng.random
        # Draw one of the 2n arcs (edge k >> 1, direction k & 1) uniformly, and
        # reject illegal ones: that keeps the choice uniform over legal moves.
        # Illegal arcs (a big group facing a smaller one) are rare, and one
        # direction of every edge is legal.
        while True:
            k = int(uniform() * 2 * len(edges))
            s, t = arc = arcs[edges[k >> 1] << 1 | k & 1]
            if counts[s] < BIG_GROUP or counts[t] >= counts[s]:
                return arc

    def _play_randomly(self, rng: Random) -> None:
        """Play uniformly random legal moves (default village order) to the end.
        The playout loop: the draw is :meth:`_random_arc`'s, inlined, as this
        runs for every move of every playout."""
        edges, counts, arcs = self._edges, self._counts, self._arcs  # changed in place only
        uniform, apply = rng.random, self._apply
        while self.end is None:
            while True:
                k = int(uniform() * 2 * len(edges))
                s, t = arcs[edges[k >> 1] << 1 | k & 1]
                if counts[s] < BIG_GROUP or counts[t] >= counts[s]:
                    break
            apply(s, t, None, False)

    def is_legal(self, move: Move) -> bool:
        try:
            self.check(move)
        except errors.IllegalMove:
            return False
        return True

    def check(self, move: Move, order: object = None) -> tuple[int, ...]:
        """Refuse ``move`` with the first failing check of ``record.md``'s table,
        or return the villages it would found, in the order they would be taken.
        ``order`` is checked last, whatever it is (a record's or a request's)."""
        text = str(move)
        where = f"at ply {self.ply}"
        if self.end is not None:
            raise errors.GameOver(f"{text}: the game is over ({self.end})", move=text, end=self.end)
        index = self.board.index
        s, t = index.get(move.source), index.get(move.target)
        if s is None or t is None:
            unknown = move.source if s is None else move.target
            raise errors.UnknownTerritory(f"{text}: there is no territory {unknown} on this board", move=text,
                                          territory=unknown)
        counts = self._counts
        if not counts[s]:
            raise errors.EmptySource(f"{text}: territory {move.source} has no huts to move {where}", move=text,
                                     territory=move.source, ply=self.ply)
        if not self.board.neighbour_masks[s] >> t & 1:
            raise errors.NotAdjacent(f"{text}: territory {move.target} does not border {move.source}", move=text,
                                     source=move.source, target=move.target)
        if not counts[t]:
            raise errors.EmptyTarget(f"{text}: territory {move.target} is empty {where}; huts may only join huts",
                                     move=text, territory=move.target, ply=self.ply)
        if counts[s] >= BIG_GROUP and counts[t] < counts[s]:
            raise errors.ImmovableGroup(
                f"{text}: {counts[s]} huts on {move.source} may only move into a group at least as big, "
                f"and {move.target} has {counts[t]}",
                move=text, huts=counts[s], source=move.source, target=move.target, target_huts=counts[t],
            )
        founded = self._founding(s, t)
        if order is None:
            return founded
        if not isinstance(order, (list, tuple)) or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in order
        ):
            raise errors.BadOrder(f"{text}: order must be a list of territory ids, not {order!r:.40}", move=text,
                                  given=f"{order!r:.40}")
        order = tuple(order)
        if sorted(order) != list(founded):
            raise errors.BadOrder(
                f"{text}: the order must list exactly the villages this move founds "
                f"({', '.join(map(str, founded)) or 'none'}), not {list(order)}",
                move=text, founded=founded, order=list(order),
            )
        return order

    def founding(self, move: Move) -> tuple[int, ...]:
        """The villages a legal ``move`` would found, in ascending territory id
        (the default order); raises like :meth:`check` if it is not legal."""
        return self.check(move)

    def _founding(self, s: int, t: int) -> tuple[int, ...]:
        nbr = self.board.neighbour_masks
        occ = self._occ & ~(1 << s)
        cand = (nbr[s] & occ) | (1 << t)
        found = []
        while cand:
            low = cand & -cand
            i = low.bit_length() - 1
            cand ^= low
            if not nbr[i] & occ:
                found.append(self.board.ids[i])
        if len(found) > 1:
            found.sort()
        return tuple(found)

    def push(self, move: Move, order: object = None) -> list[Village]:
        """Play ``move`` for the seat to move; ``order`` is the mover's order of the
        villages it founds (default: ascending territory id).  Returns the
        villages founded, in order."""
        taken = self.check(move, order)
        index = self.board.index
        return self._apply(index[move.source], index[move.target], taken, order is not None)

    def push_text(self, text: str, order: Sequence[int] | None = None, *, strict: bool = True) -> list[Village]:
        return self.push(Move.parse(text, strict=strict), order)

    def _apply(self, s: int, t: int, order: Sequence[int] | None, explicit: bool) -> list[Village]:
        """Play s -> t (indices; legality checked by the caller).  ``order`` lists
        the villages by territory id; ``None`` takes them in ascending id."""
        history = self.history
        seat = (self.first + len(history)) % len(self.players)
        counts, packed = self._counts, self._packed
        counts[t] += counts[s]
        counts[s] = 0
        packed[t] += packed[s]
        packed[s] = 0
        # The source was occupied, and live (the target is its neighbour): it
        # leaves both masks.  (The masks are wider than a machine digit, so each
        # operation on them costs an allocation: the loop below tests occupancy
        # on the counts instead.)
        bit = 1 << s
        occ = self._occ ^ bit
        self._occ = occ
        live = self._live ^ bit
        edges, slot, deg = self._edges, self._slot, self._deg
        # The source's occupied neighbours (the target among them) lose their edge
        # to it; those left with no occupied neighbour are the new villages.
        lonely = 0
        for u, e in self._incident[s]:
            if counts[u]:
                # Drop edge e: the last edge of the list takes its place.
                last = edges.pop()
                if last != e:
                    k = slot[e]
                    edges[k] = last
                    slot[last] = k
                d = deg[u] - 1
                deg[u] = d
                if not d:
                    lonely |= 1 << u
        move = self._moves[s][t]
        if lonely:
            live &= ~lonely
            if order is None:
                if lonely & (lonely - 1):
                    order = sorted(self.board.ids_of(lonely))
                else:  # the usual single village
                    order = (self.board.ids[lonely.bit_length() - 1],)
        self._live = live
        # History entries are built with tuple.__new__, which makes the same
        # Played as Played(...) without NamedTuple's Python-level __new__.
        villages = self.villages
        founded = []
        if not order:
            history.append(tuple.__new__(Played, (len(history), seat, move, (), (), explicit)))
        else:
            index, found = self.board.index, self._found
            before = len(villages)
            for tid in order:
                v = found(index[tid], seat)
                if v is not None:
                    founded.append(v)
            # _found numbers the villages it makes consecutively.
            numbers = tuple(range(before + 1, len(villages) + 1))
            history.append(tuple.__new__(Played, (len(history), seat, move, tuple(order), numbers, explicit)))
        if len(villages) >= VILLAGE_CHIPS:
            self.end = "twelfth-village"
        elif not live:
            self.end = "no-legal-move"
        return founded

    def _found(self, i: int, seat: int) -> Village | None:
        villages = self.villages
        number = len(villages) + 1
        if number > VILLAGE_CHIPS:
            return None  # past the 12th: not a village, scores nothing
        epoch = VILLAGE_EPOCHS[number]
        before = _unpack(self._packed[i])
        removed: dict[str, int] = {}
        if len(before) == _NCLANS:
            removed = {c: 1 for c, k in before.items() if k == 1}
            for c in removed:
                self._packed[i] -= 1 << (_FIELD * CLAN_INDEX[c])
            self._counts[i] -= len(removed)
            if not self._counts[i]:
                self._occ &= ~(1 << i)
            present = tuple(sorted(c for c in before if c not in removed))
        else:
            present = tuple(sorted(before))
        terrain = self.board.terrains[i]
        factor, bonus = VILLAGE_VALUES[epoch, terrain]
        points = factor * self._counts[i] + bonus
        if points:
            scores = self.clan_scores
            for c in present:
                scores[CLAN_INDEX[c]] += points
        self.chips[seat] += 1
        village = new_village(
            number=number,
            territory=self.board.ids[i],
            epoch=epoch,
            founder=seat,
            terrain=terrain,
            huts=before,
            removed=removed,
            clans=present,
            points=points,
        )
        villages.append(village)
        return village

    # -- the end -------------------------------------------------------------------

    def final_scores(self) -> tuple[int, ...] | None:
        """Clan score plus chips for each seat, once over and clans are known."""
        if self.end is None:
            return None
        clans = [c for c in self.clans if c is not None]
        if len(clans) != len(self.clans):
            return None
        return tuple(
            self.clan_scores[CLAN_INDEX[c]] + chips
            for c, chips in zip(clans, self.chips)
        )

    def outcome(self) -> Outcome | None:
        """The final scores and winners (equal highest share the win), or ``None``."""
        finals = self.final_scores()
        if finals is None or self.end is None:
            return None
        best = max(finals)
        return Outcome(
            end=self.end,
            final_scores=finals,
            winners=tuple(p for p, f in zip(self.players, finals) if f == best),
            clans=self.clans,
        )

    # -- copies ---------------------------------------------------------------------

    def copy(self) -> "Game":
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._counts = self._counts[:]
        other._packed = self._packed[:]
        other._edges = self._edges[:]
        other._slot = self._slot[:]
        other._deg = self._deg[:]
        other.villages = self.villages[:]
        other.clan_scores = self.clan_scores[:]
        other.chips = self.chips[:]
        other.history = self.history[:]
        return other

    def __repr__(self) -> str:
        return (f"<Game {self.board.name} players={list(self.players)} ply={self.ply} "
                f"villages={len(self.villages)} end={self.end!r}>")

    # -- serialisation -----------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """A snapshot that :meth:`from_json` restores without replaying the moves."""
        return {
            "format": "clans-state/1",
            "board": self.board.to_data(),
            "players": list(self.players),
            "clans": list(self.clans),
            "first": self.first,
            "setup": {str(k): list(v) for k, v in self.setup.items()},
            **self.moving_json(),
        }

    def moving_json(self, history_from: int = 0) -> dict[str, Any]:
        """The snapshot's parts that moves change, in its order: the huts, the
        villages, the scores, the chips, the history's entries from move
        ``history_from`` on (an entry never changes once played) and the end.
        The parts before them are the same for the whole game."""
        return {
            "huts": {str(tid): h for tid, h in self.position().items()},
            "villages": [_village_json(v) for v in self.villages],
            "clan_scores": list(self.clan_scores),
            "chips": list(self.chips),
            "history": [
                {"seat": p.seat, "move": str(p.move), "order": list(p.order),
                 "villages": list(p.villages), "explicit": p.explicit_order}
                for p in self.history[history_from:]
            ],
            "end": self.end,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Game":
        if data.get("format") != "clans-state/1":
            raise errors.InvalidRecord("state: not a clans-state/1 snapshot")
        board = load_board(data["board"])
        # A snapshot is trusted as written by to_json: no set-up to re-check,
        # and the position is loaded once, straight from the stored huts.
        game = cls.__new__(cls)
        game.board = board
        game.players = tuple(data["players"])
        game.clans = tuple(data["clans"])
        game.first = data["first"]
        game.setup = {int(k): tuple(v) for k, v in data["setup"].items()}
        game._load_position({int(k): v for k, v in data["huts"].items()})
        game.villages = [
            Village(v["number"], v["territory"], v["epoch"], v["founder"], v["terrain"],
                    dict(v["huts"]), dict(v["removed"]), tuple(v["clans"]), v["points"])
            for v in data["villages"]
        ]
        game.clan_scores = list(data["clan_scores"])
        game.chips = list(data["chips"])
        # The history grows with every move and is read on every request: its
        # moves ("12-13", as to_json wrote them) come from the board's table of
        # Move objects, and the entries are built as _apply builds them.
        moves, index = board.moves, board.index
        history = game.history = []
        for i, h in enumerate(data["history"]):
            source, _, target = h["move"].partition("-")
            history.append(tuple.__new__(Played, (
                i, h["seat"], moves[index[int(source)]][index[int(target)]], tuple(h["order"]),
                tuple(h["villages"]), bool(h.get("explicit")))))
        game.end = data["end"]
        return game


def _village_json(v: Village) -> dict[str, Any]:
    return {
        "number": v.number,
        "territory": v.territory,
        "epoch": v.epoch,
        "founder": v.founder,
        "terrain": v.terrain,
        "huts": dict(v.huts),
        "removed": dict(v.removed),
        "clans": list(v.clans),
        "points": v.points,
    }
