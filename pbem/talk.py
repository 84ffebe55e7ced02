"""Table talk: the players' messages to each other at a game's table.

A stand-in with the one call the replies need (the table-talk work replaces it
with the whole of it, keeping this signature)."""

from __future__ import annotations

from sqlmodel import Session

from .context import Context
from .models import Seat, TableMessage


def post_talk(ctx: Context, session: Session, seat: Seat, text: str, *, source: str) -> int:
    """Post ``text`` to the table of the seat's game, in the caller's
    transaction; returns the message's id."""
    assert seat.id is not None  # a stored seat
    message = TableMessage(game_id=seat.game_id, seat_id=seat.id, text=text, source=source,
                           created_at=ctx.now())
    session.add(message)
    session.flush()
    assert message.id is not None  # the flush gave it one
    return message.id
