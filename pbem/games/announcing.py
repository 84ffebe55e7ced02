"""What a new position sets going: its deadline, the turn or game-over mail, the
push and the webhook posts, and the computer's turn (handed on after the commit)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Sequence

from sqlmodel import Session

from .. import rules
from ..core.context import Context
from ..core.db import as_utc
from ..core.events import Event
from ..core.models import Game, GameStatus, Seat
from ..core.outbox import Outgoing, OutboxKind, insert_row, row_values
from . import push_turn, webhook_events


#: If no worker has moved for the computer this long after its pause, the
#: clock does (its deadline passes).
COMPUTER_GRACE = timedelta(minutes=2)


def deadline_for(ctx: Context, game: Game, seats: Sequence[Seat], position: rules.Game,
                 now: datetime) -> datetime | None:
    """When the seat to move runs out of time: ``turn_hours`` from now, or from the
    end of their pause if they are on vacation (``None`` once the game is over).
    The computer's time is its pause and a short grace: if no worker moved for
    it by then, the clock does."""
    if position.turn is None:
        return None
    if seats[position.turn].bot is not None:
        return now + timedelta(seconds=float(ctx.config["BOT_DELAY"])) + COMPUTER_GRACE
    paused = as_utc(seats[position.turn].paused_until)
    start = paused if paused is not None and paused > now else now
    return start + timedelta(hours=game.turn_hours)


def turn_mail(ctx: Context, session: Session, game: Game, seats: list[Seat], position: rules.Game,
              now: datetime) -> list[int | None]:
    """The messages a new position calls for, written: the next player's turn, or
    the end (and the posts to the game's webhooks: the start, a person's turn,
    the end).  The ids of the new rows, for the relay after the commit."""
    return written(session, planned_mail(ctx, session, game, seats, position, now))


def written(session: Session, planned: list[dict[str, Any]]) -> Outgoing:
    """Write planned rows; their ids, knowing which are posts (webhooks', pushes)."""
    ids = [insert_row(session, values) for values in planned]
    return outgoing(planned, ids)


def outgoing(planned: list[dict[str, Any]], ids: Sequence[int | None]) -> Outgoing:
    # Webhook posts and pushes are HTTP posts: the relay hands them to their own queue.
    return Outgoing(ids, (i for i, values in zip(ids, planned) if values["kind"] in _POSTS))


_POSTS = (OutboxKind.WEBHOOK, OutboxKind.PUSH)


def planned_mail(ctx: Context, session: Session, game: Game, seats: list[Seat], position: rules.Game,
                 now: datetime) -> list[dict[str, Any]]:
    """The outbox rows (:func:`pbem.core.outbox.row_values`) :func:`turn_mail`
    writes, not yet written: a move writes them with the position, at once."""
    turn = position.turn
    event = webhook_events.event_of(position.ply, turn is None, seats, turn)
    posts = [] if event is None else webhook_events.planned_posts(session, game, event, base_url=ctx.base_url,
                                                                  now=now)
    if turn is None:  # the game is over
        return posts + [row_values(kind=OutboxKind.GAME_OVER, event=Event.OVER, recipient=s.email, seat_id=s.id,
                                   base_url=ctx.base_url, now=now, game_id=game.id)
                        for s in seats if s.bot is None and s.email]
    seat = seats[turn]
    if seat.bot is not None:
        return posts
    # The push, the turn mail, or both (the seat's push mode).
    return posts + push_turn.planned_notices(session, game, seat, position.ply, base_url=ctx.base_url, now=now)


def computer_turn(game: Game, seats: Sequence[Seat]) -> tuple[int, int] | None:
    """``(game id, ply)`` if the computer is to move in this game."""
    turn = game.turn_seat
    if game.status != GameStatus.ACTIVE or turn is None or game.id is None or seats[turn].bot is None:
        return None
    return game.id, game.ply


def hand_on(ctx: Context, turn: tuple[int, int] | None) -> None:
    """After the commit: let a worker move for the computer."""
    if turn is not None:
        ctx.computer(*turn)
