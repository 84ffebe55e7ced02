"""Small builders for the rules tests (and the words tests that need a board):
inline boards, games and records, the refusal codes, the real `pbem` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from pbem.rules.board import Board
from pbem.rules.game import Game

REPO = Path(__file__).resolve().parents[2]

#: Every refusal code of record.md, in the table's order (the order of the checks).
CODES: tuple[str, ...] = (
    "invalid-record",
    "game-over",
    "malformed-move",
    "unknown-territory",
    "empty-source",
    "not-adjacent",
    "empty-target",
    "immovable-group",
    "bad-order",
)

RESULT_KEYS = {
    "format", "huts", "villages", "clan_scores", "chips", "epoch", "next",
    "finished", "end", "final_scores", "winners",
}


def board_data(adjacency: Mapping[int, Iterable[int]],
               terrains: Mapping[int, str] | str = "steppe") -> dict[str, Any]:
    """Inline board data from ``{id: neighbours}``; the adjacency is made symmetric."""
    sym: dict[int, set[int]] = {t: set() for t in adjacency}
    for t, nbrs in adjacency.items():
        for o in nbrs:
            sym.setdefault(o, set())
            sym[t].add(o)
            sym[o].add(t)
    return {
        "territories": [
            {
                "id": t,
                "terrain": terrains if isinstance(terrains, str) else terrains.get(t, "steppe"),
                "neighbours": sorted(sym[t]),
            }
            for t in sorted(sym)
        ]
    }


def make_board(adjacency: Mapping[int, Iterable[int]],
               terrains: Mapping[int, str] | str = "steppe") -> Board:
    return Board.from_data(board_data(adjacency, terrains))


def path_adjacency(n: int, start: int = 1) -> dict[int, list[int]]:
    """Territories start..start+n-1 in a line."""
    ids = list(range(start, start + n))
    return {t: [o for o in (t - 1, t + 1) if o in ids] for t in ids}


def pairs_adjacency(k: int) -> dict[int, list[int]]:
    """``k`` separate pairs (2j-1, 2j): moving one into the other founds one village."""
    out: dict[int, list[int]] = {}
    for j in range(1, k + 1):
        out[2 * j - 1] = [2 * j]
        out[2 * j] = [2 * j - 1]
    return out


def huts(**by_clan: int) -> list[str]:
    """``huts(red=2, blue=1)`` -> ``["red", "red", "blue"]``."""
    return [c for c, k in by_clan.items() for _ in range(k)]


def make_game(
    board: Board,
    setup: Mapping[int, Sequence[str]],
    players: Sequence[str] = ("ann", "bob"),
    clans: Sequence[str] | None = ("red", "blue"),
    first: int = 0,
) -> Game:
    return Game(board, players, setup, clans=list(clans) if clans is not None else None, first=first)


def make_record(
    board: Any,
    setup: Mapping[str, Any],
    moves: Sequence[Any] = (),
    players: Sequence[str] = ("ann", "bob"),
    clans: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    if clans is None:
        clans = dict(zip(players, ("red", "blue", "green", "yellow")))
    return {
        "format": "clans-record/1",
        "board": board,
        "players": list(players),
        "clans": dict(clans),
        "setup": dict(setup),
        "moves": list(moves),
    }


def run_cli(*args: str, stdin: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """Run the real ``pbem`` command (``python -m pbem.cli``) from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "pbem.cli", *args],
        input=stdin,
        capture_output=True,
        cwd=REPO,
        timeout=timeout,
    )


def strict_json(text: str | bytes) -> Any:
    """Parse JSON as RFC 8259 has it: NaN and Infinity are not JSON."""
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def random_moves(game: Any, rng: Any, plies: int) -> Any:
    """``game`` after ``plies`` random moves drawn with ``rng`` (fewer if it ends first)."""
    for _ in range(plies):
        move = game.random_move(rng)
        if move is None:
            break
        game.push(move)
    return game
