"""The games waiting on a person: where it is their turn, the one who has waited
longest first.  The dashboard lists them and walks them with "next game", the
daily mail lists them, and the calendar feeds show their deadlines.

A person is their address as seats store it (lower case).  What each game says
comes from the game's public view (names and whose turn): nothing hidden."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core.links import seat_link
from ..core.models import Game, GameStatus, MoveRecord, Seat


@dataclass(frozen=True)
class Waiting:
    """A game waiting on the person: their seat in it, since when, and by when."""

    game: str
    seat: Seat
    #: When the turn came to them (the last move, or the start).
    since: datetime
    deadline: datetime | None
    #: The other players' names, in seat order.
    others: list[str]


def address_of(email: str) -> str:
    """A person's key: their address as their seats store it."""
    return email.strip().lower()


def waiting_in(session: Session, email: str) -> list[Waiting]:
    """The running games where it is this person's turn (never a seat the
    computer plays), the longest waiting first."""
    last_move = (select(MoveRecord.game_id, func.max(MoveRecord.created_at).label("at"))
                 .group_by(col(MoveRecord.game_id)).subquery())
    rows = session.exec(
        select(Seat, Game, last_move.c.at).join(Game, col(Game.id) == col(Seat.game_id))
        .outerjoin(last_move, last_move.c.game_id == col(Game.id))
        .where(col(Seat.email) == address_of(email), col(Seat.bot).is_(None), Game.status == GameStatus.ACTIVE,
               col(Game.turn_seat) == col(Seat.position))
    ).all()
    if not rows:
        return []
    names: dict[int, list[tuple[int, str]]] = {}
    for game_id, position, name in session.exec(
            select(Seat.game_id, Seat.position, Seat.name).where(col(Seat.game_id).in_([g.id for _, g, _ in rows]))):
        names.setdefault(game_id, []).append((position, name))
    out = []
    for seat, game, moved_at in rows:
        assert game.id is not None
        since = as_utc(moved_at) or as_utc(game.started_at) or as_utc(game.created_at)
        assert since is not None
        others = [n for p, n in sorted(names.get(game.id, [])) if p != seat.position]
        out.append(Waiting(game=game.public_id, seat=seat, since=since, deadline=as_utc(game.deadline),
                           others=others))
    # The longest waiting first; a game's id breaks ties, so the walk is stable.
    out.sort(key=lambda w: (w.since, w.game))
    return out


def waiting_of(ctx: Context, email: str) -> list[Waiting]:
    """:func:`waiting_in`, in a transaction of its own."""
    with session_scope(ctx.engine) as session:
        return waiting_in(session, email)


def next_waiting(ctx: Context, email: str, after: str | None = None) -> str | None:
    """The seat link of the game to open next: the one after ``after`` (a game's
    public id) among the games waiting on the person, or the first; ``None``
    when no other waits.  A game no longer waiting (just played) leaves the
    list, so the walk goes on from where it stood."""
    waiting = waiting_of(ctx, email)
    chosen = [w for w in waiting if w.game != after]
    if after is not None:
        ids = [w.game for w in waiting]
        if after in ids:
            # After the current one, then round again to the ones before it.
            at = ids.index(after)
            chosen = waiting[at + 1:] + waiting[:at]
    return seat_link(ctx, chosen[0].seat) if chosen else None


def seat_link_of(ctx: Context, game: Waiting) -> str:
    return seat_link(ctx, game.seat)
