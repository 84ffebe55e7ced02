"""Vacation spent by the clock: when a person's deadline lapses, a day of their
vacation bank moves it on by a day of their clock, before the autopilot would
move for them (not in a game started with ``"vacation": "off"``)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col

from ..core.context import Context
from ..core.models import Game, GameStatus, Seat
from ..people import vacation
from . import clocks


class _NoDays(Exception):
    """The bank was emptied by another spend between the look and the claim."""


def spend_day(ctx: Context, session: Session, game: Game, seat: Seat, deadline: datetime, now: datetime) -> bool:
    """Spend a vacation day on this lapsed deadline, in the caller's transaction.
    ``True`` when the deadline is no longer the autopilot's: a day was spent (the
    deadline moves on a day, and a reminder is due again), or another clock
    spent it first.  ``False``: no day to spend, the game has vacation off, or
    the seat is the computer's: the autopilot moves."""
    if game.vacation_off or seat.bot is not None:
        return False
    if vacation.days_left(session, seat.email, now, ctx.config) < 1:
        return False
    later = clocks.deadline_after(deadline, timedelta(days=1), seat.time_zone, weekends_off=game.weekends_off)
    try:
        with session.begin_nested():
            # Only one clock may spend a day on this deadline: the claim is the
            # deadline itself, so a second beat finds it moved and does nothing.
            claimed = session.exec(
                update(Game).where(col(Game.id) == game.id, col(Game.ply) == game.ply,
                                   col(Game.status) == GameStatus.ACTIVE, col(Game.deadline) == deadline)
                .values(deadline=later, reminded_for=None))
            if claimed.rowcount != 1:
                return True
            if not vacation.spend(session, seat.email, 1, now, ctx.config):
                raise _NoDays
    except _NoDays:
        return False
    return True
