"""How reliable a player is, from their finished games: what strangers see of
each other in the lobby and in an invitation to a table (by display name, never
the address).

Per person (their address as stored, in lower case, is how seats name them):
games finished, the share of their moves made in time (a move the autopilot made
for them when their time ran out is not), the median time they took for a move
(from the move before theirs), and the games they left to the computer (handed
their seat over before the end).  Moves after a seat went to the computer are
the computer's, counted neither way."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, TypedDict

from sqlmodel import Session, col, select

from ..core.db import as_utc
from ..core.models import Game, GameStatus, MoveRecord, Rating, Seat
from .players import address_hash


class ReliabilityView(TypedDict):
    #: Finished games played.
    games: int
    #: The share (0-1) of their moves made in time; ``None`` before any move.
    in_time: float | None
    #: The median hours they took for a move; ``None`` before any move of their own.
    median_hours: float | None
    #: Games they handed to the computer before the end.
    left: int


@dataclass(frozen=True)
class Reliability:
    games: int = 0
    moves: int = 0
    in_time_moves: int = 0
    median_hours: float | None = None
    left: int = 0

    @property
    def in_time(self) -> float | None:
        return round(self.in_time_moves / self.moves, 3) if self.moves else None

    def as_json(self) -> ReliabilityView:
        return {"games": self.games, "in_time": self.in_time, "median_hours": self.median_hours, "left": self.left}


def reliability_of(session: Session, emails: Iterable[str]) -> dict[str, Reliability]:
    """Each address's reliability (lower case keys; one with no finished game
    has the empty record).  Two queries whatever the number of people."""
    wanted = sorted({e.lower() for e in emails if e})
    out = {e: Reliability() for e in wanted}
    if not wanted:
        return out
    seats = session.exec(
        select(Seat, Game.started_at).join(Game, col(Game.id) == col(Seat.game_id))
        .where(col(Seat.email).in_(wanted), col(Game.status) == GameStatus.FINISHED)).all()
    if not seats:
        return out
    moves: dict[int, list[tuple[int, int, bool, datetime]]] = defaultdict(list)
    for move in session.exec(select(MoveRecord).where(col(MoveRecord.game_id).in_(sorted({s.game_id for s, _ in seats})))
                             .order_by(col(MoveRecord.ply))):
        moves[move.game_id].append((move.ply, move.position, move.by_autopilot, as_utc(move.created_at)))
    games: dict[str, int] = defaultdict(int)
    left: dict[str, int] = defaultdict(int)
    made: dict[str, int] = defaultdict(int)
    in_time: dict[str, int] = defaultdict(int)
    took: dict[str, list[float]] = defaultdict(list)
    for seat, started_at in seats:
        email, game_id, position, bot_from = seat.email.lower(), seat.game_id, seat.position, seat.bot_from
        games[email] += 1
        if bot_from is not None:
            left[email] += 1
        before = as_utc(started_at) if started_at else None
        for ply, mover, by_autopilot, at in moves[game_id]:
            if mover == position and (bot_from is None or ply < bot_from):
                made[email] += 1
                if not by_autopilot:
                    in_time[email] += 1
                    if before is not None:
                        took[email].append((at - before).total_seconds() / 3600)
            before = at
    for email in games:
        out[email] = Reliability(games=games[email], moves=made[email], in_time_moves=in_time[email],
                                 median_hours=round(statistics.median(took[email]), 1) if took[email] else None,
                                 left=left[email])
    return out


def rating_of(session: Session, email: str) -> float:
    """A person's rating as a table's range reads it: the ordinal (``mu - 3
    sigma``) of :mod:`.ratings`, 0 for someone never rated."""
    row = session.exec(select(Rating).where(col(Rating.address_hash) == address_hash(email))).first()
    return 0.0 if row is None else round(row.mu - 3 * row.sigma, 1)
