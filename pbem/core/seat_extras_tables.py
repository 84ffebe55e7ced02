"""A seat's own extras: the nudges its player sent (issue 32) and its private
notes (issue 33).  Both hang off a seat; neither is ever part of any view."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime, Index, Text
from sqlmodel import Field, SQLModel

from .models import utcnow


class Nudge(SQLModel, table=True):
    """One "X is waiting for your move": who sent it, to whom, at which turn.
    The newest of a seat in a game says when it may nudge again; the row's id
    is the cause of the mail (event ``nudge:ID``)."""

    __tablename__ = "nudge"
    __table_args__ = (Index("ix_nudge_seat_created", "seat_id", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    #: The seat that nudged.
    seat_id: int = Field(foreign_key="seat.id")
    #: The seat nudged: the one to move at ``ply``.
    mover_id: int = Field(foreign_key="seat.id")
    ply: int
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


class SeatNote(SQLModel, table=True):
    """A seat's private notes: plain text only its own page, its own API calls
    and (if it asks) the foot of its own turn mail show.  Deleted with the seat's
    person by ``pbem admin forget``."""

    __tablename__ = "seat_note"

    id: int | None = Field(default=None, primary_key=True)
    seat_id: int = Field(foreign_key="seat.id", unique=True)
    text: str = Field(sa_column=Column(Text, nullable=False))
    #: Shown at the foot of the seat's own turn mail.
    in_turn_mail: bool = Field(default=False)
    updated_at: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))
