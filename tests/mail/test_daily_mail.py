"""The daily mail (issue 31): at the hour a person chose, in their zone, one mail
lists every game where it is their turn, in their language; once per local day
however often the clock runs (two beats included); while it is on, their turn
mail is the daily one; its List-Unsubscribe switches it off."""

from __future__ import annotations

import threading
from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo
from typing import Any

import pytest

from pbem import games
from pbem.core.db import session_scope
from pbem.core.links import seat_link
from pbem.games import daily
from pbem.games.waiting import waiting_of
from pbem.words import Words
from pbem.workers import clock, daily_mail
from tests.support.clock import frozen_clock
from tests.support.games import seat_tokens
from tests.support.messages import caught, parts
from tests.support.web import snapshot

#: Tomorrow (near the real date: caught mail older than the retention days is pruned by the clock).
DAY = (datetime.now(timezone.utc) + timedelta(days=1)).date()


def local(hour: int, minute: int, zone: str = "Europe/Budapest", days: int = 0) -> datetime:
    """That time of ``DAY`` (plus ``days``) in ``zone``, in UTC."""
    return datetime.combine(DAY + timedelta(days=days), time(hour, minute), ZoneInfo(zone)).astimezone(timezone.utc)


MORNING = local(5, 0)


def waiting_games(ctx: Any, email: str, name: str, count: int, *, language: str = "en",
                  time_zone: str = "Europe/Budapest") -> list[str]:
    """``count`` two-player games, each with it the turn of ``name`` (``email``)."""
    made = []
    for n in range(count):
        players = [{"name": name, "email": email, "language": language, "time_zone": time_zone},
                   {"name": f"Other{n}", "email": f"other{n}.{email}"}]
        game_id = games.start_game(ctx, games.parse_players(players))
        # Seats are drawn at the start: theirs first.
        toks = sorted(seat_tokens(ctx, game_id), key=lambda t: games.seat_view(ctx, t)["you"] != name)
        for t in toks:
            games.accept(ctx, t)
        if not games.seat_view(ctx, toks[0])["your_turn"]:
            other = games.seat_view(ctx, toks[1])
            games.submit_move(ctx, toks[1], other["legal_moves"][0], None, other["ply"])
        assert games.seat_view(ctx, toks[0])["your_turn"]
        made.append(game_id)
        ctx.now.advance(minutes=10)  # each waits a little less long than the one before
    return made


@pytest.mark.parametrize("language", ["en", "hu", "cs", "pt"])
def test_the_daily_mail_lists_every_waiting_game_in_the_readers_language(ctx: Any, language: str) -> None:
    now = frozen_clock(ctx)
    now.at = MORNING
    made = waiting_games(ctx, "zed@example.org", "Zed", 3, language=language)
    daily.set_daily(ctx, "Zed@Example.org", on=True, hour=8, time_zone="")  # the zone of their seats
    now.at = local(7, 30)  # 07:30 in Budapest: not yet
    assert daily_mail.send_daily(ctx) == []
    now.at = local(8, 5)  # 08:05 in Budapest
    clock.tick(ctx)
    [mail] = caught(ctx, kind="daily")
    assert mail["X-PBEM-Kind"] == "daily" and mail["To"] == "zed@example.org"
    assert mail["Content-Language"] == Words(language).tag
    assert mail["List-Unsubscribe"].startswith("<https://") and "/unsubscribe/daily/" in mail["List-Unsubscribe"]
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    text, html = parts(mail)["text"], parts(mail)["html"]
    w = Words(language, "Europe/Budapest")
    listed = waiting_of(ctx, "zed@example.org")
    assert [x.game for x in listed] == made  # the longest waiting first
    for x in listed:
        for body in (text, html):
            assert x.game in body and seat_link(ctx, x.seat) in body
            assert w.when(x.deadline) in body  # the deadline in the reader's zone and language
    assert text.index(made[0]) < text.index(made[1]) < text.index(made[2])
    if language != "en":
        assert "it is your turn in" not in text  # their language, not English
    # Once a day: the next runs today write nothing.
    assert daily_mail.send_daily(ctx) == []
    now.advance(hours=1)
    clock.tick(ctx)
    assert len(caught(ctx, kind="daily")) == 1


