"""Which language a page speaks, the switch on every page, and the seat's own
language and time zone (form, API, play page)."""

from __future__ import annotations

import re

import pytest
from sqlmodel import col, select

from pbem import games
from pbem.people import signin
from pbem.core.db import session_scope
from pbem.core.models import Game, Seat
from tests.support.games import finish, new_game, play, to_move
from tests.support.text import english_left
from tests.support.web import csrf_token, snapshot


def lang_of(page: str) -> str:
    return re.search(r'<html lang="([^"]+)"', page).group(1)


@pytest.mark.parametrize("header, expected", [
    (None, "en"), ("hu", "hu"), ("cs-CZ,cs;q=0.9,en;q=0.5", "cs"), ("pt-BR,pt;q=0.8", "pt-PT"),
    ("de-DE,de;q=0.9", "en"), ("de,hu;q=0.3", "hu"), ("hu;q=0,cs;q=0.5", "cs"),
])
def test_pages_follow_the_browser_language(client, header, expected):
    headers = {"Accept-Language": header} if header else {}
    assert lang_of(client.get("/", headers=headers).get_data(as_text=True)) == expected


def test_the_switch_is_on_every_page_and_is_remembered(client):
    for url in ("/", "/login"):
        page = client.get(url).get_data(as_text=True)
        assert 'action="/language"' in page and 'name="language"' in page
    token = csrf_token(client)
    r = client.post("/language", data={"language": "cs", "next": "/login", "csrf_token": token},
                    headers={"Accept-Language": "hu"})
    assert r.status_code == 303 and r.headers["Location"].endswith("/login")
    # The choice beats the browser's language from now on.
    assert lang_of(client.get("/", headers={"Accept-Language": "hu"}).get_data(as_text=True)) == "cs"


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:1",
                                    "/\t/evil.example", "/\n/evil.example", "/\r\n/x"])
def test_the_switch_never_sends_anyone_to_another_site(client, target):
    r = client.post("/language", data={"language": "hu", "next": target, "csrf_token": csrf_token(client)})
    assert r.status_code == 303 and r.headers["Location"] in ("/", "http://localhost/")


def test_an_unknown_language_changes_nothing(client):
    client.post("/language", data={"language": "pt", "next": "/", "csrf_token": csrf_token(client)})
    r = client.post("/language", data={"language": "xx", "next": "/", "csrf_token": csrf_token(client)})
    assert r.status_code == 303
    assert lang_of(client.get("/").get_data(as_text=True)) == "pt-PT"


def test_the_switch_needs_the_form_token(client):
    r = client.post("/language", data={"language": "hu", "next": "/"})
    assert r.status_code == 400


def test_the_start_form_sets_each_players_language(client, ctx):
    page = client.get("/", headers={"Accept-Language": "cs"}).get_data(as_text=True)
    # Each row offers the languages, the page's own chosen.
    assert re.search(r'<option value="cs" lang="cs" selected>', page)
    form = {"name0": "Anna", "email0": "anna@example.org", "language0": "hu",
            "name1": "Petr", "email1": "petr@example.org", "language1": "",
            "turn_hours": "72", "csrf_token": csrf_token(client)}
    r = client.post("/games", data=form, headers={"Accept-Language": "cs"})
    assert r.status_code == 303
    with session_scope(ctx.engine) as session:
        assert [s.language for s in session.exec(select(Seat).order_by(col(Seat.position))).all()] == ["hu", "cs"]


def test_a_bad_language_on_the_form_is_refused_and_creates_nothing(client, ctx):
    form = {"name0": "Anna", "email0": "anna@example.org", "language0": "xx",
            "name1": "Petr", "email1": "petr@example.org", "turn_hours": "72",
            "csrf_token": csrf_token(client)}
    r = client.post("/games", data=form)
    assert r.status_code == 422
    assert 'id="language0" name="language0" aria-invalid="true"' in r.get_data(as_text=True)
    with session_scope(ctx.engine) as session:
        assert session.exec(select(Game)).first() is None


def test_the_api_takes_language_and_time_zone(client, ctx):
    players = [{"name": "Anna", "email": "anna@example.org", "language": "hu", "time_zone": "Europe/Budapest"},
               {"name": "Rita", "email": "rita@example.org", "language": "pt", "time_zone": None}]
    r = client.post("/api/v1/games", json={"players": players})
    assert r.status_code == 201, r.json
    with session_scope(ctx.engine) as session:
        seats = session.exec(select(Seat).order_by(col(Seat.position))).all()
        assert [(s.language, s.time_zone) for s in seats] == [("hu", "Europe/Budapest"), ("pt", None)]


# "" and false are not "absent": the document lists null for that (a fuzzed
# start with language "" was taken as English before).
@pytest.mark.parametrize("extra, code", [({"language": "xx"}, "invalid-language"),
                                         ({"language": ""}, "invalid-language"),
                                         ({"language": False}, "invalid-language"),
                                         ({"time_zone": "Atlantis/Capital"}, "invalid-time-zone"),
                                         ({"time_zone": ""}, "invalid-time-zone")])
