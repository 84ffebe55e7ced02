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


def write(position: rules.Game) -> str:
    """``json.dumps(position.to_json())``, byte for byte.  (The parts orjson
    writes hold whole numbers, never a float, which the two write differently.)"""
    data = position.to_json()
    parts = []
    for key, value in data.items():
        if key in _PLAIN_PARTS:
            try:
                part = orjson.dumps(value)
            except orjson.JSONEncodeError:  # e.g. an integer past 64 bits: json.dumps takes it
                return json.dumps(data)
            if not _plain(part):
                return json.dumps(data)
            part = part.replace(b",", b", ").replace(b":", b": ")
        else:
            part = json.dumps(value).encode()
        parts.append(b"%s: %s" % (json.dumps(key).encode(), part))
    return (b"{" + b", ".join(parts) + b"}").decode()


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
