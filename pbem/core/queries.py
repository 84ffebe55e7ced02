"""Queries that more than one layer asks: the clock decides from them whether a
digest is due, and mail delivery what it reports (the moves and the table talk
since the reader last had them)."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, func, or_
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select, SelectOfScalar

from .db import as_utc
from .models import Game, MoveRecord, Outbox, OutboxStatus, Seat, TableMessage
from .outbox import OutboxKind
from .people_tables import Block


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
                                            Outbox.kind == OutboxKind.DIGEST,
                                            col(Outbox.status).in_([OutboxStatus.PENDING, OutboxStatus.SENT]))
    if before_id is not None:
        query = query.where(col(Outbox.id) < before_id)
    return as_utc(session.exec(query.order_by(col(Outbox.id).desc()).limit(1)).first())


def _seen_mail(seat: Seat, before_id: int | None) -> SelectOfScalar[datetime]:
    mail = select(Outbox.created_at).where(Outbox.game_id == seat.game_id, Outbox.seat_id == seat.id,
                                           col(Outbox.kind).in_([OutboxKind.TURN, OutboxKind.DIGEST]),
                                           Outbox.status == OutboxStatus.SENT)
    if before_id is not None:
        mail = mail.where(col(Outbox.id) < before_id)
    return mail.order_by(col(Outbox.id).desc()).limit(1)


def _seen_move(seat: Seat) -> SelectOfScalar[datetime]:
    return select(MoveRecord.created_at).where(
        MoveRecord.game_id == seat.game_id, MoveRecord.position == seat.position,
        col(MoveRecord.by_autopilot).is_(False)).order_by(col(MoveRecord.ply).desc()).limit(1)


def table_seen_at(session: Session, seat: Seat, before_id: int | None = None) -> datetime | None:
    """When this seat last had the table before it: the last turn mail or digest
    that went to it (they show the new messages), else its own last move (made
    on the seat page, which shows them), else never.  A mail that was skipped
    or failed showed nothing, so it does not count."""
    last_mail = session.exec(_seen_mail(seat, before_id)).first()
    if last_mail is not None:
        return as_utc(last_mail)
    return as_utc(session.exec(_seen_move(seat)).first())


def table_news_unseen(session: Session, seat: Seat, before_id: int | None = None,
                      limit: int = 20) -> tuple[list[tuple[str, str, datetime]], int]:
    """:func:`table_news` since :func:`table_seen_at`, asked in one statement: a
    turn mail asks it for a table that mostly has nothing new."""
    rows = None
    if before_id is not None:
        # A mail's (it names its row): the statement built once.
        rows = [(name, text, at) for name, text, at in session.execute(_unseen_news(), {
            "game": seat.game_id, "seat": seat.id, "position": seat.position, "email": seat.email,
            "before": before_id, "limit": limit + 1})]
        if len(rows) <= limit:
            return _listed(rows), 0
    since = func.coalesce(_seen_mail(seat, before_id).scalar_subquery(), _seen_move(seat).scalar_subquery())
    return _news(session, seat, since, limit, rows)


@lru_cache(maxsize=1)
def _unseen_news() -> Select[str, str, datetime]:
    """:func:`_news`'s statement for :func:`table_news_unseen` of a seat's
    mail, its values as parameters: building it for every turn mail cost more
    CPU than running it."""
    mail = (select(Outbox.created_at).where(Outbox.game_id == bindparam("game"), Outbox.seat_id == bindparam("seat"),
                                           col(Outbox.kind).in_([OutboxKind.TURN, OutboxKind.DIGEST]),
                                           Outbox.status == OutboxStatus.SENT, col(Outbox.id) < bindparam("before"))
            .order_by(col(Outbox.id).desc()).limit(1))
    move = (select(MoveRecord.created_at).where(
        MoveRecord.game_id == bindparam("game"), MoveRecord.position == bindparam("position"),
        col(MoveRecord.by_autopilot).is_(False)).order_by(col(MoveRecord.ply).desc()).limit(1))
    since = func.coalesce(mail.scalar_subquery(), move.scalar_subquery())
    return _news_query(bindparam("game"), bindparam("seat"), bindparam("email"),
                       or_(since.is_(None), col(TableMessage.created_at) > since)).limit(bindparam("limit"))


def table_news(session: Session, seat: Seat, since: datetime | None,
               limit: int = 20) -> tuple[list[tuple[str, str, datetime]], int]:
    """The table messages of the seat's game written by the others after
    ``since`` (all of them for ``None``): the newest ``limit`` as (author,
    text, time), oldest first, and how many earlier ones there are besides.
    Those of people the reader blocked are left out (``pbem.people.blocks``)."""
    return _news(session, seat, since, limit)


def _news_query(game: Any, seat: Any, email: Any, after: Any) -> Select[str, str, datetime]:
    """The others' table messages of ``game`` after ``after`` (a condition, or
    ``None``: all), newest first, without those of people ``email`` blocked."""
    unblocked = col(Seat.email).not_in(select(Block.blocked).where(Block.blocker == email))
    query = (select(Seat.name, TableMessage.text, TableMessage.created_at)
             .join(Seat, col(Seat.id) == col(TableMessage.seat_id))
             .where(TableMessage.game_id == game, TableMessage.seat_id != seat, unblocked))
    if after is not None:
        query = query.where(after)
    return query.order_by(col(TableMessage.id).desc())


def _news(session: Session, seat: Seat, since: Any, limit: int,
          rows: list[tuple[str, str, datetime]] | None = None) -> tuple[list[tuple[str, str, datetime]], int]:
    # ``since``: a time, None (all), or an SQL expression that may be NULL (all).
    # ``rows``: the newest ``limit + 1`` messages, if already asked.
    after: Any = None
    if isinstance(since, datetime):
        after = col(TableMessage.created_at) > since
    elif since is not None:
        after = or_(since.is_(None), col(TableMessage.created_at) > since)
    unblocked = col(Seat.email).not_in(select(Block.blocked).where(Block.blocker == seat.email))
    if rows is None:
        rows = [(name, text, at) for name, text, at in session.execute(
            _news_query(seat.game_id, seat.id, seat.email, after).limit(limit + 1))]
    more = 0
    if len(rows) > limit:
        count = select(func.count()).select_from(TableMessage).join(
            Seat, col(Seat.id) == col(TableMessage.seat_id)).where(
            TableMessage.game_id == seat.game_id, TableMessage.seat_id != seat.id, unblocked)
        if after is not None:
            count = count.where(after)
        more = int(session.exec(count).one()) - limit
        rows = rows[:limit]
    return _listed(rows), more


def _listed(rows: list[tuple[str, str, datetime]]) -> list[tuple[str, str, datetime]]:
    """Rows newest first as news: oldest first, in UTC."""
    news = []
    for name, text, at in reversed(rows):
        when = as_utc(at)
        assert when is not None  # a stored row has its time
        news.append((name, text, when))
    return news


def about_game(engine: Engine, game_id: int | None) -> dict[str, str]:
    """``extra`` for a log line about the game with this row id: its public id
    (what the operator's commands take).  Asked only on the paths that log (a
    failure), and never a reason to fail: an unreachable database gives ``{}``."""
    if game_id is None:
        return {}
    try:
        with Session(engine) as session:
            public_id = session.exec(select(Game.public_id).where(col(Game.id) == game_id)).first()
    except Exception:  # noqa: BLE001 - the line is logged all the same, without the id
        return {}
    return {"game": public_id} if public_id else {}