def test_the_api_refuses_unknown_languages_and_zones(client, ctx, extra, code):
    players = [{"name": "Anna", "email": "anna@example.org", **extra},
               {"name": "Rita", "email": "rita@example.org"}]
    before = snapshot(ctx)
    r = client.post("/api/v1/games", json={"players": players})
    assert r.status_code == 422 and r.json["error"]["code"] == code
    assert snapshot(ctx) == before


def test_the_api_takes_null_for_a_language_and_zone_not_chosen(client, ctx):
    players = [{"name": "Anna", "email": "anna@example.org", "language": None, "time_zone": None},
               {"name": "Rita", "email": "rita@example.org"}]
    assert client.post("/api/v1/games", json={"players": players}).status_code == 201


def test_a_seat_page_speaks_the_seats_language_whatever_the_browser_says(client, ctx):
    game_id, toks = new_game(ctx, 2)
    games.set_language(ctx, toks[0], "hu", "Europe/Budapest")
    page = client.get(f"/play/{toks[0]}", headers={"Accept-Language": "pt"}).get_data(as_text=True)
    assert lang_of(page) == "hu"
    # The switch on a seat page changes the seat (and so its mail).
    assert f'action="/play/{toks[0]}/language"' in page
    assert lang_of(client.get(f"/play/{toks[1]}", headers={"Accept-Language": "pt"}).get_data(as_text=True)) == "en"


def test_a_player_saves_language_and_time_zone_on_their_page(client, ctx):
    game_id, toks = new_game(ctx, 2)
    page = client.get(f"/play/{toks[0]}").get_data(as_text=True)
    # No zone chosen yet: the page offers the browser's (app.js fills it in).
    assert "data-offer-browser-zone" in page and '<option value="Europe/Prague">' in page
    r = client.post(f"/play/{toks[0]}/language", data={"language": "cs", "time_zone": "Europe/Prague",
                                                       "csrf_token": csrf_token(client, f"/play/{toks[0]}")})
    assert r.status_code == 303
    view = games.seat_view(ctx, toks[0])
    assert (view["language"], view["time_zone"]) == ("cs", "Europe/Prague")
    page = client.get(f"/play/{toks[0]}").get_data(as_text=True)
    assert lang_of(page) == "cs" and "data-offer-browser-zone" not in page


def test_a_bad_time_zone_on_the_play_page_changes_nothing(client, ctx):
    game_id, toks = new_game(ctx, 2)
    before = snapshot(ctx)
    r = client.post(f"/play/{toks[0]}/language", data={"language": "cs", "time_zone": "Nowhere/Land",
                                                       "csrf_token": csrf_token(client, f"/play/{toks[0]}")})
    assert r.status_code == 422
    assert snapshot(ctx) == before


@pytest.mark.parametrize("code", ["hu", "cs", "pt"])
def test_no_english_left_on_the_start_form_and_sign_in(client, code):
    for url in ("/", "/login"):
        english = client.get(url, headers={"Accept-Language": "en"}).get_data(as_text=True)
        translated = client.get(url, headers={"Accept-Language": code}).get_data(as_text=True)
        assert english_left(english, translated) == [], url


@pytest.mark.parametrize("code", ["hu", "cs", "pt"])
@pytest.mark.parametrize("stage", ["invited", "waiting", "active", "finished"])
def test_no_english_left_on_the_play_page(client, ctx, code, stage):
    game_id, toks = new_game(ctx, 3, start=stage in ("active", "finished"))
    token = toks[0] if stage != "invited" else toks[1]
    if stage == "waiting":
        games.accept(ctx, toks[1])
        token = toks[1]
    if stage in ("active", "finished"):
        play(ctx, toks, 4)
        token, _ = to_move(ctx, toks)
    if stage == "finished":
        finish(ctx, game_id, toks)
    games.set_language(ctx, token, "en", "")
    english = client.get(f"/play/{token}").get_data(as_text=True)
    games.set_language(ctx, token, code, "")
    translated = client.get(f"/play/{token}").get_data(as_text=True)
    assert english_left(english, translated) == []
    public_en = client.get(f"/games/{game_id}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    public = client.get(f"/games/{game_id}", headers={"Accept-Language": code}).get_data(as_text=True)
    assert english_left(public_en, public) == []


def test_signing_in_and_out_keeps_the_chosen_language(client, ctx):
    new_game(ctx, 2)  # ann@example.org has a game, so she may sign in
    client.post("/language", data={"language": "cs", "next": "/", "csrf_token": csrf_token(client)})
    with session_scope(ctx.engine) as session:
        login = signin.new_login(ctx, session, "ann@example.org")
        path = signin.login_link(ctx, login).removeprefix(ctx.base_url)
    r = client.post(path, data={"csrf_token": csrf_token(client, path)})
    assert r.status_code == 303
    assert lang_of(client.get("/games").get_data(as_text=True)) == "cs"
    client.post("/logout", data={"csrf_token": csrf_token(client, "/games")})
    assert lang_of(client.get("/").get_data(as_text=True)) == "cs"
