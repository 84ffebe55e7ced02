"""Time the emailed board picture: 50 renders of a classic mid-game view.

    python -m bench.render_png      (or python bench/render_png.py)

Prints the first (cold) render, the median and p90 of 50 warm renders, and the PNG size.
``python -m bench`` uses :func:`measure` for its board-picture figure.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from pbem.drawing.picture import board_png
from pbem.rules.board import classic_board

#: Half the territories empty, stacks of 2 to 9, three villages, last move 33 -> 32
#: (the same position as MID_GAME in tests/support/views.py, drawn by tests/drawing/test_picture.py).
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


def measure(runs: int = 50, view: dict[str, Any] | None = None) -> dict[str, float]:
    """Cold first render, then ``runs`` warm ones: milliseconds and the PNG's size."""
    board = classic_board()
    view = MID_GAME if view is None else view
    start = time.perf_counter()
    png = board_png(board, view)
    cold = time.perf_counter() - start
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        png = board_png(board, view)
        times.append(time.perf_counter() - start)
    times.sort()
    p90 = times[min(len(times) - 1, int(round(0.9 * len(times))) - 1)]
    return {"runs": runs, "cold_ms": cold * 1000, "median_ms": statistics.median(times) * 1000,
            "p90_ms": p90 * 1000, "png_bytes": len(png)}


def main(runs: int = 50) -> None:
    m = measure(runs)
    print(f"first render (cold caches): {m['cold_ms']:.1f} ms")
    print(f"median of {runs}: {m['median_ms']:.1f} ms")
    print(f"p90 of {runs}:    {m['p90_ms']:.1f} ms")
    print(f"PNG size: {m['png_bytes']:.0f} bytes ({m['png_bytes'] / 1024:.1f} KiB)")


if __name__ == "__main__":
    main()
