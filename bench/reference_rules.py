"""A plain reference implementation of the Clans rules, for the rules benchmark.

Deliberately straightforward: territories are dict keys, huts are ``{clan: count}`` dicts,
legal moves are found by looping over every occupied territory and its neighbours on every
turn, and a random playout picks with ``rng.choice`` from that list.  It shares nothing with
``pbem.rules`` but the board's data (ids, terrains, neighbours) and the set-up a deal draws,
so agreeing with ``pbem.rules`` on whole games is a real check of both.

The rules, as ``pbem`` plays them:

* a move takes every hut of a territory onto an adjacent occupied territory; a territory of
  7 or more huts may only move onto one at least as big;
* after a move, each occupied territory among the source's neighbours and the target that
  has no occupied neighbour left becomes a village, in ascending id unless the mover gives
  an order;
* a village holding all five clans loses every clan that has exactly one hut there (strife);
  every clan still present scores its hut count, plus the epoch's bonus on a favourable
  terrain, or nothing on a hostile one; the founder takes a chip;
* the game ends with the 12th village (villages past it found nothing) or when no two
  occupied territories are adjacent; a seat's final score is its clan's score plus chips.
"""

from __future__ import annotations

import random
from typing import Any, Iterable, Sequence

CLANS = ("red", "yellow", "green", "blue", "black")
BIG = 7
CHIPS = 12
# (villages in the epoch, favourable terrains, bonus, hostile terrains), epochs I..V.
EPOCH_CHART = [
    (4, ["forest"], 1, ["mountain"]),
    (3, ["mountain"], 2, ["grassland"]),
    (2, ["steppe"], 3, ["forest"]),
    (2, ["grassland"], 4, ["steppe"]),
    (1, ["mountain", "forest", "steppe", "grassland"], 5, []),
]


def epoch_of(number: int) -> int:
    """The epoch (1-5) of the village with this founding number."""
    total = 0
    for epoch, (villages, _fav, _bonus, _hostile) in enumerate(EPOCH_CHART, 1):
        total += villages
        if number <= total:
            return epoch
    return len(EPOCH_CHART)


def value_of(huts: int, terrain: str, epoch: int) -> int:
    _villages, favourable, bonus, hostile = EPOCH_CHART[epoch - 1]
    if terrain in hostile:
        return 0
    if terrain in favourable:
        return huts + bonus
    return huts


class RefBoard:
    def __init__(self, data: dict[str, Any]) -> None:
        self.terrain: dict[int, str] = {}
        self.neighbours: dict[int, list[int]] = {}
        for t in data["territories"]:
            self.terrain[t["id"]] = t["terrain"]
            self.neighbours[t["id"]] = sorted(t["neighbours"])

    @classmethod
    def classic(cls) -> "RefBoard":
        from pbem.rules import classic_board

        data = classic_board().data
        assert data is not None
        return cls(data)


