"""Time the emailed board picture: 50 renders of a classic mid-game view.

    python bench/render_png.py

Prints the first (cold) render, the median and p90 of 50 warm renders, and the PNG size.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from pbem.mail.picture import board_png
from pbem.rules.board import classic_board

#: Half the territories empty, stacks of 2 to 9, three villages, last move 33 -> 32
#: (the same position as tests/mail/test_picture.py).
MID_GAME: dict[str, Any] = {
    "huts": {
        "3": {"red": 2, "yellow": 1, "green": 2, "blue": 1, "black": 1},
        "4": {"green": 1, "black": 1}, "6": {"red": 1, "blue": 1},
        "7": {"red": 1, "yellow": 2, "black": 1}, "10": {"blue": 1}, "12": {"black": 1},
        "15": {"green": 1}, "18": {"yellow": 1}, "20": {"green": 1}, "22": {"yellow": 1},
        "24": {"green": 1}, "25": {"blue": 1}, "27": {"red": 5, "blue": 2, "black": 1},
        "28": {"black": 1}, "29": {"green": 1}, "30": {"yellow": 2, "blue": 1, "black": 1},
        "31": {"blue": 1}, "32": {"red": 1, "black": 2}, "37": {"yellow": 1, "green": 1},
        "40": {"red": 1, "yellow": 1, "green": 1, "blue": 2},
        "42": {"red": 1, "yellow": 1, "green": 1},
        "43": {"red": 4, "yellow": 1, "blue": 2, "black": 1},
        "47": {"green": 2, "blue": 1}, "48": {"yellow": 7, "red": 2}, "51": {"yellow": 1},
        "54": {"blue": 1, "black": 1}, "56": {"black": 1}, "57": {"red": 1},
        "58": {"red": 1, "black": 1}, "60": {"yellow": 1},
    },
    "villages": [
        {"number": 1, "territory": 6, "epoch": 1, "points": 3, "clans": ["blue", "red"]},
        {"number": 2, "territory": 25, "epoch": 1, "points": 2, "clans": ["blue"]},
        {"number": 3, "territory": 47, "epoch": 1, "points": 4, "clans": ["blue", "green"]},
    ],
    "last_move": "33-32",
}


def main(runs: int = 50) -> None:
    board = classic_board()
    start = time.perf_counter()
    png = board_png(board, MID_GAME)
    cold = time.perf_counter() - start
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        png = board_png(board, MID_GAME)
        times.append(time.perf_counter() - start)
    times.sort()
    p90 = times[min(len(times) - 1, int(round(0.9 * len(times))) - 1)]
    print(f"first render (cold caches): {cold * 1000:.1f} ms")
    print(f"median of {runs}: {statistics.median(times) * 1000:.1f} ms")
    print(f"p90 of {runs}:    {p90 * 1000:.1f} ms")
    print(f"PNG size: {len(png)} bytes ({len(png) / 1024:.1f} KiB)")


if __name__ == "__main__":
    main()
