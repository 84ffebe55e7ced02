"""Moves: "take all huts from FROM and put them onto TO".

>>> m = Move.parse("12-13")
>>> m
Move(12, 13)
>>> str(m), m == Move(12, 13)
('12-13', True)
>>> Move.parse(" 12 to 13 ", strict=False), Move.parse("12>13", strict=False)
(Move(12, 13), Move(12, 13))
>>> Move.parse("12 13")
Traceback (most recent call last):
...
pbem.rules.errors.MalformedMove: '12 13' is not a move: expected FROM-TO, e.g. 12-13
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .errors import MalformedMove

_STRICT = re.compile(r"(\d+)-(\d+)", re.ASCII)
_HUMAN = re.compile(r"\s*(\d+)\s*(?:->|-|>|→|\s+to\s+|\s+)\s*(\d+)\s*", re.ASCII | re.IGNORECASE)


class Move(NamedTuple):
    """An immutable move between two territory ids."""

    source: int
    target: int

    def __repr__(self) -> str:
        return f"Move({self.source}, {self.target})"

    def __str__(self) -> str:
        return f"{self.source}-{self.target}"

    def text(self) -> str:
        """The record form, ``FROM-TO``."""
        return str(self)

    @classmethod
    def parse(cls, text: object, *, strict: bool = True) -> "Move":
        """Parse the record form ``FROM-TO``; with ``strict=False`` also what people
        type: ``12 13``, ``12>13``, ``12 to 13``, surrounding spaces."""
        if not isinstance(text, str) or len(text) > 200:
            raise MalformedMove(f"{_show(text)} is not a move: expected FROM-TO, e.g. 12-13",
                                move=_show(text), shown=_show(text))
        m = (_STRICT if strict else _HUMAN).fullmatch(text)
        if m is None:
            raise MalformedMove(f"{text!r} is not a move: expected FROM-TO, e.g. 12-13", move=text,
                                shown=repr(text))
        return cls(int(m.group(1)), int(m.group(2)))


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
