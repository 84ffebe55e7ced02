"""Board views to draw in the picture tests (the SVG and the emailed PNG)."""

from __future__ import annotations

from typing import Any

from pbem.rules.board import Board
from pbem.rules.tables import CLANS


def board_part(huts: dict[str, dict[str, int]] | None = None, villages: list[dict[str, Any]] | None = None,
               last_move: str | None = None) -> dict[str, Any]:
    """What the pictures read of a view (``pbem.rules.views.BoardPart``): by default
    an empty board."""
    return {"huts": huts or {}, "villages": villages or [], "last_move": last_move}


#: No huts, no villages, no move yet.
EMPTY = board_part()


def start_view(board: Board) -> dict[str, Any]:
    """One hut on every territory, as at the start of a game."""
    huts = {}
    for region, tids in sorted(board.regions_map().items()):
        for i, tid in enumerate(sorted(tids)):
            huts[str(tid)] = {CLANS[(i + region) % 5]: 1}
    return {"huts": huts, "villages": [], "last_move": None}


#: Half the territories empty, stacks of 2 to 9, three villages, last move 33 -> 32.
MID_GAME: dict[str, Any] = {
    "huts": {
        "3": {"red": 2, "yellow": 1, "green": 2, "blue": 1, "black": 1},
        "4": {"green": 1, "black": 1},
        "6": {"red": 1, "blue": 1},
        "7": {"red": 1, "yellow": 2, "black": 1},
        "10": {"blue": 1},
        "12": {"black": 1},
        "15": {"green": 1},
        "18": {"yellow": 1},
        "20": {"green": 1},
        "22": {"yellow": 1},
        "24": {"green": 1},
        "25": {"blue": 1},
        "27": {"red": 5, "blue": 2, "black": 1},
        "28": {"black": 1},
        "29": {"green": 1},
        "30": {"yellow": 2, "blue": 1, "black": 1},
        "31": {"blue": 1},
        "32": {"red": 1, "black": 2},
        "37": {"yellow": 1, "green": 1},
        "40": {"red": 1, "yellow": 1, "green": 1, "blue": 2},
        "42": {"red": 1, "yellow": 1, "green": 1},
        "43": {"red": 4, "yellow": 1, "blue": 2, "black": 1},
        "47": {"green": 2, "blue": 1},
        "48": {"yellow": 7, "red": 2},
        "51": {"yellow": 1},
        "54": {"blue": 1, "black": 1},
        "56": {"black": 1},
        "57": {"red": 1},
        "58": {"red": 1, "black": 1},
        "60": {"yellow": 1},
    },
    "villages": [
        {"number": 1, "territory": 6, "epoch": 1, "points": 3, "clans": ["blue", "red"]},
        {"number": 2, "territory": 25, "epoch": 1, "points": 2, "clans": ["blue"]},
        {"number": 3, "territory": 47, "epoch": 1, "points": 4, "clans": ["blue", "green"]},
    ],
    "last_move": "33-32",
}
