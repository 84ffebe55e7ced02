"""How reliable a person is at the table, as strangers see it: from the games
they sat in that are over (``finished``), how many they played to the end
themselves, how many they left to the computer, the share of their moves they
made in time (rather than the autopilot at their deadline), and the median
time they took to move.

Moves the computer made in a seat handed to it (from ``Seat.bot_from`` on) are
nobody's: they count neither way, as in the player's own stats
(:mod:`pbem.people.stats`).  A move's time is from the move before it in its
game (or the game's start, for the first) to the move; only the person's own
moves count for it (the autopilot's are made at the deadline)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Iterable, TypedDict

from sqlalchemy import DateTime, and_, func, or_, select as select_columns
from sqlmodel import Session, col, select

from ..core.db import as_utc
from ..core.models import Game, GameStatus, MoveRecord, Rating, Seat
from .players import address_hash


class ReliabilityView(TypedDict):
    """A person's reliability as the lobby and invitations show it."""

    #: Finished games played (to the end, or left to the computer).
    games: int
    #: The share (0-1) of their moves made in time; ``None`` before any move.
    in_time: float | None
    #: The median hours they took for a move; ``None`` before any move of their own.
    median_hours: float | None
    #: Games they left to the computer before the end.
    left: int


@dataclass(frozen=True)
class Reliability:
    """One person's record with strangers (all zeros and ``None`` for someone new)."""

    #: Finished games they played to the end themselves.
    finished: int = 0
    #: Finished games in which their seat was handed to the computer.
    left_to_computer: int = 0
    #: Their own moves, and those the autopilot made for them at their deadline.
    in_time: int = 0
    by_autopilot: int = 0
    #: Median seconds from the move before to theirs (``None`` before any own move).
    median_seconds: int | None = None

    @property
    def share_in_time(self) -> int | None:
        """Percent of their moves made in time (``None`` before any move)."""
        moves = self.in_time + self.by_autopilot
        return None if moves == 0 else round(100 * self.in_time / moves)

    @property
    def games(self) -> int:
        return self.finished + self.left_to_computer

    @property
    def in_time_share(self) -> float | None:
        """The share (0-1) of their moves made in time, as a table's requirement reads it."""
        moves = self.in_time + self.by_autopilot
        return None if moves == 0 else round(self.in_time / moves, 3)

    @property
    def median_hours(self) -> float | None:
        return None if self.median_seconds is None else round(self.median_seconds / 3600, 1)

    def as_json(self) -> ReliabilityView:
        return {"games": self.games, "in_time": self.in_time_share, "median_hours": self.median_hours,
                "left": self.left_to_computer}


def normal(email: str) -> str:
    """An address as seats keep it."""
    return email.strip().lower()


def reliability(session: Session, emails: Iterable[str]) -> dict[str, Reliability]:
    """Each address's :class:`Reliability` (keys as given; unknown ones are new),
    in three queries however many addresses are asked for."""
    asked = list(dict.fromkeys(emails))
    wanted = sorted({normal(e) for e in asked if normal(e)})
    if not wanted:
        return {e: Reliability() for e in asked}
    # Practice games (against the computer, from a position) say nothing of a person at a table.
    finished = (col(Seat.email).in_(wanted), col(Game.status) == GameStatus.FINISHED, col(Game.practice_of).is_(None))
    games: dict[str, list[int]] = {e: [0, 0] for e in wanted}
    for email, handed, count in session.exec(
            select(Seat.email, col(Seat.bot_from).is_not(None), func.count())
            .join(Game, col(Game.id) == col(Seat.game_id)).where(*finished)
            .group_by(col(Seat.email), col(Seat.bot_from).is_not(None))):
        games[email][1 if handed else 0] += int(count)
    own_move = and_(col(Seat.game_id) == col(MoveRecord.game_id), col(Seat.position) == col(MoveRecord.position))
    before_computer = or_(col(Seat.bot_from).is_(None), col(MoveRecord.ply) < col(Seat.bot_from))
    moves: dict[str, list[int]] = {e: [0, 0] for e in wanted}
    for email, autopilot, count in session.exec(
            select(Seat.email, MoveRecord.by_autopilot, func.count()).select_from(MoveRecord)
            .join(Seat, own_move).join(Game, col(Game.id) == col(Seat.game_id))
            .where(*finished, before_computer)
            .group_by(col(Seat.email), col(MoveRecord.by_autopilot))):
        moves[email][1 if autopilot else 0] += int(count)
    # The time before each move: the move before it in its game, or the game's start.
    previous = func.lag(col(MoveRecord.created_at), type_=DateTime(timezone=True)).over(
        partition_by=col(MoveRecord.game_id), order_by=col(MoveRecord.ply))
    timed = (select_columns(col(MoveRecord.game_id).label("game_id"), col(MoveRecord.ply).label("ply"),
                    col(MoveRecord.position).label("position"), col(MoveRecord.by_autopilot).label("autopilot"),
                    col(MoveRecord.created_at).label("at"), previous.label("before"))
             .where(col(MoveRecord.game_id).in_(
                 select(Seat.game_id).join(Game, col(Game.id) == col(Seat.game_id)).where(*finished)))
             .subquery())
    waits: dict[str, list[float]] = {e: [] for e in wanted}
    for email, at, before, started in session.connection().execute(
            select_columns(col(Seat.email), timed.c.at, timed.c.before, col(Game.started_at))
            .join(Seat, and_(col(Seat.game_id) == timed.c.game_id, col(Seat.position) == timed.c.position))
            .join(Game, col(Game.id) == col(Seat.game_id))
            .where(col(Seat.email).in_(wanted), timed.c.autopilot.is_(False),
                   or_(col(Seat.bot_from).is_(None), timed.c.ply < col(Seat.bot_from)))):
        start = as_utc(before if before is not None else started)
        end = as_utc(at)
        if start is not None and end is not None:
            waits[email].append(max(0.0, (end - start).total_seconds()))
    found = {e: Reliability(finished=games[e][0], left_to_computer=games[e][1], in_time=moves[e][0],
                            by_autopilot=moves[e][1],
                            median_seconds=round(statistics.median(waits[e])) if waits[e] else None)
             for e in wanted}
    return {e: found.get(normal(e), Reliability()) for e in asked}


def reliability_of(session: Session, emails: Iterable[str]) -> dict[str, Reliability]:
    """:func:`reliability` keyed by each address as seats keep it (lower case)."""
    return {normal(e): r for e, r in reliability(session, emails).items() if normal(e)}


def rating_of(session: Session, email: str) -> float:
    """A person's rating as a table's range reads it: the ordinal (``mu - 3
    sigma``) of :mod:`.ratings`, 0 for someone never rated."""
    row = session.exec(select(Rating).where(col(Rating.address_hash) == address_hash(email))).first()
    return 0.0 if row is None else round(row.mu - 3 * row.sigma, 1)
