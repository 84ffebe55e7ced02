"""The lobby's tables: a game offered to strangers (its open seats, what it
requires of who joins) and each open seat, with whoever holds it between their
join and their acceptance (``pbem.games.lobby``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime
from sqlmodel import Field, SQLModel

from .models import utcnow


class LobbyTable(SQLModel, table=True):
    """A game with open seats.  Listed while its game is invited, its creator has
    confirmed it, and one of its open seats is free.  The filters' columns are
    copied here from the game so that the listing reads one table."""

    __tablename__ = "lobby_table"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", unique=True)
    #: Every seat of the game, its open ones counted.
    seats: int
    turn_hours: int
    #: The language of its creator (the table's talk is likely in it).
    language: str = Field(max_length=8, index=True)
    #: What a joiner must meet: a share (0-1) of their moves made in time, and a
    #: rating range (the ordinal of ``pbem.people.ratings``); ``None``: no requirement.
    min_in_time: float | None = Field(default=None)
    min_rating: float | None = Field(default=None)
    max_rating: float | None = Field(default=None)
    #: The listing's order (newest first) and its index.
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False,
                                                                          index=True))


class LobbySeat(SQLModel, table=True):
    """An open seat of a lobby table.  A join holds it (the joiner's name and
    address go into the seat, with a new link) until ``held_until``; after that,
    while its holder has not accepted, the next joiner may take it over."""

    __tablename__ = "lobby_seat"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat_id: int = Field(foreign_key="seat.id", unique=True)
    #: The holder's mailbox (``pbem.people.players.mailbox``): their unconfirmed
    #: joins are counted by it.  ``None``: never held.
    mailbox: str | None = Field(default=None, max_length=254, index=True)
    held_until: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
