"""Typed errors of the rules core.

Every error is a :class:`ValueError` carrying the refusal ``code`` of the
record format (``spec/record.md``), an English message, and the facts the
message states (``params``: territory numbers, counts), so that the service can
say it in a player's language (``pbem.words.refusal_text``).

>>> e = EmptySource("nothing to move on 12", move="12-13", territory=12)
>>> isinstance(e, ValueError), e.code, e.params
(True, 'empty-source', {'territory': 12})
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every refusal the rules core gives."""

    code = "rules-error"

    def __init__(self, message: str, *, move: str | None = None, **params: object) -> None:
        super().__init__(message)
        self.message = message
        self.move = move
        self.params = params


class InvalidRecord(RulesError):
    """A record, board or set-up that cannot describe a game."""

    code = "invalid-record"


class InvalidBoard(InvalidRecord):
    """Board data that breaks the map's constraints."""


class IllegalMove(RulesError):
    """A move the rules refuse in the current position."""

    code = "illegal-move"


class GameOver(IllegalMove):
    code = "game-over"


class MalformedMove(IllegalMove):
    code = "malformed-move"


class UnknownTerritory(IllegalMove):
    code = "unknown-territory"


class EmptySource(IllegalMove):
    code = "empty-source"


class NotAdjacent(IllegalMove):
    code = "not-adjacent"


class EmptyTarget(IllegalMove):
    code = "empty-target"


class ImmovableGroup(IllegalMove):
    code = "immovable-group"


class BadOrder(IllegalMove):
    code = "bad-order"
