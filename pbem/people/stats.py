"""A player's stats, by address, for their own signed-in dashboard: only
finished games count (a running game's clan is nobody's business but its
seat's), with every seat the address had in them; practice games
(``Game.practice_of``) never count.

Reliability is the share of a person's moves they made themselves rather than
the autopilot at their deadline.  Moves the computer made in a seat handed to
it (from ``Seat.bot_from`` on) are nobody's: they count neither way."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import and_, func, or_
from sqlmodel import col, select

from ..core.context import Context
from ..core.db import session_scope
from ..core.models import Game, GameStatus, MoveRecord, Seat
from ..rules.tables import CLANS


@dataclass(frozen=True)
class Stats:
    games: int
    wins: int
    #: Mean final score (clan score plus chips), ``None`` with no finished game.
    average_score: float | None
    #: How many finished games with each clan, in the rules' order of clans.
    clans: dict[str, int] = field(default_factory=dict)
    on_time: int = 0
    by_autopilot: int = 0

    @property
    def reliability(self) -> int | None:
        """Percent of their moves they made themselves (``None`` before any move)."""
        moves = self.on_time + self.by_autopilot
        return None if moves == 0 else round(100 * self.on_time / moves)


def stats_of(ctx: Context, email: str) -> Stats:
    address = email.strip().lower()
    with session_scope(ctx.engine) as session:
        seats = session.exec(
            select(Seat.clan, Seat.final_score, Seat.won)
            .join(Game, col(Game.id) == col(Seat.game_id))
            .where(col(Seat.email) == address, col(Game.status) == GameStatus.FINISHED,
                   col(Game.practice_of).is_(None))
        ).all()
        moves = session.exec(
            select(MoveRecord.by_autopilot, func.count())
            .join(Seat, and_(col(Seat.game_id) == col(MoveRecord.game_id),
                             col(Seat.position) == col(MoveRecord.position)))
            .join(Game, col(Game.id) == col(Seat.game_id))
            .where(col(Seat.email) == address, col(Game.status) == GameStatus.FINISHED,
                   col(Game.practice_of).is_(None),
                   or_(col(Seat.bot_from).is_(None), col(MoveRecord.ply) < col(Seat.bot_from)))
            .group_by(col(MoveRecord.by_autopilot))
        ).all()
    scores = [score for _, score, _ in seats if score is not None]
    played = Counter(clan for clan, _, _ in seats if clan)
    counted = dict(moves)
    return Stats(
        games=len(seats),
        wins=sum(1 for _, _, won in seats if won),
        average_score=round(sum(scores) / len(scores), 1) if scores else None,
        clans={c: played[c] for c in CLANS if played[c]},
        on_time=int(counted.get(False, 0)),
        by_autopilot=int(counted.get(True, 0)),
    )
