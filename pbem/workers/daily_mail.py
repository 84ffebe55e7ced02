"""The clock's daily mail (issue 31): at the hour each person chose, in their
zone, one mail listing every game where it is their turn.

Claimed and idempotent: a person's day is claimed by moving their row's
``last_day`` to today's local date in one guarded UPDATE, and the mail is
written in the same transaction (event ``daily:DAY``), so two beats, or a beat
every minute, write at most one mail per person and local day.  It goes in the
hour chosen or the next few (a clock that was down at that hour catches up), and
not at all on a day when nothing waits on them."""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy import or_, update
from sqlmodel import col, select

from ..core import events
from ..core.context import Context
from ..core.daily_tables import DailyMail
from ..core.db import session_scope
from ..core.events import Event
from ..core.models import MailChoice
from ..core.outbox import OutboxKind, enqueue
from ..games.daily import seats_language, seats_zone
from ..games.waiting import waiting_in
from ..words.language import zone

log = logging.getLogger(__name__)

#: A day's mail still goes this many hours after the chosen one (a clock that
#: was down); later, the day is skipped rather than mailed at an odd hour.
CATCH_UP_HOURS = 3


def local_day(now: datetime, hour: int, zone_name: str) -> str | None:
    """The local date whose daily mail is due now, if it is: from the chosen
    hour to :data:`CATCH_UP_HOURS` after it, in the person's zone."""
    local = now.astimezone(zone(zone_name))
    if hour <= local.hour < hour + CATCH_UP_HOURS:
        return local.date().isoformat()
    return None


def send_daily(ctx: Context) -> list[int]:
    """Write the daily mail of every person whose hour it is and whose day is
    not claimed yet; returns the outbox ids written (handed to the relay)."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        due = []
        for row in session.exec(select(DailyMail).where(col(DailyMail.on).is_(True))):
            day = local_day(now, row.hour, row.time_zone or seats_zone(session, row.email))
            if day is not None and day != row.last_day:
                due.append((row.id, row.email, day))
    written: list[int] = []
    for row_id, email, day in due:
        with session_scope(ctx.engine) as session:
            # Only one clock claims this person's day; it was switched off since: nothing.
            claimed = session.exec(update(DailyMail).where(
                col(DailyMail.id) == row_id, col(DailyMail.on).is_(True),
                or_(col(DailyMail.last_day).is_(None), col(DailyMail.last_day) != day),
            ).values(last_day=day))
            if claimed.rowcount != 1:
                continue
            if not any(x.seat.mail != MailChoice.NONE for x in waiting_in(session, email)):
                continue  # nothing waits on them today: no mail
            new = enqueue(session, kind=OutboxKind.DAILY, event=events.key(Event.DAILY, day), recipient=email,
                          base_url=ctx.base_url, now=now, language=seats_language(session, email))
        if new is not None:
            written.append(new)
    ctx.relay(written)
    return written
