"""A seat's pre-moves: the ranked list of moves it set for its next turn, and
what became of the last list (its own table: private to the seat, read only by
:mod:`pbem.games.premoves`)."""

from __future__ import annotations

from datetime import datetime

from typing import Any

from sqlalchemy import Column, ForeignKey, Integer, Text
from sqlmodel import Field, SQLModel, col, select

from .models import Seat, _when

#: Where a transaction's first query left which of the game's seats have a list
#: set (``session.info[SET_LISTS][seat_id]``, see :mod:`pbem.games.lookup`): a move
#: then asks nothing more when the next player has none.
SET_LISTS = "pbem.premove_lists"


class PremoveList(SQLModel, table=True):
    """One row per seat that ever set pre-moves.  ``moves`` is a JSON list of
    ``{"move": "12-13", "order": [ids] | null}`` in the player's order (``None``
    once cleared: it fired, none was legal, or the player cleared it).
    ``fired``: ``{"ply", "move", "order", "rank"}`` of the last one played;
    ``missed``: ``{"ply", "moves"}`` of the last list of which none was legal
    when the turn came (the turn mail of that ply says so)."""

    __tablename__ = "premove_list"

    seat_id: int = Field(sa_column=Column(Integer, ForeignKey("seat.id", ondelete="CASCADE"), primary_key=True))
    moves: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    fired: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    missed: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    updated_at: datetime = Field(sa_column=_when(nullable=False))


def has_list() -> Any:
    """The column ``EXISTS (a list set by the row's seat)``, for a query of seats."""
    return select(PremoveList.seat_id).where(col(PremoveList.seat_id) == col(Seat.id),
                                             col(PremoveList.moves).is_not(None)).exists()
