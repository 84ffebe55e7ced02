"""A game's stored position (``game.state``): written and read for every move.

The text is ``json.dumps`` of the rules' snapshot (:meth:`pbem.rules.Game.to_json`),
as it always was: every stored game reads back unchanged, and a new one is
written with the same bytes.  It is written faster than ``json.dumps`` writes it,
because it is written on every move and ``json.dumps`` took a twentieth of a
move's time (issue 34): most of a snapshot (the history, the villages, the
huts) holds nothing but numbers and the rules' own words (clans, terrains,
ends, moves such as ``12-13``), none of which has a character JSON escapes, a
comma or a colon (each part is checked).  orjson writes those parts in a tenth
of the time, without the spaces after ``,`` and ``:`` that ``json.dumps`` puts
there; put back, the text is ``json.dumps``'s own.  The parts that hold people's words (the players' names)
and the board are written by ``json.dumps``."""

from __future__ import annotations

import json
from typing import Any

import orjson

from .. import rules

#: The snapshot's parts orjson writes: numbers, booleans, null and the rules'
#: own words (clans, terrains, ends, moves).  Any other part (the players'
#: names, the board, a part added later) is written by ``json.dumps``.
_PLAIN_PARTS = frozenset({"format", "clans", "first", "setup", "huts", "villages", "clan_scores", "chips",
                          "history", "end"})
#: Every byte but a quote, a comma and a colon (see _plain).
_NOT_MARKS = bytes(c for c in range(256) if c not in b'",:')


def _plain(part: bytes) -> bool:
    """Whether putting a space after every comma and colon of ``part`` (orjson's
    text) gives json.dumps's: ASCII, no escape, and no comma or colon inside a
    string.  Without a backslash no quote is escaped, so each string is a pair
    of quotes; once all but quotes, commas and colons are dropped, a string
    without a comma or colon is ``""``, and two strings always have a comma or
    colon between them: with every ``""`` taken out, no quote may be left."""
    if not part.isascii() or b"\\" in part:
        return False
    return b'"' not in part.translate(None, _NOT_MARKS).replace(b'""', b"")


def write(position: rules.Game, previous: str | None = None) -> str:
    """``json.dumps(position.to_json())``, byte for byte.  (The parts orjson
    writes hold whole numbers, never a float, which the two write differently.)

    ``previous``: the snapshot this game stored before the moves ``position``
    has played since: the text it was read from (a move's writes hold it, and
    their guard compares it with the stored one).  Its head, the parts no move
    changes, and its history are taken as they are; only what the moves
    changed is written (:func:`_write_on`).  A text of another game must not
    be passed: the head is not compared."""
    if previous is not None:
        text = _write_on(position, previous)
        if text is not None:
            return text
    data = position.to_json()
    parts = []
    for key, value in data.items():
        if key in _PLAIN_PARTS:
            part = _plain_part(value)
            if part is None:
                return json.dumps(data)
        else:
            part = json.dumps(value).encode()
        parts.append(_named(key, part))
    return (b"{" + b", ".join(parts) + b"}").decode()


def _plain_part(value: Any) -> bytes | None:
    """``json.dumps(value)`` as bytes, written by orjson; ``None`` if only
    ``json.dumps`` writes it so (see _plain)."""
    try:
        part = orjson.dumps(value)
    except orjson.JSONEncodeError:  # e.g. an integer past 64 bits: json.dumps takes it
        return None
    if not _plain(part):
        return None
    return part.replace(b",", b", ").replace(b":", b": ")


# Where a snapshot's parts meet.  The head (format, board, players, clans,
# first, set-up) ends where the huts begin; the history is the last list, and
# the end follows it.  None of these marks can be inside a string: json.dumps
# puts a backslash before every quote in one.
_FORMAT = b'{"format": "clans-state/1", "board": '
_HUTS = b', "huts": '
_HISTORY = b', "history": ['
_END = b'], "end": '
_ENTRY = b'{"seat": '
#: The parts' names as json.dumps writes them.
_KEYS = {key: json.dumps(key).encode() for key in ("format", "board", "players", "clans", "first", "setup", "huts",
                                                   "villages", "clan_scores", "chips", "history", "end")}


def _write_on(position: rules.Game, previous: str) -> str | None:
    """The snapshot of ``position`` from ``previous``, an earlier snapshot of
    its game (see :func:`write`), or ``None`` when ``previous`` is not one of a
    point the position has passed (then the whole snapshot is written).

    A move changes neither the head (the game's for its whole length) nor a
    played entry of the history, and writing them was two fifths of a
    snapshot's time, more as the history grows (issue 34).  The text must be
    of a point the position has passed: it may not hold more moves than the
    position, and its last entry is written again and compared (a text with
    no move yet has none to compare).  The head is taken as it is, so the
    text is ``json.dumps``'s as long as reading a snapshot and writing it
    again gives back its head, which holds for every snapshot this version
    writes; one of another format is written whole."""
    old = previous.encode()
    if not old.startswith(_FORMAT):
        return None
    head = old.find(_HUTS)
    at_history = old.rfind(_HISTORY)
    at_end = old.rfind(_END)
    if not 0 < head < at_history < at_end:
        return None
    entries = old[at_history + len(_HISTORY):at_end]
    known = entries.count(_ENTRY)
    if known > position.ply:
        return None
    data = position.moving_json(max(known - 1, 0))
    history = data["history"]
    if known:
        last = _plain_part(history[:1])
        if last is None or not entries.endswith(last[1:-1]):
            return None
        history = history[1:]
    parts = [old[:head]]
    for key, value in data.items():
        part = _plain_part(history if key == "history" else value)
        if part is None:
            return None
        if key == "history" and known:
            part = b"[" + entries + (b", " + part[1:] if history else b"]")
        parts.append(_named(key, part))
    return (b", ".join(parts) + b"}").decode()


def _named(key: str, part: bytes) -> bytes:
    """A part of the snapshot with its name, as json.dumps writes the pair."""
    return b"%s: %s" % (_KEYS.get(key) or json.dumps(key).encode(), part)


def read(text: str) -> rules.Game:
    """The position a stored snapshot holds."""
    try:
        # orjson reads the snapshot in a quarter of json's time; what it refuses
        # and json takes (a lone surrogate's escape) is read by json.  (orjson
        # would read an integer past 64 bits as a float: a snapshot holds none.)
        data: Any = orjson.loads(text)
    except orjson.JSONDecodeError:
        data = json.loads(text)
    return rules.Game.from_json(data)
