"""The table messages players reported (``pbem admin reports``): newest first,
each with its game, the message as written, who reported it (their seat and
name at that table) and when, and the reason they gave.  No address: the
operator looks a game up with ``pbem admin game`` when they must."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import col, select

from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core.models import Game, Seat, TableMessage
from ..core.people_tables import TalkReport


@dataclass(frozen=True)
class ReportRow:
    id: int
    game: str
    message: int
    text: str
    #: Who wrote it: their seat and name at that table.
    author_seat: int
    author: str
    reporter_seat: int
    reporter: str
    reason: str | None
    at: datetime


def list_reports(ctx: Context, limit: int = 100) -> list[ReportRow]:
    """The newest ``limit`` reports."""
    with session_scope(ctx.engine) as session:
        rows = session.exec(
            select(TalkReport, Game.public_id, TableMessage)
            .join(TableMessage, col(TableMessage.id) == col(TalkReport.message_id))
            .join(Game, col(Game.id) == col(TalkReport.game_id))
            .order_by(col(TalkReport.id).desc()).limit(max(1, limit))).all()
        wanted = {r.seat_id for r, _, _ in rows} | {m.seat_id for _, _, m in rows}
        seats = {s.id: s for s in session.exec(select(Seat).where(col(Seat.id).in_(wanted)))} if wanted else {}
        out = []
        for report, game, message in rows:
            assert report.id is not None and message.id is not None  # stored rows
            author, reporter = seats[message.seat_id], seats[report.seat_id]
            out.append(ReportRow(id=report.id, game=game, message=message.id, text=message.text,
                                 author_seat=author.position, author=author.name, reporter_seat=reporter.position,
                                 reporter=reporter.name, reason=report.reason, at=as_utc(report.created_at)))
        return out