class RefGame:
    """A game: ``huts`` maps each occupied territory to ``{clan: huts}``."""

    def __init__(self, board: RefBoard, players: Sequence[str], setup: dict[int, list[str]],
                 clans: Sequence[str], first: int) -> None:
        self.board = board
        self.players = list(players)
        self.clans = list(clans)
        self.first = first
        self.huts: dict[int, dict[str, int]] = {}
        for tid, hut_list in setup.items():
            for clan in hut_list:
                self.huts.setdefault(tid, {})
                self.huts[tid][clan] = self.huts[tid].get(clan, 0) + 1
        self.villages: list[dict[str, Any]] = []
        self.scores = {c: 0 for c in CLANS}
        self.chips = [0 for _ in players]
        self.ply = 0
        self.end: str | None = None if self.any_move_left() else "no-legal-move"

    def copy(self) -> "RefGame":
        other = RefGame.__new__(RefGame)
        other.board, other.players, other.clans, other.first = self.board, self.players, self.clans, self.first
        other.huts = {tid: dict(h) for tid, h in self.huts.items()}
        other.villages = list(self.villages)
        other.scores = dict(self.scores)
        other.chips = list(self.chips)
        other.ply = self.ply
        other.end = self.end
        return other

    def size(self, tid: int) -> int:
        return sum(self.huts[tid].values())

    def turn(self) -> int | None:
        return None if self.end else (self.first + self.ply) % len(self.players)

    def any_move_left(self) -> bool:
        for tid in self.huts:
            for n in self.board.neighbours[tid]:
                if n in self.huts:
                    return True
        return False

    def legal_moves(self) -> list[tuple[int, int]]:
        if self.end:
            return []
        out = []
        for s in sorted(self.huts):
            size = self.size(s)
            for t in self.board.neighbours[s]:
                if t in self.huts and (size < BIG or self.size(t) >= size):
                    out.append((s, t))
        return out

    def founding(self, s: int, t: int) -> list[int]:
        """The villages the move s-t would found, ascending."""
        occupied = set(self.huts) - {s}
        candidates = [n for n in self.board.neighbours[s] if n in occupied]
        if t not in candidates:
            candidates.append(t)
        found = []
        for c in candidates:
            if not any(n in occupied for n in self.board.neighbours[c]):
                found.append(c)
        return sorted(found)

    def play(self, s: int, t: int, order: Iterable[int] | None = None) -> None:
        if (s, t) not in self.legal_moves():
            raise ValueError(f"illegal move {s}-{t} at ply {self.ply}")
        seat = self.turn()
        assert seat is not None
        villages = self.founding(s, t) if order is None else list(order)
        moving = self.huts.pop(s)
        for clan, k in moving.items():
            self.huts[t][clan] = self.huts[t].get(clan, 0) + k
        for v in villages:
            self.found(v, seat)
        self.ply += 1
        if len(self.villages) >= CHIPS:
            self.end = "twelfth-village"
        elif not self.any_move_left():
            self.end = "no-legal-move"

    def found(self, tid: int, seat: int) -> None:
        if len(self.villages) >= CHIPS:
            return
        number = len(self.villages) + 1
        epoch = epoch_of(number)
        before = dict(self.huts[tid])
        removed = {}
        if len(before) == len(CLANS):
            for clan, k in before.items():
                if k == 1:
                    removed[clan] = 1
            for clan in removed:
                del self.huts[tid][clan]
            if not self.huts[tid]:
                del self.huts[tid]
        left = sum(self.huts.get(tid, {}).values())
        points = value_of(left, self.board.terrain[tid], epoch)
        present = sorted(c for c in before if c not in removed)
        for clan in present:
            self.scores[clan] += points
        self.chips[seat] += 1
        self.villages.append({"number": number, "territory": tid, "epoch": epoch, "points": points,
                              "clans": present, "removed": removed})

    def final_scores(self) -> list[int] | None:
        if not self.end:
            return None
        return [self.scores[c] + chips for c, chips in zip(self.clans, self.chips)]

    def summary(self) -> dict[str, Any]:
        """What an agreement check compares (the same shape as :func:`pbem_summary`)."""
        return {
            "ply": self.ply,
            "end": self.end,
            "huts": {tid: dict(h) for tid, h in sorted(self.huts.items())},
            "villages": [(v["number"], v["territory"], v["epoch"], v["points"], tuple(v["clans"]),
                          dict(v["removed"])) for v in self.villages],
            "scores": dict(self.scores),
            "chips": list(self.chips),
            "final_scores": self.final_scores(),
        }


def pbem_summary(game: Any) -> dict[str, Any]:
    """The same summary of a ``pbem.rules.Game``."""
    finals = game.final_scores()
    return {
        "ply": game.ply,
        "end": game.end,
        "huts": {tid: game.huts(tid) for tid in sorted(game.occupied())},
        "villages": [(v.number, v.territory, v.epoch, v.points, tuple(v.clans), dict(v.removed))
                     for v in game.villages],
        "scores": game.scores(),
        "chips": list(game.chips),
        "final_scores": list(finals) if finals is not None else None,
    }


def from_deal(board: RefBoard, deal: Any) -> RefGame:
    """The reference game for a ``pbem.rules.deal.Deal``."""
    return RefGame(board, deal.players, {tid: [clan] for tid, clan in deal.setup}, deal.clans, deal.first)


def play_randomly(game: RefGame, rng: random.Random) -> None:
    """Uniformly random legal moves, default village order, to the end."""
    while not game.end:
        s, t = rng.choice(game.legal_moves())
        game.play(s, t)



#: The refusals of a conformance record that are about the rules (the rest are about the
#: record's form, which the reference does not read).
RULE_REFUSALS = ("bad-order", "empty-source", "empty-target", "game-over", "immovable-group", "not-adjacent",
                 "unknown-territory")


