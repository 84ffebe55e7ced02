"""The lobby's page, its join form and its filters, the start form's "anyone"
row, and the home page's tables waiting: never an address of anyone."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pbem import games
from tests.support.games import seat_tokens
from tests.support.messages import caught
from tests.support.web import csrf_from, csrf_token, snapshot


def start_with_anyone(client: Any, ctx: Any, turn_hours: str = "72", language: str = "en") -> str:
    form = {"csrf_token": csrf_token(client), "name0": "Ann", "email0": "anna.h@example.net", "language0": language,
            "who1": "open", "name1": "", "email1": "", "who2": "medium", "turn_hours": turn_hours}
    response = client.post("/games", data=form)
    assert response.status_code == 303, response.get_data(as_text=True)
    game_id = re.search(r"/games/(\w+)", response.headers["Location"]).group(1)  # type: ignore[union-attr]
    games.accept(ctx, seat_tokens(ctx, game_id)[0])
    return game_id


def test_anyone_on_the_start_form_makes_a_table_that_home_and_lobby_show(client: Any, ctx: Any) -> None:
    assert 'value="open"' in client.get("/").get_data(as_text=True)
    table = start_with_anyone(client, ctx)
    for path in ("/", "/lobby"):
        page = client.get(path).get_data(as_text=True)
        assert f'id="table-{table}"' in page and "Ann" in page
        assert "anna.h@example.net" not in page
    assert 'href="/lobby"' in client.get("/").get_data(as_text=True)


def test_the_filters_narrow_the_tables(client: Any, ctx: Any) -> None:
    fast = start_with_anyone(client, ctx, turn_hours="12", language="cs")
    slow = start_with_anyone(client, ctx, turn_hours="100")
    page = client.get("/lobby?max_turn_hours=24").get_data(as_text=True)
    assert f"table-{fast}" in page and f"table-{slow}" not in page
    page = client.get("/lobby?language=en&players=3").get_data(as_text=True)
    assert f"table-{slow}" in page and f"table-{fast}" not in page
    # A filter edited by hand shows the whole lobby.
    assert client.get("/lobby?players=99").status_code == 200


@pytest.mark.parametrize("language", ["en", "hu", "cs", "pt"])
def test_the_page_speaks_each_language(client: Any, ctx: Any, language: str) -> None:
    start_with_anyone(client, ctx)
    client.post("/language", data={"csrf_token": csrf_token(client), "language": language, "next": "/lobby"})
    page = client.get("/lobby").get_data(as_text=True)
    assert re.search(f'<html lang="{language}', page)
    # Every sentence in the page's language (no English left in the others).
    assert ("Join this table" in page) == (language == "en")


def test_joining_from_the_page_mails_the_invitation(client: Any, ctx: Any) -> None:
    table = start_with_anyone(client, ctx)
    token = csrf_from(client.get("/lobby").get_data(as_text=True))
    response = client.post(f"/lobby/{table}/join", data={"csrf_token": token, "name": "Bea",
                                                          "email": "bea@example.org", "language": "hu"})
    assert response.status_code == 202 and "bea@example.org" in response.get_data(as_text=True)
    (invitation,) = caught(ctx, "bea@example.org", kind="table-invite")
    assert invitation["Content-Language"] == "hu"


def test_a_refused_join_shows_the_lobby_with_the_reason_and_changes_nothing(client: Any, ctx: Any) -> None:
    table = start_with_anyone(client, ctx)
    token = csrf_from(client.get("/lobby").get_data(as_text=True))
    before = snapshot(ctx)
    response = client.post(f"/lobby/{table}/join", data={"csrf_token": token, "name": "Bea", "email": "nope"})
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and 'role="alert"' in page and 'aria-invalid="true"' in page
    assert snapshot(ctx) == before
    # Without the form's token: refused before anything is looked at.
    assert client.post(f"/lobby/{table}/join", data={"name": "Bea", "email": "bea@example.org"}).status_code == 400
    assert snapshot(ctx) == before
