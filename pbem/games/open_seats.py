"""Open seats: a seat of a new game left for anyone (``{"open": true}``), and
what the table may require of who takes it.  The game becomes a lobby table
(``pbem.core.lobby_tables``) in the transaction that creates it; finding and
joining tables is :mod:`.lobby`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from sqlmodel import Session

from ..core import errors
from ..core.lobby_tables import LobbySeat, LobbyTable
from ..core.models import Game, Seat
from ..words import N_

#: The rating range a table may ask for (the ordinal ``mu - 3 sigma``: 0 for a newcomer).
MIN_RATING, MAX_RATING = -50.0, 100.0


@dataclass(frozen=True)
class Requirements:
    """What a table asks of who joins it (``None``: nothing)."""

    #: The share (0 to 1) of their moves in finished games made in time, not by the autopilot.
    min_in_time: float | None = None
    min_rating: float | None = None
    max_rating: float | None = None

    def as_json(self) -> dict[str, float | None]:
        return {"min_in_time": self.min_in_time, "min_rating": self.min_rating, "max_rating": self.max_rating}


def _number(raw: dict[str, Any], key: str, low: float, high: float) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise errors.Invalid(N_("%(requirement)s must be a number from %(low)s to %(high)s"), requirement=key,
                             low=low, high=high, code="invalid-requirements", field=key)
    return float(value)


def parse_requirements(raw: Any) -> Requirements:
    """``{"min_in_time": 0.8, "min_rating": 0, "max_rating": 30}``, each optional."""
    if raw is None:
        return Requirements()
    if not isinstance(raw, dict):
        raise errors.Invalid(N_("the requirements must be an object"), code="invalid-requirements")
    # A range whose lowest is above its highest admits nobody: it is what was asked.
    return Requirements(_number(raw, "min_in_time", 0.0, 1.0), _number(raw, "min_rating", MIN_RATING, MAX_RATING),
                        _number(raw, "max_rating", MIN_RATING, MAX_RATING))


def open_table(session: Session, game: Game, seats: Sequence[Seat], requirements: Requirements) -> None:
    """Make ``game`` a lobby table if any of its seats is open (a seat with no
    address that the computer does not play).  A game without an open seat has
    nobody to ask requirements of: they are left aside."""
    open_seats = [s for s in seats if not s.email and s.bot is None]
    if not open_seats:
        return
    assert game.id is not None
    session.add(LobbyTable(game_id=game.id, seats=len(seats), turn_hours=game.turn_hours,
                           language=seats[0].language, created_at=game.created_at, min_in_time=requirements.min_in_time,
                           min_rating=requirements.min_rating, max_rating=requirements.max_rating))
    for seat in open_seats:
        assert seat.id is not None
        session.add(LobbySeat(game_id=game.id, seat_id=seat.id))
