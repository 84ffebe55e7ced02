"""A game's stored position (``game.state``): written and read for every move.

The text is ``json.dumps`` of the rules' snapshot (:meth:`pbem.rules.Game.to_json`),
as it always was: every stored game reads back unchanged, and a new one is
written with the same bytes.  It is written faster than ``json.dumps`` writes it,
because it is written on every move and ``json.dumps`` took a twentieth of a
move's time (issue 34): most of a snapshot (the history, the villages, the
huts) holds nothing but numbers and the rules' own words (clans, terrains,
ends, moves such as ``12-13``), none of which has a character JSON escapes, a
comma or a colon.  orjson writes those parts in a tenth of the time, without the
spaces after ``,`` and ``:`` that ``json.dumps`` puts there; put back, the text is
``json.dumps``'s own.  The parts that hold people's words (the players' names)
and the board are written by ``json.dumps``."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from .. import rules
from ..rules.tables import CLANS, TERRAINS

#: The snapshot's parts written by orjson: only numbers, booleans, null and the
#: rules' words.  Anything else (a new part) is written by ``json.dumps``.
_PLAIN_PARTS = frozenset({"format", "clans", "first", "setup", "huts", "villages", "clan_scores", "chips",
                          "history", "end"})
#: What the words in those parts are made of (the rules' own, checked below).
_PLAIN_WORD = re.compile(r"[a-z0-9/_-]*")


def _words_are_plain() -> bool:
    words = [*CLANS, *TERRAINS, "clans-state/1", "twelfth-village", "no-legal-move", "12-13"]
    return all(_PLAIN_WORD.fullmatch(w) for w in words)


# Checked once: should the rules ever name a clan or a terrain with a comma or a
# colon, every part is written by json.dumps.
_FAST = _words_are_plain()


def write(position: rules.Game) -> str:
    """``json.dumps(position.to_json())``, byte for byte."""
    data = position.to_json()
    if not _FAST:
        return json.dumps(data)
    parts = []
    for key, value in data.items():
        if key in _PLAIN_PARTS:
            part = orjson.dumps(value)
            # A backslash or a byte past ASCII would be an escape json.dumps
            # writes otherwise: not a snapshot the rules made, but be sure.
            if not part.isascii() or b"\\" in part:
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
