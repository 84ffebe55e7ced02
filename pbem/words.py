"""The words people read, for pages and mail alike: the history in sentences,
lists of names, why a game ended, times and time left, the board as text, the
mail settings.

Everything here is a function of what it words (a view, a time, a code), so a
language can be passed in later without changing the callers' shape; the
sentences themselves are English for now.  The rules package holds data only
and never imports this module."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from .rules.tables import EPOCHS
from .rules.views import BaseView, VillageEntry

# -- the game in sentences ----------------------------------------------------


def move_text(move: str) -> str:
    """A move as people read it.

    >>> move_text("12-13")
    '12 → 13'
    """
    return move.replace("-", " → ")


def describe_history(view: BaseView) -> list[str]:
    """The history in words, one line per move.

    >>> describe_history({"history": [{"player": "Bob", "move": "12-13", "villages": [1]}],
    ...     "villages": [{"number": 1, "territory": 20, "terrain": "forest", "epoch": 1,
    ...                   "points": 6, "clans": ["blue", "red"], "removed": {}}]})
    ['Bob moved 12 → 13; village on 20 (forest, epoch I): 6 points to blue, red']
    """
    by_number = {v["number"]: v for v in view.get("villages", [])}
    lines = []
    for h in view.get("history", []):
        source, target = h["move"].split("-")
        text = f"{h['player']} moved {source} → {target}"
        for n in h.get("villages", []):
            v = by_number[n]
            text += f"; {describe_village(v)}"
        lines.append(text)
    return lines


def describe_village(v: VillageEntry) -> str:
    """One founded village: where, which epoch, who scored.

    >>> describe_village({"territory": 3, "terrain": "steppe", "epoch": 5, "points": 5,
    ...                   "clans": [], "removed": {"red": 1}})
    'village on 3 (steppe, epoch V): 5 points to nobody (strife removed red)'
    """
    roman = EPOCHS[v["epoch"] - 1].roman
    scored = ", ".join(v["clans"]) or "nobody"
    text = f"village on {v['territory']} ({v['terrain']}, epoch {roman}): {v['points']} points to {scored}"
    if v.get("removed"):
        text += f" (strife removed {', '.join(sorted(v['removed']))})"
    return text


def village_line(v: VillageEntry) -> str:
    """A village in a list of them: ``#3: village on 20 (...)``."""
    return f"#{v['number']}: {describe_village(v)}"


def names_text(names: list[str]) -> str:
    """Names as a sentence lists them.

    >>> names_text([]), names_text(["Ann"]), names_text(["Ann", "Bob"]), names_text(["Ann", "Bob", "Cid"])
    ('', 'Ann', 'Ann and Bob', 'Ann, Bob and Cid')
    """
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


_END_REASONS = {
    "twelfth-village": "the twelfth village was founded",
    "no-legal-move": "no legal move was left",
}


def end_text(end: str | None) -> str:
    """Why a game ended, to follow "The game ended because" (an unknown code is
    shown as it is).

    >>> end_text("no-legal-move"), end_text(None)
    ('no legal move was left', '')
    """
    if end is None:
        return ""
    return _END_REASONS.get(end, end)


def scores_text(clan_scores: dict[str, int]) -> str:
    """The clans' scores in a line: ``red 12, blue 4``."""
    return ", ".join(f"{c} {s}" for c, s in clan_scores.items())


def board_text(view: BaseView, width: int = 72) -> list[str]:
    """The occupied territories that are not villages, compactly and wrapped
    between territories: ``12 (2 red, 1 blue); 13 (1 green); ...``.

    >>> board_text({"huts": {"13": {"green": 1}, "12": {"red": 2, "blue": 1}, "20": {"red": 1}},
    ...             "villages": [{"territory": 20}]})
    ['12 (2 red, 1 blue); 13 (1 green)']
    """
    villages = {v["territory"] for v in view.get("villages", [])}
    entries = [
        f"{tid} (" + ", ".join(f"{n} {clan}" for clan, n in huts.items() if n) + ")"
        for tid, huts in sorted(((int(k), v) for k, v in view.get("huts", {}).items()))
        if tid not in villages
    ]
    lines: list[str] = []
    for i, entry in enumerate(entries):
        piece = entry + (";" if i < len(entries) - 1 else "")
        if lines and len(lines[-1]) + 1 + len(piece) <= width:
            lines[-1] += " " + piece
        else:
            lines.append(piece)
    return lines


# -- times ----------------------------------------------------------------------


def when_text(when: datetime | None) -> str:
    """A time as people read it, in UTC.

    >>> when_text(datetime(2026, 12, 3, 14, 0, tzinfo=timezone.utc))
    'Thu 3 Dec 2026, 14:00 UTC'
    >>> when_text(None)
    ''
    """
    if when is None:
        return ""
    when = when.astimezone(timezone.utc)
    return f"{when:%a} {when.day} {when:%b %Y, %H:%M} UTC"


def left_text(delta: timedelta) -> str:
    """A time left, roughly: ``3 days``, ``23 hours``, ``40 minutes``.

    >>> left_text(timedelta(days=3)), left_text(timedelta(hours=23)), left_text(timedelta(seconds=5))
    ('3 days', '23 hours', '1 minute')
    """
    seconds = max(0, int(delta.total_seconds()))
    if seconds >= 2 * 86400:
        n, unit = round(seconds / 86400), "day"
    elif seconds >= 2 * 3600:
        n, unit = round(seconds / 3600), "hour"
    else:
        n, unit = max(1, round(seconds / 60)), "minute"
    return f"{n} {unit}{'' if n == 1 else 's'}"


# -- settings and messages ----------------------------------------------------

_MAIL_LABELS = {
    "every": "An email every time it is my turn",
    "digest": "One daily digest",
    "none": "No turn emails (I will check the page)",
}


def mail_labels() -> dict[str, str]:
    """The turn-mail choices, each with its label, in the order they are offered."""
    return dict(_MAIL_LABELS)


def sentence(message: str) -> str:
    """A message as a sentence.

    >>> sentence("the game is over"), sentence("done!"), sentence("  ")
    ('The game is over.', 'Done!', '')
    """
    message = str(message).strip()
    if not message:
        return message
    message = message[0].upper() + message[1:]
    return message if message.endswith((".", "!", "?")) else message + "."
