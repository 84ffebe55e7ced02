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
from . import clocks, push_turn, webhook_events


#: If no worker has moved for the computer this long after its pause, the
#: clock does (its deadline passes).
COMPUTER_GRACE = timedelta(minutes=2)


def game_clock(game: Game) -> clocks.Clock | None:
    """The game's correspondence clock, or ``None`` for fixed ``turn_hours``."""
    if game.clock_days is None:
        return None
    return clocks.Clock(days=game.clock_days, increment_hours=game.clock_increment_hours or 0,
                        max_days=game.clock_max_days or game.clock_days)


def turn_start(seat: Seat, now: datetime) -> datetime:
    """When a turn reaching ``seat`` now starts its clock: now, or when their pause ends."""
    paused = as_utc(seat.paused_until)
    return paused if paused is not None and paused > now and seat.bot is None else now


def deadline_for(ctx: Context, game: Game, seats: Sequence[Seat], position: rules.Game,
                 now: datetime) -> datetime | None:
    """When the seat to move runs out of time (``None`` once the game is over):
    ``turn_hours``, or with a clock their bank, from now or from the end of
    their pause if they are on vacation, their weekends left out if the game
    has them off.  The computer's time is its pause and a short grace: if no
    worker moved for it by then, the clock does."""
    if position.turn is None:
        return None
    seat = seats[position.turn]
    if seat.bot is not None:
        return now + timedelta(seconds=float(ctx.config["BOT_DELAY"])) + COMPUTER_GRACE
    clock = game_clock(game)
    start = turn_start(seat, now)
    if clock is None:
        return clocks.deadline_after(start, timedelta(hours=game.turn_hours), seat.time_zone,
                                     weekends_off=game.weekends_off)
    return clocks.turn_deadline(start, timedelta(seconds=seat.bank_seconds or 0), seat.time_zone,
                                weekends_off=game.weekends_off)


def charge_clock(game: Game, seat: Seat, now: datetime) -> None:
    """After ``seat``'s move (theirs or the autopilot's): the time their clock
    ran this turn taken from their bank, the increment added, at most the cap."""
    clock = game_clock(game)
    if clock is None or seat.bot is not None:
        return
    bank = timedelta(seconds=seat.bank_seconds if seat.bank_seconds is not None else clock.start.total_seconds())
    started = as_utc(game.turn_started_at) or now
    used = clocks.running_between(started, now, seat.time_zone, weekends_off=game.weekends_off)
    seat.bank_seconds = int(clocks.after_move(bank, used, clock).total_seconds())


def bank_left(game: Game, seat: Seat, now: datetime) -> timedelta | None:
    """What is in ``seat``'s bank now: for the player to move, less what this
    turn has used so far (``None`` without a clock)."""
    clock = game_clock(game)
    if clock is None:
        return None
    bank = timedelta(seconds=seat.bank_seconds if seat.bank_seconds is not None else clock.start.total_seconds())
    if game.status != GameStatus.ACTIVE or game.turn_seat != seat.position or seat.bot is not None:
        return bank
    started = as_utc(game.turn_started_at) or now
    return max(timedelta(0), bank - clocks.running_between(started, now, seat.time_zone,
                                                           weekends_off=game.weekends_off))


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
