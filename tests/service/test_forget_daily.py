"""``pbem admin forget`` erases a person's daily mail setting and their calendar
feeds (the person's and their seats'): their old feed addresses open nothing."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from pbem.core import errors
from pbem.core.daily_tables import CalendarFeed, DailyMail
from pbem.core.db import session_scope
from pbem.games import calendar, daily
from pbem.ops import admin
from tests.support.games import new_game


def test_forget_erases_the_daily_mail_and_the_calendars(ctx: Any) -> None:
    _, toks = new_game(ctx, 2)
    daily.set_daily(ctx, "ann@example.org", on=True, hour=8, time_zone="")
    person = calendar.person_feed(ctx, "ann@example.org", make=True)
    seats = [calendar.seat_feed(ctx, t) for t in toks]  # Ann's and Bob's
    assert person is not None
    done = admin.forget(ctx, "ann@example.org")
    assert done.details["daily_mail"] == 1 and done.details["calendars"] == 2
    with session_scope(ctx.engine) as session:
        assert session.exec(select(DailyMail)).all() == []
        assert len(session.exec(select(CalendarFeed)).all()) == 1  # Bob's stays
    for gone in (person["url"],):
        with pytest.raises(errors.NotFound):
            calendar.feed_text(ctx, gone.rsplit("/", 1)[1][:-4])
    still = [s for s in seats if _opens(ctx, s["url"])]
    assert len(still) == 1 and b"@example.org" not in calendar.feed_text(ctx, still[0]["url"].rsplit("/", 1)[1][:-4])


def _opens(ctx: Any, url: str) -> bool:
    try:
        calendar.feed_text(ctx, url.rsplit("/", 1)[1][:-4])
    except errors.NotFound:
        return False
    return True
