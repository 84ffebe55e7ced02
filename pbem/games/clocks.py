"""A correspondence clock's time arithmetic, pure (no database, no ``Context``):
how much of a player's clock ran between two instants, when a bank of time runs
out, and what a move leaves in the bank.

With weekends off a player's clock stops from Saturday 00:00 to Monday 00:00 in
their own time zone (UTC when they chose none).  Every sum and difference is
taken in UTC: Python adds and subtracts two times of one zone by their wall
clocks, which would be an hour off across a change of summer time.

>>> from datetime import datetime, timedelta, timezone
>>> friday = datetime(2026, 12, 4, 18, 0, tzinfo=timezone.utc)   # a Friday, 18:00
>>> deadline_after(friday, timedelta(days=2), "UTC", weekends_off=True)
datetime.datetime(2026, 12, 8, 18, 0, tzinfo=datetime.timezone.utc)
>>> running_between(friday, friday + timedelta(days=3), "UTC", weekends_off=True)
datetime.timedelta(days=1)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

#: Saturday and Sunday (``datetime.weekday``).
WEEKEND = (5, 6)
#: However little is left in a bank, a turn lasts at least this long: a player
#: whose bank the autopilot emptied still has the time to open their mail.
MIN_TURN = timedelta(hours=1)


@dataclass(frozen=True)
class Clock:
    """A game's correspondence clock: ``days`` to start with, ``increment_hours``
    added after each move, the bank never above ``max_days``."""

    days: int
    increment_hours: int
    max_days: int

    @property
    def start(self) -> timedelta:
        return timedelta(days=self.days)

    @property
    def increment(self) -> timedelta:
        return timedelta(hours=self.increment_hours)

    @property
    def cap(self) -> timedelta:
        return timedelta(days=self.max_days)


def zone_of(name: str | None) -> ZoneInfo | timezone:
    """A seat's time zone (UTC when none is chosen, or if the name is unknown here)."""
    if not name:
        return timezone.utc
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return timezone.utc


def _utc(when: datetime) -> datetime:
    return when.astimezone(timezone.utc)


def _stops(when: datetime, zone: ZoneInfo | timezone) -> tuple[datetime, datetime]:
    """The weekend that ``when`` is in or comes next, as (start, end) in UTC."""
    local = when.astimezone(zone)
    day = local.date()
    # Back to this week's Saturday when inside the weekend, else on to the next one.
    saturday = day - timedelta(days=day.weekday() - 5) if day.weekday() in WEEKEND \
        else day + timedelta(days=5 - day.weekday())
    start = datetime.combine(saturday, time(0), tzinfo=zone)
    end = datetime.combine(saturday + timedelta(days=2), time(0), tzinfo=zone)
    return _utc(start), _utc(end)


def deadline_after(start: datetime, bank: timedelta, zone_name: str | None, *, weekends_off: bool) -> datetime:
    """When a clock started at ``start`` with ``bank`` on it runs out (weekends
    skipped with ``weekends_off``)."""
    at, left = _utc(start), max(bank, timedelta(0))
    if not weekends_off:
        return at + left
    zone = zone_of(zone_name)
    while True:
        weekend, monday = _stops(at, zone)
        if at >= weekend:  # inside a weekend: nothing runs until Monday
            at = monday
            continue
        if left <= weekend - at:
            return at + left
        left -= weekend - at
        at = monday


def running_between(start: datetime, end: datetime, zone_name: str | None, *, weekends_off: bool) -> timedelta:
    """How long a player's clock ran from ``start`` to ``end`` (nothing if
    ``end`` is not after ``start``)."""
    at, end = _utc(start), _utc(end)
    if end <= at:
        return timedelta(0)
    if not weekends_off:
        return end - at
    zone = zone_of(zone_name)
    ran = timedelta(0)
    while at < end:
        weekend, monday = _stops(at, zone)
        if at >= weekend:
            at = monday
            continue
        ran += min(end, weekend) - at
        at = monday
    return ran


def after_move(bank: timedelta, used: timedelta, clock: Clock) -> timedelta:
    """What a move leaves in the bank: the time used taken away (never below
    nothing), the increment added, at most the cap.

    >>> c = Clock(days=3, increment_hours=12, max_days=4)
    >>> after_move(timedelta(days=3), timedelta(hours=10), c)
    datetime.timedelta(days=3, seconds=7200)
    >>> after_move(timedelta(days=4), timedelta(hours=1), c)
    datetime.timedelta(days=4)
    >>> after_move(timedelta(hours=5), timedelta(days=2), c)
    datetime.timedelta(seconds=43200)
    """
    return min(max(bank - used, timedelta(0)) + clock.increment, clock.cap)


def turn_deadline(start: datetime, bank: timedelta, zone_name: str | None, *, weekends_off: bool) -> datetime:
    """A clocked turn's deadline: the bank from ``start``, but at least :data:`MIN_TURN`."""
    return deadline_after(start, max(bank, MIN_TURN), zone_name, weekends_off=weekends_off)
