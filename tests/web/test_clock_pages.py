"""The clocks on the pages: the start form's time options (a bad clock refused,
marked and changing nothing) and the seat page's clocks and vacation days."""

from __future__ import annotations

import re
from typing import Any

from pbem import games
from tests.support.games import seat_tokens
from tests.support.web import csrf_token, snapshot

FORM = {"name0": "Ann", "email0": "ann@example.org", "name1": "Bob", "email1": "bob@example.org",
        "turn_hours": "72"}


def _game_id(response: Any) -> str:
    assert response.status_code == 303, response.get_data(as_text=True)
    found = re.search(r"/games/(\w+)", response.headers["Location"])
    assert found is not None
    return found.group(1)


def test_the_start_form_takes_a_clock_weekends_off_and_no_vacation(client: Any, ctx: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    for name in ("clock_days", "clock_increment_hours", "clock_max_days", "weekends_off", "vacation_off"):
        assert f'name="{name}"' in page
    form = dict(FORM, csrf_token=csrf_token(client), clock_days="3", clock_increment_hours="12",
                clock_max_days="5", weekends_off="1", vacation_off="1")
    view = games.public_game(ctx, _game_id(client.post("/games", data=form)))
    assert view["clock"] == {"days": 3, "increment_hours": 12, "max_days": 5}
    assert view["weekends_off"] is True and view["vacation"] == "off"


def test_a_bad_clock_on_the_start_form_is_refused_and_marked(client: Any, ctx: Any) -> None:
    before = snapshot(ctx)
    response = client.post("/games", data=dict(FORM, csrf_token=csrf_token(client), clock_days="3",
                                                clock_max_days="2"))
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "Clock.max_days must be at least the days the clock starts with (3)" in page
    assert re.search(r'<input id="clock_max_days"[^>]*aria-invalid="true"', page, re.S)
    assert "<details class=\"clock-options\" open>" in page
    assert snapshot(ctx) == before


def test_the_seat_page_shows_every_clock_and_the_vacation_left(client: Any, ctx: Any) -> None:
    ctx.config["VACATION_DAYS"] = 10
    game_id = games.start_game(ctx, games.parse_players([{"name": "Ann", "email": "ann@example.org"},
                                                         {"name": "Bob", "email": "bob@example.org",
                                                          "language": "pt"}]),
                               options=games.parse_time_options({"days": 2, "increment_hours": 5}, True))
    toks = seat_tokens(ctx, game_id)
    for t in toks:
        games.accept(ctx, t)
    pages = {games.seat_view(ctx, t)["you"]: client.get(f"/play/{t}").get_data(as_text=True) for t in toks}
    section = re.search(r'<section class="card clocks".*?</section>', pages["Ann"], re.S)
    assert section is not None
    clocks = section.group(0)
    assert clocks.count('class="clock-time">2 days</strong>') == 2  # both players' banks
    assert "Clocks stop on Saturdays and Sundays" in clocks and 'data-vacation="10"' in clocks
    assert "You have 10 vacation days" in clocks
    assert "Tens 10 dias de férias" in pages["Bob"] and "2 dias" in pages["Bob"]