def check_record(case: dict[str, Any]) -> str | None:
    """Replay a conformance case (``tests/conformance_data/*.json``: a ``clans-record/1`` and
    the result or refusal it must give) with the reference; ``None`` if it gives the same
    huts, villages, scores, chips, end and winners (or refuses the same move), else what
    differs.  Cases about the record's form are skipped (``None``)."""
    record, expect = case["record"], case["expect"]
    code = expect.get("error", {}).get("code")
    if code is not None and code not in RULE_REFUSALS:
        return None
    if record["board"] == "classic":
        board = RefBoard.classic()
    else:
        board = RefBoard(record["board"])
    players = record["players"]
    setup = {int(t): [h] if isinstance(h, str) else list(h) for t, h in record["setup"].items()}
    game = RefGame(board, players, setup, [record["clans"][p] for p in players], 0)
    for index, entry in enumerate(record["moves"]):
        text, order = (entry, None) if isinstance(entry, str) else (entry["move"], entry.get("order"))
        source, target = (int(x) for x in text.split("-"))
        legal = (source, target) in game.legal_moves()
        if legal and order is not None and sorted(order) != game.founding(source, target):
            legal = False  # the order must list exactly the villages the move founds
        if not legal:
            if code is not None and expect["error"].get("move_index") == index:
                return None
            return f"{case['name']}: the reference refuses move {index} ({text})"
        game.play(source, target, order)
    if code is not None:
        return f"{case['name']}: the reference accepts every move, expected {code}"
    got = {
        "huts": {str(t): h for t, h in game.huts.items()},
        "villages": [(v["number"], v["territory"], v["epoch"], v["points"], v["clans"], v["removed"])
                     for v in game.villages],
        "clan_scores": game.scores,
        "chips": dict(zip(players, game.chips)),
        "end": game.end,
        "final_scores": dict(zip(players, game.final_scores())) if game.end else None,
    }
    want = {
        "huts": {t: {c: k for c, k in h.items() if k} for t, h in expect["huts"].items()},
        "villages": [(v["number"], v["territory"], v["epoch"], v["points"], v["clans"], v["removed"])
                     for v in expect["villages"]],
        "clan_scores": expect["clan_scores"],
        "chips": expect["chips"],
        "end": expect["end"],
        "final_scores": expect["final_scores"],
    }
    differs = [k for k in want if got[k] != want[k]]
    if game.end:
        finals = dict(zip(players, game.final_scores() or []))
        best = max(finals.values())
        if sorted(p for p, f in finals.items() if f == best) != sorted(expect["winners"]):
            differs.append("winners")
    return f"{case['name']}: {', '.join(differs)} differ" if differs else None


def conformance(directory: Any = None) -> tuple[int, list[str]]:
    """:func:`check_record` over every case in ``tests/conformance_data``: (cases checked,
    disagreements)."""
    import json
    from pathlib import Path

    folder = Path(directory) if directory else Path(__file__).resolve().parents[1] / "tests" / "conformance_data"
    checked, problems = 0, []
    for path in sorted(folder.glob("*.json")):
        case = json.loads(path.read_text())
        code = case["expect"].get("error", {}).get("code")
        if code is not None and code not in RULE_REFUSALS:
            continue
        checked += 1
        problem = check_record(case)
        if problem:
            problems.append(problem)
    return checked, problems


def agreement(seeds: Iterable[int] = (1, 2, 3, 4, 5), players: Sequence[str] = ("ann", "bob", "cid")) -> list[str]:
    """Play a random pbem game per seed, replay its moves here (checking the legal moves and
    the villages founded at every ply) and compare the final results.  Returns the
    disagreements (empty when the two implementations agree)."""
    from pbem.rules.deal import deal_game
    from pbem.rules.playout import random_game

    board = RefBoard.classic()
    problems = []
    for seed in seeds:
        deal = deal_game(players, random.Random(seed))
        ref = from_deal(board, deal)
        played = random_game(random.Random(seed), tuple(players))
        # A fresh pbem game stepped alongside, to compare every ply.
        step = deal.game()
        for p in played.history:
            s, t = p.move.source, p.move.target
            ours = ref.legal_moves()
            theirs = [(m.source, m.target) for m in step.legal_moves()]
            if ours != theirs:
                problems.append(f"seed {seed} ply {p.ply}: legal moves differ")
                break
            if tuple(ref.founding(s, t)) != step.founding(p.move):
                problems.append(f"seed {seed} ply {p.ply}: villages founded by {p.move} differ")
                break
            step.push(p.move, list(p.order) if p.explicit_order else None)
            ref.play(s, t, list(p.order) if p.explicit_order else None)
        else:
            if ref.summary() != pbem_summary(played):
                problems.append(f"seed {seed}: final results differ: {ref.summary()} != {pbem_summary(played)}")
    return problems