def test_two_zones_each_at_their_own_hour_once_a_day(ctx: Any) -> None:
    now = frozen_clock(ctx)
    now.at = MORNING
    waiting_games(ctx, "ann@example.org", "Ann", 1, time_zone="Europe/Budapest")
    waiting_games(ctx, "rita@example.org", "Rita", 2, language="pt", time_zone="America/Sao_Paulo")
    daily.set_daily(ctx, "ann@example.org", on=True, hour=8, time_zone="")
    daily.set_daily(ctx, "rita@example.org", on=True, hour=8, time_zone="America/Sao_Paulo")
    sent: dict[str, list[str]] = {"ann": [], "rita": []}

    def run_day() -> None:
        for hour in range(24):
            now.at = datetime.combine(DAY + timedelta(days=day), time(hour, 3), timezone.utc)
            daily_mail.send_daily(ctx)
            clock.sweep_outbox(ctx)
            for who in sent:
                got = caught(ctx, recipient=f"{who}@example.org", kind="daily")
                if len(got) > len(sent[who]):
                    sent[who].append(now.at.isoformat())

    for day in (0, 1):
        run_day()
    # 08:03 local (07:03 UTC in a Budapest winter, 11:03 UTC in São Paulo); once each day.
    for who, zone in (("ann", "Europe/Budapest"), ("rita", "America/Sao_Paulo")):
        assert [datetime.fromisoformat(t).astimezone(ZoneInfo(zone)).strftime("%H:%M") for t in sent[who]] == [
            "08:03", "08:03"], who
    assert sent["ann"][0] != sent["rita"][0]
    assert caught(ctx, recipient="rita@example.org", kind="daily")[0]["Content-Language"] == "pt-PT"


def test_two_beats_at_once_write_one_mail(ctx: Any) -> None:
    now = frozen_clock(ctx)
    now.at = MORNING
    waiting_games(ctx, "ann@example.org", "Ann", 2)
    daily.set_daily(ctx, "ann@example.org", on=True, hour=8, time_zone="Europe/Budapest")
    now.at = local(8, 1)
    written: list[list[int]] = []
    errors: list[BaseException] = []

    def beat() -> None:
        try:
            written.append(daily_mail.send_daily(ctx))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    beats = [threading.Thread(target=beat) for _ in range(2)]
    for b in beats:
        b.start()
    for b in beats:
        b.join()
    assert errors == []
    assert sorted(len(w) for w in written) == [0, 1]
    clock.sweep_outbox(ctx)
    assert len(caught(ctx, kind="daily")) == 1


def test_nothing_waiting_no_mail_and_turning_it_on_late_sends_nothing_today(ctx: Any) -> None:
    now = frozen_clock(ctx)
    now.at = local(9, 0)  # 09:00 in Budapest
    waiting_games(ctx, "ann@example.org", "Ann", 1)
    daily.set_daily(ctx, "ann@example.org", on=True, hour=8, time_zone="Europe/Budapest")
    assert daily_mail.send_daily(ctx) == []  # today's hour had passed when it was turned on
    daily.set_daily(ctx, "bob@example.org", on=True, hour=10, time_zone="Europe/Budapest")
    now.advance(hours=1, minutes=5)
    assert daily_mail.send_daily(ctx) == []  # Bob has no game waiting on him


def test_with_the_daily_mail_on_turn_mail_is_the_daily_one(ctx: Any) -> None:
    now = frozen_clock(ctx)
    now.at = MORNING
    players = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]
    daily.set_daily(ctx, "ann@example.org", on=True, hour=8, time_zone="UTC")
    daily.set_daily(ctx, "bob@example.org", on=True, hour=8, time_zone="UTC")
    game_id = games.start_game(ctx, games.parse_players(players))
    toks = seat_tokens(ctx, game_id)
    for t in toks:
        games.accept(ctx, t)
    for _ in range(2):
        t = next(t for t in toks if games.seat_view(ctx, t)["your_turn"])
        view = games.seat_view(ctx, t)
        games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
    clock.sweep_outbox(ctx)
    assert caught(ctx, kind="turn") == []
    # Switched off: the next turn mails again.
    daily.set_daily(ctx, "ann@example.org", on=False, hour=8, time_zone="")
    daily.set_daily(ctx, "bob@example.org", on=False, hour=8, time_zone="")
    t = next(t for t in toks if games.seat_view(ctx, t)["your_turn"])
    view = games.seat_view(ctx, t)
    games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
    clock.sweep_outbox(ctx)
    assert len(caught(ctx, kind="turn")) == 1


def test_list_unsubscribe_switches_the_daily_mail_off(client: Any, ctx: Any) -> None:
    now = frozen_clock(ctx)
    now.at = MORNING
    waiting_games(ctx, "ann@example.org", "Ann", 1, language="hu")
    daily.set_daily(ctx, "ann@example.org", on=True, hour=8, time_zone="Europe/Budapest")
    now.at = local(8, 5)
    clock.tick(ctx)
    [mail] = caught(ctx, kind="daily")
    link = mail["List-Unsubscribe"].strip("<>")
    path = "/" + link.split("/", 3)[3]
    before = snapshot(ctx)
    page = client.get(path)
    assert page.status_code == 200 and snapshot(ctx) == before  # a GET changes nothing
    assert 'lang="hu"' in page.get_data(as_text=True)
    forged = path[:-2] + ("AA" if not path.endswith("AA") else "BB")
    assert client.post(forged, data={"List-Unsubscribe": "One-Click"}).status_code == 401
    assert snapshot(ctx) == before
    answer = client.post(path, data={"List-Unsubscribe": "One-Click"})  # no cookie, no form token
    assert answer.status_code == 200
    assert daily.setting_of(ctx, "ann@example.org").on is False
    now.advance(days=1)
    clock.tick(ctx)
    assert len(caught(ctx, kind="daily")) == 1
