"""The private calendar feeds of deadlines (issue 31): ``GET /api/v1/seat/calendar``
gives a seat's feed address; the signed-in dashboard and the seat page make
and offer theirs; each feed is valid iCalendar (read back by ``icalendar``, and
its own validation) with one event per running game at its deadline, an alarm,
a stable UID, a SEQUENCE that grows as the deadline moves, and nothing hidden."""

from __future__ import annotations

import re
from datetime import timedelta

from icalendar import Calendar
from sqlmodel import select

from pbem import games
from pbem.core.daily_tables import CalendarFeed
from pbem.core.db import session_scope
from pbem.ops import admin
from tests.support.games import deadline, new_game, play, to_move
from tests.support.web import csrf_from, sign_in, snapshot


def feed_of(client, url: str) -> Calendar:
    path = url.split("://", 1)[1].split("/", 1)[1]
    response = client.get("/" + path)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/calendar"
    assert "no-store" in response.headers["Cache-Control"]
    cal = Calendar.from_ical(response.get_data())
    cal.validate()  # icalendar's own check: PRODID, VERSION, a component
    return cal


def events(cal: Calendar) -> list:
    return [c for c in cal.walk("VEVENT")]


def test_a_seats_feed_shows_its_deadline_with_an_alarm_and_nothing_hidden(client, ctx):
    game_id, toks = new_game(ctx)
    got = client.get("/api/v1/seat/calendar", headers={"Authorization": f"Bearer {toks[0]}"})
    assert got.status_code == 200
    links = got.get_json()
    assert re.fullmatch(r"https?://[^/]+/calendar/[A-Za-z0-9_-]{43}\.ics", links["url"])
    assert links["webcal"] == "webcal://" + links["url"].split("://", 1)[1]
    # The same address each time it is asked.
    assert client.get("/api/v1/seat/calendar", headers={"Authorization": f"Bearer {toks[0]}"}).get_json() == links

    raw = client.get("/" + links["url"].split("/", 3)[3]).get_data(as_text=True)
    cal = feed_of(client, links["url"])
    [event] = events(cal)
    assert event.DTSTART.astimezone(deadline(ctx, game_id).tzinfo) == deadline(ctx, game_id).replace(microsecond=0)
    assert event["UID"].startswith(f"{game_id}-")
    assert game_id in str(event["SUMMARY"])
    [alarm] = event.walk("VALARM")
    assert alarm["ACTION"] == "DISPLAY" and alarm["TRIGGER"].dt == -timedelta(hours=1)
    # No address, no seat link, no clan.
    view = games.seat_view(ctx, toks[0])
    assert "@example.org" not in raw and "/play/" not in raw and toks[0] not in raw
    assert f"/games/{game_id}" in raw
    for clan in {games.seat_view(ctx, t)["clan"] for t in toks}:
        assert not re.search(rf"\b{clan}\b", raw, re.I)
    assert view["clan"]


def test_a_moved_deadline_moves_the_event_with_the_same_uid_and_a_higher_sequence(client, ctx):
    game_id, toks = new_game(ctx)
    url = client.get("/api/v1/seat/calendar", headers={"Authorization": f"Bearer {toks[1]}"}).get_json()["url"]
    [before] = events(feed_of(client, url))
    admin.extend(ctx, game_id, 5)  # the operator gives five hours more
    [extended] = events(feed_of(client, url))
    assert extended["UID"] == before["UID"]
    assert extended.DTSTART - before.DTSTART == timedelta(hours=5)
    assert extended["SEQUENCE"] > before["SEQUENCE"]
    play(ctx, toks, 1)  # a move: the next player's turn, a new deadline
    [moved] = events(feed_of(client, url))
    assert moved["UID"] == before["UID"] and moved["SEQUENCE"] > extended["SEQUENCE"]
    assert moved.DTSTART.astimezone(deadline(ctx, game_id).tzinfo) == deadline(ctx, game_id).replace(microsecond=0)


def test_a_persons_feed_lists_every_running_game_of_theirs(client, ctx):
    first, _ = new_game(ctx)
    second, _ = new_game(ctx, 2)
    new_game(ctx, start=False)  # not running yet: no deadline
    sign_in(client, ctx, "ann@example.org")
    page = client.get("/games").get_data(as_text=True)
    assert 'data-calendar="webcal"' not in page  # showing the page makes nothing
    client.post("/games/calendar", data={"csrf_token": csrf_from(page)})
    page = client.get("/games").get_data(as_text=True)
    webcal = re.search(r'href="(webcal://[^"]+)" data-calendar="webcal"', page).group(1)
    https = re.search(r'href="(http[^"]+)" data-calendar="https"', page).group(1)
    assert webcal.split("://")[1] == https.split("://")[1]
    shown = {str(e["UID"]).split("-")[0] for e in events(feed_of(client, https))}
    assert shown == {first, second}


def test_the_seat_page_offers_add_to_calendar(client, ctx):
    game_id, toks = new_game(ctx)
    page = client.get(f"/play/{toks[0]}").get_data(as_text=True)
    assert 'id="calendar"' in page and 'data-calendar="webcal"' not in page
    with session_scope(ctx.engine) as session:
        assert session.exec(select(CalendarFeed)).first() is None  # a GET made nothing
    answer = client.post(f"/play/{toks[0]}/calendar", data={"csrf_token": csrf_from(page)})
    assert answer.status_code == 303 and answer.headers["Location"].endswith("#calendar")
    page = client.get(f"/play/{toks[0]}").get_data(as_text=True)
    webcal = re.search(r'href="(webcal://[^"]+)" data-calendar="webcal"', page).group(1)
    url = client.get("/api/v1/seat/calendar", headers={"Authorization": f"Bearer {toks[0]}"}).get_json()
    assert webcal == url["webcal"]


def test_a_bad_or_forged_feed_token_is_404_and_changes_nothing(client, ctx):
    _, toks = new_game(ctx)
    real = client.get("/api/v1/seat/calendar", headers={"Authorization": f"Bearer {toks[0]}"}).get_json()["url"]
    token = real.rsplit("/", 1)[1][:-4]
    before = snapshot(ctx)
    forged = token[:-1] + ("A" if token[-1] != "A" else "B")
    for path in (f"/calendar/{forged}.ics", "/calendar/short.ics", f"/calendar/{toks[0]}.ics",
                 "/calendar/" + "x" * 300 + ".ics"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert b"BEGIN:VCALENDAR" not in response.get_data()
    assert snapshot(ctx) == before
    # A seat token is no feed token, and a feed token is no seat token.
    assert client.get("/api/v1/seat", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert client.get(f"/play/{token}").status_code == 401


def test_the_api_wants_a_seat_token(client, ctx):
    response = client.get("/api/v1/seat/calendar", headers={"Authorization": "Bearer nope-nope-nope-nope-nope"})
    assert response.status_code == 401 and response.get_json()["error"]["code"] == "unauthorized"
