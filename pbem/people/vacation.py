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
from functools import lru_cache
from typing import Any, Iterable, Mapping

from sqlalchemy import update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from ..core.db import as_utc
from ..core.models import table_of
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


def _fresh(session: Session, key: str) -> VacationBank | None:
    """The person's row as the database holds it now (``None``: they have none)."""
    fresh = select(VacationBank).where(VacationBank.address_hash == key).execution_options(populate_existing=True)
    return session.exec(fresh).first()


@lru_cache(maxsize=None)
def _insert(dialect: str) -> Any:
    # Two first spends at once: the second inserts nothing (no error, no savepoint) and reads the first's row.
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    table = table_of(VacationBank)
    return insert(table).on_conflict_do_nothing(index_elements=[table.c.address_hash]).returning(table.c.id)


#: People's banks a transaction has read already (``session.info[KNOWN][mailbox_hash]``:
#: the row, or ``None`` for none), e.g. with the rest of a mail's reader
#: (:mod:`pbem.mail.reader`), or all the lapsed movers' at once (:func:`banks`).
KNOWN = "pbem.vacation_known"
#: Not in ``KNOWN``: read it.
_UNREAD = object()


def banks(session: Session, emails: Iterable[str]) -> dict[str, VacationBank | None]:
    """These people's banks in one statement, as ``KNOWN`` holds them (every
    person's mailbox hash: their row, or ``None`` for none)."""
    keys = {mailbox_hash(e) for e in emails if e}
    if not keys:
        return {}
    found: dict[str, VacationBank | None] = dict.fromkeys(keys)
    for row in session.exec(select(VacationBank).where(col(VacationBank.address_hash).in_(keys))):
        found[row.address_hash] = row
    return found


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
    transaction; ``False`` (nothing taken) if they do not have them.

    The first try starts from what the transaction read already (``KNOWN``:
    the clock reads every lapsed mover's bank at once), else from a fresh
    read; either way the write holds only if the row still holds what was
    seen, and a refusal is made on a fresh read only.  A person with no row
    yet gets theirs written already spent: a full year's less these days."""
    per_year = yearly(config)
    if not email or days < 1:
        return False
    key = mailbox_hash(email)
    known = session.info.get(KNOWN, {})
    seen: Any = known.get(key, _UNREAD)
    fresh = False
    for _ in range(TRIES):
        if seen is _UNREAD:
            seen, fresh = _fresh(session, key), True
        if seen is None:
            if per_year < days:
                return False
            conn = session.connection()
            made = conn.execute(_insert(conn.dialect.name),
                                {"address_hash": key, "days": float(per_year - days), "updated_at": now})
            if made.scalar_one_or_none() is not None:
                known.pop(key, None)
                return True
            seen = _UNREAD  # another spend made the row first: spend from it
            continue
        seen_days, seen_at = seen.days, seen.updated_at
        have = accrued(seen_days, as_utc(seen_at) or now, now, per_year)
        if have < days:
            if fresh:
                return False
            seen = _UNREAD
            continue
        changed = session.exec(
            update(VacationBank).where(col(VacationBank.id) == seen.id, col(VacationBank.days) == seen_days,
                                       col(VacationBank.updated_at) == seen_at)
            .values(days=have - days, updated_at=now))
        if changed.rowcount == 1:
            if seen in session:
                session.expire(seen)
            known.pop(key, None)  # what was read is no longer so
            return True
        seen = _UNREAD
    return False
