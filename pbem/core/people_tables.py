"""Tables of what people do about each other with strangers around: a person's
public profile (its random address and whether it is hidden), the people a
person has blocked, and the table messages players reported to the operator.

A person is their normalized address (there is no person table); these rows
keep it because they must be matched against seats' addresses, and nothing
that reads them ever shows it to anyone but its own person."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from .models import _when, utcnow


class Profile(SQLModel, table=True):
    """A person's public profile: its address in links is random
    (``secrets``), never derived from their mail address."""

    __tablename__ = "profile"

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(max_length=254, unique=True, index=True)
    public_id: str = Field(max_length=24, unique=True, index=True)
    #: Hidden by its person: the profile page answers as if there were none.
    hidden: bool = Field(default=False)
    #: Their rating (once no longer provisional) is shown on the profile.
    show_rating: bool = Field(default=False)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))


class Block(SQLModel, table=True):
    """``blocker`` does not want to sit with, or read, ``blocked``."""

    __tablename__ = "block"
    __table_args__ = (UniqueConstraint("blocker", "blocked", name="uq_block_pair"),
                      # "Has anyone blocked this person?" (either direction is asked).
                      Index("ix_block_blocked", "blocked"))

    id: int | None = Field(default=None, primary_key=True)
    blocker: str = Field(max_length=254)
    blocked: str = Field(max_length=254)
    #: The name the blocker knew them by (their list shows it; never the address).
    name: str = Field(max_length=60)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))


class TalkReport(SQLModel, table=True):
    """A table message a player reported to the operator (``pbem admin reports``)."""

    __tablename__ = "talk_report"
    __table_args__ = (UniqueConstraint("message_id", "seat_id", name="uq_talk_report"),)

    id: int | None = Field(default=None, primary_key=True)
    message_id: int = Field(foreign_key="table_message.id", index=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    #: The reporter's seat.
    seat_id: int = Field(foreign_key="seat.id")
    reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False, index=True))
