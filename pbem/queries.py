"""Queries that more than one layer asks: the clock decides from them whether a
digest is due, and mail delivery what it reports."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from .db import as_utc
from .models import Game, MoveRecord, Outbox, Seat


def digest_news(session: Session, seat: Seat, game: Game, before_id: int | None = None) -> SelectOfScalar[int]:
    """The plies of the moves a digest reports: those after the seat's previous
    digest, or every move since the start for the first one."""
    query = select(MoveRecord.ply).where(MoveRecord.game_id == game.id)
    since = last_digest_at(session, seat, before_id)
    if since is not None:
        query = query.where(col(MoveRecord.created_at) > since)
    return query.order_by(col(MoveRecord.ply))


def last_digest_at(session: Session, seat: Seat, before_id: int | None = None) -> datetime | None:
    """When this seat's previous digest was written (its news start after it)."""
    # The seat's game narrows the search to that game's mail (an indexed column).
    query = select(Outbox.created_at).where(Outbox.game_id == seat.game_id, Outbox.seat_id == seat.id,
                                            Outbox.kind == "digest",
                                            col(Outbox.status).in_(["pending", "sent"]))
    if before_id is not None:
        query = query.where(col(Outbox.id) < before_id)
    return as_utc(session.exec(query.order_by(col(Outbox.id).desc()).limit(1)).first())
