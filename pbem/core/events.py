"""What caused an outbox row: its ``event`` key, such as ``ply:12``.  With the
outbox's unique key (game, event, recipient, kind) a key makes each message
at most once, so a cause must always give the same key.  Keys are made and
read back here only, never by hand.

>>> key(Event.PLY, 12), key(Event.REMIND, 12, 1700000000), Event.OVER
('ply:12', 'remind:12:1700000000', <Event.OVER: 'over'>)
>>> ply_of("remind:12:1700000000"), id_of("inbound:7"), ply_of("over"), id_of("talk:x")
(12, 7, None, None)
>>> cause_of("nudge:7"), cause_of("over"), cause_of("nothing:1")
(<Event.NUDGE: 'nudge'>, <Event.OVER: 'over'>, None)
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from sqlalchemy import ColumnElement, String, cast, literal


class Event(StrEnum):
    """The causes; a cause that happens once per game is its own key, the others
    name what they are about after a colon (see :func:`key`)."""

    #: A player is invited (once per game and seat).
    INVITE = "invite"
    #: The game started (a webhook's post).
    START = "start"
    #: The game ended.
    OVER = "over"
    #: An admin cancelled the game.
    CANCELLED = "cancelled"
    #: ``ply:PLY``: a turn, by the ply it starts.
    PLY = "ply"
    #: ``remind:PLY:DEADLINE``: a reminder for a turn, by its deadline (a paused
    #: clock moves it, and then the turn is reminded again).
    REMIND = "remind"
    #: ``autopilot:PLY``: the autopilot moved at that ply.
    AUTOPILOT = "autopilot"
    #: ``digest:DAY``: a day's digest.
    DIGEST = "digest"
    #: ``daily:DAY``: a person's daily mail of that day (their local date).
    DAILY = "daily"
    #: ``talk:ID``: a table message.
    TALK = "talk"
    #: ``inbound:ID``: the answer to a message received.
    INBOUND = "inbound"
    #: ``unreachable:SEAT``: a player's mail bounces.
    UNREACHABLE = "unreachable"
    #: ``webhook-off:ID``: a webhook was switched off.
    WEBHOOK_OFF = "webhook-off"
    #: ``nudge:ID``: a player nudged the one to move (``seat_extras_tables.Nudge``).
    NUDGE = "nudge"
    #: ``login:NONCE`` and ``link:NONCE``: asked for each time anew.
    LOGIN = "login"
    LINK = "link"
    #: ``join:LOBBY_SEAT:UNTIL``: a stranger joined a lobby table, holding the
    #: open seat until then (a later hold of the same seat is another invitation).
    JOIN = "join"


#: The events whose first detail is a ply.
_OF_PLY = (Event.PLY, Event.REMIND, Event.AUTOPILOT)
#: The events whose detail is a row's id.
_OF_ROW = (Event.TALK, Event.INBOUND, Event.UNREACHABLE, Event.WEBHOOK_OFF, Event.NUDGE)
_CAUSES = frozenset(e.value for e in Event)


def key(event: Event, *details: object) -> str:
    """The key of ``event`` about ``details`` (``key(Event.PLY, 12)``: ``ply:12``)."""
    return ":".join([event.value, *map(str, details)])


def key_sql(event: Event, detail: ColumnElement[Any]) -> ColumnElement[str]:
    """:func:`key` in SQL, of a column (``inbound:`` || the row's id)."""
    return literal(f"{event.value}:") + cast(detail, String)


def _number(text: str, among: tuple[Event, ...], at: int) -> int | None:
    parts = text.split(":")
    if parts[0] not in among or len(parts) <= at or not parts[at].isdigit():
        return None
    return int(parts[at])


def ply_of(text: str) -> int | None:
    """The ply a turn's, reminder's or autopilot's key names (``None`` for another key)."""
    return _number(text, _OF_PLY, 1)


def id_of(text: str) -> int | None:
    """The row a talk, inbound, unreachable, webhook-off or nudge key names (``None`` for another key)."""
    return _number(text, _OF_ROW, 1)


def cause_of(text: str) -> Event | None:
    """The cause a key names (``None`` for a key no cause makes)."""
    head = text.split(":", 1)[0]
    return Event(head) if head in _CAUSES else None
