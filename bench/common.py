"""Pure helpers: percentiles, figures measured against a floor, the table and the JSON."""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

RESULTS = Path(__file__).resolve().parent / "results"


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (0-100) by linear interpolation between closest ranks
    (the same as ``numpy.percentile``'s default).

    >>> percentile([1, 2, 3, 4], 50)
    2.5
    >>> percentile([10], 99), percentile([1, 2, 3, 4, 5], 100), percentile([3, 1, 2], 0)
    (10.0, 5.0, 1.0)
    """
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= p <= 100:
        raise ValueError(f"percentile {p} is not within 0-100")
    xs = sorted(values)
    rank = (len(xs) - 1) * p / 100
    lo = math.floor(rank)
    hi = min(lo + 1, len(xs) - 1)
    return float(xs[lo] + (xs[hi] - xs[lo]) * (rank - lo))


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


@dataclass
class Figure:
    """One line of the table: a value measured with its floor in the same run.

    ``kind`` says how the goal reads: ``min-ratio`` (value/floor at least ``goal``),
    ``max-ratio`` (value/floor at most ``goal``), ``max-value`` (the value itself below
    ``goal``; a floor, if any, is shown beside it) or ``min-value`` (the value itself at
    least ``goal``: a win rate) or ``info`` (a figure reported beside the others, with no
    goal of its own: what an active game costs).
    """

    what: str
    value: float
    unit: str
    goal: float
    kind: str
    floor: float | None = None
    floor_what: str = ""
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.floor is None or self.floor == 0:
            return None
        return self.value / self.floor

    @property
    def passed(self) -> bool | None:
        if self.kind == "min-ratio":
            return None if self.ratio is None else self.ratio >= self.goal
        if self.kind == "max-ratio":
            return None if self.ratio is None else self.ratio < self.goal
        if self.kind == "max-value":
            return self.value < self.goal
        if self.kind == "min-value":
            return self.value >= self.goal
        if self.kind == "info":
            return None
        raise ValueError(f"unknown goal kind {self.kind!r}")

    def goal_text(self) -> str:
        """
        >>> Figure("x", 1, "ms", 1.3, "max-ratio", 1).goal_text()
        'ratio < 1.3'
        >>> Figure("x", 1, "ms", 50, "max-value").goal_text()
        '< 50 ms'
        >>> Figure("x", 1, "KB", 0, "info").goal_text()
        '-'
        """
        if self.kind == "min-ratio":
            return f"ratio >= {self.goal:g}"
        if self.kind == "max-ratio":
            return f"ratio < {self.goal:g}"
        if self.kind == "min-value":
            return f">= {self.goal:g} {self.unit}"
        if self.kind == "info":
            return "-"
        return f"< {self.goal:g} {self.unit}"

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(ratio=self.ratio, passed=self.passed, goal_text=self.goal_text())
        return out


def fmt(x: float | None, unit: str = "") -> str:
    """
    >>> fmt(1234.5, "req/s"), fmt(0.01234, "ms"), fmt(None)
    ('1234 req/s', '0.0123 ms', '-')
    """
    if x is None:
        return "-"
    if abs(x) >= 100:
        text = f"{x:.0f}"
    elif abs(x) >= 10:
        text = f"{x:.1f}"
    elif abs(x) >= 1:
        text = f"{x:.2f}"
    else:
        text = f"{x:.3g}"
    return f"{text} {unit}".strip()


def table(figures: Sequence[Figure]) -> str:
    """The results as a Markdown table (what the README's Performance section holds)."""
    rows = [["what", "value", "floor", "ratio", "goal", "result"]]
    for f in figures:
        verdict = "-" if f.kind == "info" else {True: "pass", False: "MISS", None: "n/a"}[f.passed]
        rows.append([
            f.what,
            fmt(f.value, f.unit),
            f"{fmt(f.floor, f.unit)} ({f.floor_what})" if f.floor is not None else "-",
            "-" if f.ratio is None else f"{f.ratio:.2f}",
            f.goal_text(),
            verdict,
        ])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, r in enumerate(rows):
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
        if n == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def write_results(figures: Sequence[Figure], meta: dict[str, Any], directory: Path = RESULTS) -> Path:
    """Write ``bench-<UTC time>.json`` and ``latest.json``; returns the timestamped path."""
    directory.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    doc = {"created": stamp, **meta, "figures": [f.as_json() for f in figures], "table": table(figures)}
    text = json.dumps(doc, indent=2, default=str)
    path = directory / f"bench-{stamp}.json"
    path.write_text(text)
    (directory / "latest.json").write_text(text)
    return path
