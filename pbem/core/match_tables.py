"""Quick match's pool (``pbem.games.quick_match``): a person who asked to be
seated with strangers.  The request is a seat of a game of its own, a one-seat
"pool game" that never starts: its seat link is the one the confirmation mail
carries, and confirming it is accepting that seat.  Once seated, the seat
itself moves into the new game (or its link moves into the lobby table's open
seat), so that the same link shows the game."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime
from sqlmodel import Field, SQLModel

from .models import utcnow


class MatchRequest(SQLModel, table=True):
    """One request for a quick match.  Waiting while confirmed, not seated and
    its pool game still invited (the clock expires it like any invitation)."""

    __tablename__ = "match_request"

    id: int | None = Field(default=None, primary_key=True)
    #: The pool game (one seat, never started) and its seat at the request.
    game_id: int = Field(foreign_key="game.id", unique=True)
    seat_id: int = Field(foreign_key="seat.id", unique=True)
    #: ``pbem.people.players.mailbox``: one request waits per mailbox.
    mailbox: str = Field(max_length=254, index=True)
    #: The acceptable player counts, ascending, comma-separated ("3,4").
    players: str = Field(max_length=16)
    turn_hours: int = Field(index=True)
    language: str = Field(max_length=8)
    #: Their rating (``pbem.people.ratings`` ordinal) when they confirmed.
    rating: float | None = Field(default=None)
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))
    confirmed_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True,
                                                                         index=True))
    #: When they were seated, and in which game (``None``: not yet).
    seated_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    seated_game_id: int | None = Field(default=None, foreign_key="game.id")

    def counts(self) -> list[int]:
        return [int(n) for n in self.players.split(",") if n]


class SubstituteOffer(SQLModel, table=True):
    """A volunteer's offer to take over an away seat (``pbem.games.substitutes``):
    like a quick-match request, the volunteer's link is the one seat of a holding
    game that never starts; accepting it moves that link into the away seat."""

    __tablename__ = "substitute_offer"

    id: int | None = Field(default=None, primary_key=True)
    #: The away seat and its game.
    seat_id: int = Field(foreign_key="seat.id", index=True)
    game_id: int = Field(foreign_key="game.id")
    #: The holding game and its seat (the volunteer's until they accept).
    holding_game_id: int = Field(foreign_key="game.id", unique=True)
    holding_seat_id: int = Field(foreign_key="seat.id", unique=True)
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))
    taken_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
