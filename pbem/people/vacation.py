"""A person's vacation bank: ``PBEM_VACATION_DAYS`` a year, accruing day by day
and never more than a year's worth (what carries over into a new year is at
most the yearly amount); a person seen for the first time starts with a full
year's.  Pauses spend from it, and so does the clock when a deadline would
lapse (a day at a time, ``pbem.games.autopilot``).

Two clocks, or a clock and a pause in another game of the same person, may
spend at once: a spend writes the row only if it still holds what was read
(compare and set), and reads it again if not."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Mapping

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ..core.db import as_utc
from ..core.vacation_tables import VacationBank
from .players import mailbox_hash

YEAR = timedelta(days=365)
#: Tries of a spend that lost a race with another spend of the same person.
TRIES = 5


def yearly(config: Mapping[str, Any]) -> int:
    return int(config["VACATION_DAYS"])


def accrued(days: float, since: datetime, now: datetime, per_year: int) -> float:
    """What a bank of ``days`` at ``since`` holds at ``now``: a year's days
    accrue over the year, at most ``per_year`` in all.

    >>> from datetime import timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> accrued(2.0, t, t + timedelta(days=73), 10), accrued(9.0, t, t + YEAR, 10)
    (4.0, 10.0)
    """
    gained = per_year * max(timedelta(0), now - since) / YEAR
    return min(float(per_year), days + gained)


def _row(session: Session, email: str, now: datetime, per_year: int) -> VacationBank:
    """The person's row as the database holds it now (made, full, if they have none)."""
    key = mailbox_hash(email)
    fresh = select(VacationBank).where(VacationBank.address_hash == key).execution_options(populate_existing=True)
    row = session.exec(fresh).first()
    if row is not None:
        return row
    try:
        with session.begin_nested():  # two first spends at once: the second finds the row
            session.add(VacationBank(address_hash=key, days=float(per_year), updated_at=now))
    except IntegrityError:
        pass
    row = session.exec(fresh).first()
    assert row is not None
    return row


#: People's banks a transaction has read already (``session.info[KNOWN][mailbox_hash]``:
#: the row, or ``None`` for none), e.g. with the rest of a mail's reader
#: (:mod:`pbem.mail.reader`).
KNOWN = "pbem.vacation_known"


def days_left(session: Session, email: str, now: datetime, config: Mapping[str, Any]) -> float:
    """The vacation days this person has now (a fraction while a day accrues)."""
    per_year = yearly(config)
    if not email:
        return 0.0
    known = session.info.get(KNOWN, {})
    digest = mailbox_hash(email)
    if digest in known:
        row = known[digest]
    else:
        row = session.exec(select(VacationBank).where(VacationBank.address_hash == digest)).first()
    if row is None:
        return float(per_year)
    return accrued(row.days, as_utc(row.updated_at) or now, now, per_year)


def spend(session: Session, email: str, days: int, now: datetime, config: Mapping[str, Any]) -> bool:
    """Take ``days`` whole days from this person's bank, in the caller's
    transaction; ``False`` (nothing taken) if they do not have them."""
    per_year = yearly(config)
    if not email or days < 1:
        return False
    for _ in range(TRIES):
        row = _row(session, email, now, per_year)
        seen_days, seen_at = row.days, row.updated_at
        have = accrued(seen_days, as_utc(seen_at) or now, now, per_year)
        if have < days:
            return False
        changed = session.exec(
            update(VacationBank).where(col(VacationBank.id) == row.id, col(VacationBank.days) == seen_days,
                                       col(VacationBank.updated_at) == seen_at)
            .values(days=have - days, updated_at=now))
        if changed.rowcount == 1:
            session.expire(row)
            return True
    return False
