"""Choosing the high-contrast board on the seat page and by the API: the seat's
own page draws its board in that style (other seats' pages do not follow), bad
values and forged requests change nothing."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pbem import games
from tests.support.games import finish, new_game, play
from tests.support.web import csrf_from, snapshot


def page_of(client: Any, token: str) -> str:
    response = client.get(f"/play/{token}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def board_style_of(page: str) -> str:
    m = re.search(r'<svg [^>]*class="clans-board" data-board-style="([a-z]+)"', page)
    assert m, "no board on the page"
    return m.group(1)


def test_the_seat_page_offers_the_style_and_draws_its_choice(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    page = page_of(client, toks[0])
    assert f'action="/play/{toks[0]}/style#style-title"' in page
    assert re.search(r'name="style" value="standard" checked', page)
    assert 'name="style" value="contrast"' in page and "High contrast, with terrain patterns" in page
    assert board_style_of(page) == "standard" and "<pattern" not in page
    # The legend names every clan with its token's shape (the same on every page).
    assert re.findall(r'data-key-clan="([a-z]+)"', page) == ["red", "yellow", "green", "blue", "black"]
    assert len(re.findall(r'<svg xmlns="http://www.w3.org/2000/svg" class="swatch" data-mark=', page)) >= 5

    response = client.post(f"/play/{toks[0]}/style", data={"csrf_token": csrf_from(page), "style": "contrast"})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/play/{toks[0]}#style-title")
    assert games.seat_view(ctx, toks[0])["board_style"] == "contrast"
    page = page_of(client, toks[0])
    assert "the board is drawn in high contrast" in page
    assert board_style_of(page) == "contrast" and '<pattern id="pattern-forest"' in page
    assert re.search(r'name="style" value="contrast" checked', page)
    # Only this seat's page: another player's, and the public page, stay standard.
    assert board_style_of(page_of(client, toks[1])) == "standard"
    public = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert board_style_of(public) == "standard"

    response = client.post(f"/play/{toks[0]}/style", data={"csrf_token": csrf_from(page), "style": "standard"})
    assert response.status_code == 303
    assert games.seat_view(ctx, toks[0])["board_style"] == "standard"


def test_a_bad_style_is_refused_and_changes_nothing(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    page = page_of(client, toks[0])
    good = csrf_from(page)
    before = snapshot(ctx)
    for value in ("neon", "", "CONTRAST", "contrast " * 5):
        response = client.post(f"/play/{toks[0]}/style", data={"csrf_token": good, "style": value})
        assert response.status_code == 422, value
        text = response.get_data(as_text=True)
        assert "The board style must be one of standard, contrast. Nothing was changed." in text
    response = client.post(f"/play/{toks[0]}/style", data={"csrf_token": good})
    assert response.status_code == 422
    # Without the page's form token: refused as every form is.
    for sent in ({}, {"csrf_token": "wrong"}):
        response = client.post(f"/play/{toks[0]}/style", data={**sent, "style": "contrast"})
        assert response.status_code == 400
    # A seat link that does not exist.
    assert client.post("/play/nope/style", data={"csrf_token": good, "style": "contrast"}).status_code in (401, 404)
    assert snapshot(ctx) == before


def test_a_finished_game_still_offers_the_style(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    play(ctx, toks, 2)
    finish(ctx, game_id, toks)
    page = page_of(client, toks[1])
    assert 'data-status="finished"' in page or "Final scores" in page or "wins" in page
    response = client.post(f"/play/{toks[1]}/style", data={"csrf_token": csrf_from(page), "style": "contrast"})
    assert response.status_code == 303
    assert board_style_of(page_of(client, toks[1])) == "contrast"


def test_the_api_sets_the_style(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    auth = {"Authorization": f"Bearer {toks[2]}"}
    assert client.get("/api/v1/seat", headers=auth).json["board_style"] == "standard"
    response = client.post("/api/v1/seat/style", json={"style": "contrast"}, headers=auth)
    assert response.status_code == 200 and response.json["board_style"] == "contrast"
    assert client.get("/api/v1/seat", headers=auth).json["board_style"] == "contrast"
    assert games.seat_view(ctx, toks[0])["board_style"] == "standard"
    # The public view has no seat's style.
    assert "board_style" not in client.get(f"/api/v1/games/{game_id}").json

    before = snapshot(ctx)
    for body in ({"style": "neon"}, {"style": 1}, {"style": None}, {}, {"style": ["contrast"]}):
        response = client.post("/api/v1/seat/style", json=body, headers=auth)
        assert response.status_code == 422, body
        assert response.json["error"]["code"] == "invalid-style"
    assert client.post("/api/v1/seat/style", data="contrast", headers=auth).status_code == 400
    for forged in ("Bearer nope", f"Bearer {toks[2]}x", "", f"Basic {toks[2]}"):
        response = client.post("/api/v1/seat/style", json={"style": "standard"},
                               headers={"Authorization": forged} if forged else {})
        assert response.status_code == 401, forged
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert snapshot(ctx) == before
    assert games.seat_view(ctx, toks[2])["board_style"] == "contrast"


@pytest.mark.parametrize("style", ["standard", "contrast"])
def test_the_document_describes_the_style(client: Any, style: str) -> None:
    doc = client.get("/api/v1/openapi.json").json
    operation = doc["paths"]["/seat/style"]["post"]
    assert operation["operationId"] == "setBoardStyle" and set(operation["responses"]) >= {"200", "401", "422"}
    assert style in doc["components"]["schemas"]["BoardStyle"]["properties"]["style"]["enum"]
    assert style in doc["components"]["schemas"]["SeatView"]["properties"]["board_style"]["enum"]
