"""The correspondence clock's time arithmetic (``pbem.games.clocks``), pure: weekends
off in a player's own time zone, across summer time, and what a move leaves in the bank."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from pbem.games import clocks
from pbem.games.clocks import Clock, after_move, deadline_after, running_between
from zoneinfo import ZoneInfo

UTC = timezone.utc
BUDAPEST, NEW_YORK = "Europe/Budapest", "America/New_York"


def local(zone: str, *args: int) -> datetime:
    return datetime(*args, tzinfo=ZoneInfo(zone)).astimezone(UTC)  # type: ignore[misc]


@pytest.mark.parametrize("zone", [BUDAPEST, NEW_YORK, None])
def test_two_days_from_friday_evening_end_on_tuesday_evening(zone: str | None) -> None:
    start = local(zone or "UTC", 2026, 12, 4, 18, 0)  # a Friday, 18:00 where they live
    assert deadline_after(start, timedelta(days=2), zone, weekends_off=True) == local(zone or "UTC", 2026, 12, 8, 18, 0)
    assert deadline_after(start, timedelta(days=2), zone, weekends_off=False) == start + timedelta(days=2)


def test_one_instant_is_a_weekend_in_one_zone_and_not_in_another() -> None:
    start = datetime(2026, 12, 4, 23, 30, tzinfo=UTC)  # Sat 00:30 in Budapest, Fri 18:30 in New York
    day = timedelta(days=1)
    # Budapest's clock starts on Monday 00:00 there; New York's has 5.5 hours before its weekend.
    assert deadline_after(start, day, BUDAPEST, weekends_off=True) == datetime(2026, 12, 7, 23, 0, tzinfo=UTC)
    assert deadline_after(start, day, NEW_YORK, weekends_off=True) == datetime(2026, 12, 7, 23, 30, tzinfo=UTC)
    hour_later = start + timedelta(hours=1)
    assert running_between(start, hour_later, BUDAPEST, weekends_off=True) == timedelta(0)
    assert running_between(start, hour_later, NEW_YORK, weekends_off=True) == timedelta(hours=1)


def test_a_weekend_with_a_change_of_summer_time_is_still_two_local_days() -> None:
    # Budapest goes to summer time on Sunday 28 March 2027: Friday noon plus a day is Monday noon, local.
    start = local(BUDAPEST, 2027, 3, 26, 12, 0)
    end = deadline_after(start, timedelta(days=1), BUDAPEST, weekends_off=True)
    assert end == local(BUDAPEST, 2027, 3, 29, 12, 0) == datetime(2027, 3, 29, 10, 0, tzinfo=UTC)
    assert running_between(start, end, BUDAPEST, weekends_off=True) == timedelta(days=1)


@pytest.mark.parametrize("zone", [BUDAPEST, NEW_YORK, "Asia/Kathmandu"])
def test_the_time_a_clock_ran_until_its_deadline_is_its_bank(zone: str) -> None:
    start = datetime(2026, 10, 20, 0, 0, tzinfo=UTC)
    for hours in range(0, 24 * 14, 5):  # a start every five hours over two weeks, summer time's end included
        at = start + timedelta(hours=hours, minutes=17)
        for bank in (timedelta(hours=1), timedelta(hours=30), timedelta(days=4, hours=3)):
            end = deadline_after(at, bank, zone, weekends_off=True)
            assert running_between(at, end, zone, weekends_off=True) == bank, (at, bank)
            assert end.astimezone(ZoneInfo(zone)).weekday() < 5 or end.astimezone(ZoneInfo(zone)).time() \
                == datetime.min.time()  # never lapses inside a weekend (at most on Saturday's stroke of midnight)


def test_a_move_takes_its_time_from_the_bank_adds_the_increment_and_caps_it() -> None:
    clock = Clock(days=3, increment_hours=12, max_days=4)
    assert after_move(timedelta(days=3), timedelta(hours=10), clock) == timedelta(hours=74)
    assert after_move(timedelta(hours=90), timedelta(0), clock) == timedelta(days=4)  # 102 hours, capped
    assert after_move(timedelta(hours=5), timedelta(days=9), clock) == timedelta(hours=12)  # never below nothing
    assert clocks.turn_deadline(datetime(2026, 12, 1, tzinfo=UTC), timedelta(0), None, weekends_off=False) \
        == datetime(2026, 12, 1, 1, 0, tzinfo=UTC)  # a turn lasts at least an hour
    assert running_between(datetime(2026, 12, 2, tzinfo=UTC), datetime(2026, 12, 1, tzinfo=UTC), None,
                           weekends_off=True) == timedelta(0)


def test_an_unknown_zone_counts_as_utc() -> None:
    assert clocks.zone_of("Mars/Olympus") is UTC and clocks.zone_of(None) is UTC
