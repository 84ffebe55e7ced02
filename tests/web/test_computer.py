"""The computer on the pages and in the API: seats for it on the start form, the
"Play against the computer" form, the seat page's marks and hand-over forms,
and ``POST /api/v1/seat/computer``."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pbem import games
from tests.support.games import seat_tokens
from tests.support.messages import caught
from tests.support.web import csrf_from, csrf_token, snapshot

FORM = {"name0": "Ann", "email0": "ann@example.org", "name1": "", "email1": "", "name2": "", "email2": "",
        "name3": "", "email3": "", "turn_hours": ""}
SOLO = {"against": "computer", "name": "Ann", "email": "ann@example.org", "language": "en",
        "opponents": "3", "level": "hard"}


def _game_id(response: Any) -> str:
    assert response.status_code == 303, response.get_data(as_text=True)
    return re.search(r"/games/(\w+)", response.headers["Location"]).group(1)


def test_the_home_page_offers_the_computer(client: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    for i in (1, 2, 3):
        assert f'<select id="who{i}" name="who{i}"' in page
    assert 'name="who0"' not in page  # the one starting the game is a person
    assert "Play against the computer" in page and 'name="against" value="computer"' in page
    for level in ("easy", "medium", "hard"):
        assert f'value="{level}"' in page


def test_a_row_of_the_start_form_may_be_the_computer(client: Any, ctx: Any) -> None:
    form = dict(FORM, csrf_token=csrf_token(client), name1="Bob", email1="bob@example.org", who2="easy",
                # A row given to the computer ignores what its boxes hold.
                who3="medium", name3="typed by mistake")
    game_id = _game_id(client.post("/games", data=form))
    view = games.public_game(ctx, game_id)
    assert [(p["name"], p["bot"], p["accepted"]) for p in view["players"]] == [
        ("Ann", None, False), ("Bob", None, False), ("Ada", "easy", True), ("Alan", "medium", True)]
    assert [m["To"] for m in caught(ctx)] == ["ann@example.org"]  # Ann confirms first


def test_a_bad_level_on_the_start_form_is_refused_and_marked(client: Any, ctx: Any) -> None:
    before = snapshot(ctx)
    response = client.post("/games", data=dict(FORM, csrf_token=csrf_token(client), who1="genius"))
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "Player 2: the computer’s level must be one of easy, medium, hard" in page.replace("&#39;", "’")
    assert re.search(r'<select id="who1"[^>]*aria-invalid="true"', page)
    assert snapshot(ctx) == before


def test_play_against_the_computer_tonight(client: Any, ctx: Any) -> None:
    game_id = _game_id(client.post("/games", data=dict(SOLO, csrf_token=csrf_token(client))))
    view = games.public_game(ctx, game_id)
    assert [p["bot"] for p in view["players"]] == [None, "hard", "hard", "hard"]
    # Not signed in: Ann confirms by mail, and accepting starts the game at once.
    (confirm,) = caught(ctx, kind="invite")
    link = re.search(r"https://clans\.example(/play/\S+)", confirm.get_body(preferencelist=("plain",)).get_content())
    page = client.get(link.group(1)).get_data(as_text=True)
    client.post(link.group(1) + "/accept", data={"csrf_token": csrf_from(page)})
    page = client.get(link.group(1)).get_data(as_text=True)
    assert 'data-status="active"' in page and "Your turn" in page
    assert page.count('class="badge badge-computer" data-computer="hard"') == 3
    assert "computer, hard" in page
    assert caught(ctx, kind="turn")[-1]["To"] == "ann@example.org"


@pytest.mark.parametrize("change, message", [
    ({"opponents": "0"}, "Choose 1 to 3 computer opponents."),
    ({"opponents": "4"}, "Choose 1 to 3 computer opponents."),
    ({"opponents": "x"}, "Choose 1 to 3 computer opponents."),
    ({"level": "genius"}, "computer’s level must be one of"),
    ({"email": "ann-at-example"}, "is not an email address"),
    ({"name": ""}, "Player 1"),
])
def test_bad_input_on_the_computer_form_changes_nothing(client: Any, ctx: Any, change: dict[str, str],
                                                        message: str) -> None:
    before = snapshot(ctx)
    response = client.post("/games", data=dict(SOLO, csrf_token=csrf_token(client), **change))
    assert response.status_code == 422
    page = response.get_data(as_text=True).replace("&#39;", "’")
    assert message in page and 'id="solo-error"' in page
    assert 'value="Ann"' in page or change.get("name") == ""
    assert snapshot(ctx) == before and caught(ctx) == []


def _started(client: Any, ctx: Any) -> tuple[str, str, str]:
    """A started game of Ann and Bob; the tokens of the one to move and the other."""
    game_id = games.start_game(ctx, games.parse_players([
        {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]))
    toks = seat_tokens(ctx, game_id)
    for t in toks:
        games.accept(ctx, t)
    to_move = next(t for t in toks if games.seat_view(ctx, t)["your_turn"])
    return game_id, to_move, next(t for t in toks if t != to_move)


def test_hand_your_seat_to_the_computer_from_your_page(client: Any, ctx: Any) -> None:
    game_id, mover, other = _started(client, ctx)
    page = client.get(f"/play/{mover}").get_data(as_text=True)
    assert 'data-hand="own"' in page and "Hand my seat to the computer" in page
    token = csrf_from(page)
    # Without the box ticked nothing changes.
    before = snapshot(ctx)
    response = client.post(f"/play/{mover}/computer", data={"csrf_token": token, "level": "easy"})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "tick the box to confirm" in page.lower() and "Nothing was changed." in page
    assert re.search(r'id="computer-confirm"[^>]*aria-invalid="true"', page)
    assert snapshot(ctx) == before
    response = client.post(f"/play/{mover}/computer", data={"csrf_token": token, "level": "easy", "confirm": "1"})
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "The computer (easy) plays your seat from now on." in page
    assert "data-computer-seat" in page and 'id="confirm-form"' not in page and "Your turn" not in page
    assert 'name="mail"' not in page  # no more mail to choose
    # The computer moved at once (it was this seat's turn); the history says so.
    other_page = client.get(f"/play/{other}").get_data(as_text=True)
    assert "Your turn" in other_page and "(computer) moved" in other_page
    assert 'data-computer="easy"' in other_page


def test_hand_an_away_player_to_the_computer(client: Any, ctx: Any) -> None:
    from sqlmodel import select

    from pbem.core.db import session_scope
    from pbem.core.models import Seat

    game_id, mover, other = _started(client, ctx)
    away = games.seat_view(ctx, other)["seat"]
    page = client.get(f"/play/{mover}").get_data(as_text=True)
    assert f'data-hand="{away}"' not in page  # nobody is away yet
    with session_scope(ctx.engine) as session:
        seat = session.exec(select(Seat).where(Seat.position == away)).first()
        assert seat is not None
        seat.autopilot_streak = 3
        session.add(seat)
    page = client.get(f"/play/{mover}").get_data(as_text=True)
    assert f'data-hand="{away}"' in page
    response = client.post(f"/play/{mover}/computer",
                           data={"csrf_token": csrf_from(page), "level": "hard", "seat": str(away)})
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "plays Bob’s seat from now on" in page or "plays Ann’s seat from now on" in page
    assert games.seat_view(ctx, mover)["players"][away]["bot"] == "hard"


def test_the_api_hands_a_seat_to_the_computer(client: Any, ctx: Any) -> None:
    _, mover, other = _started(client, ctx)
    auth = {"Authorization": f"Bearer {other}"}
    response = client.post("/api/v1/seat/computer", json={"bot": "genius"}, headers=auth)
    assert response.status_code == 422 and response.json["error"]["code"] == "invalid-level"
    response = client.post("/api/v1/seat/computer", json={"bot": "easy", "seat": 9}, headers=auth)
    assert response.status_code == 422 and response.json["error"]["code"] == "invalid-seat"
    response = client.post("/api/v1/seat/computer", json={"bot": "easy", "seat": "one"}, headers=auth)
    assert response.status_code == 400
    response = client.post("/api/v1/seat/computer", json={"bot": "medium"}, headers=auth)
    assert response.status_code == 200
    me = response.json["players"][response.json["seat"]]
    assert me["bot"] == "medium" and response.json["mail"] == "none"
    response = client.post("/api/v1/seat/computer", json={"bot": "medium"}, headers=auth)
    assert response.status_code == 409 and response.json["error"]["code"] == "computer-seat"
    response = client.post("/api/v1/seat/mail", json={"mail": "every"}, headers=auth)
    assert response.status_code == 409 and response.json["error"]["code"] == "computer-seat"
    assert client.post("/api/v1/seat/computer", json={"bot": "easy"},
                       headers={"Authorization": "Bearer nope"}).status_code == 401


def test_the_api_starts_a_game_with_computer_seats(client: Any, ctx: Any) -> None:
    response = client.post("/api/v1/games", json={"players": [
        {"name": "Ann", "email": "ann@example.org"}, {"bot": "easy"}, {"bot": "easy"}]})
    assert response.status_code == 201
    assert [(p["name"], p["bot"]) for p in response.json["players"]] == [
        ("Ann", None), ("Ada", "easy"), ("Alan", "easy")]
    response = client.post("/api/v1/games", json={"players": [{"bot": "easy"}, {"bot": "hard"}]})
    assert response.status_code == 422 and response.json["error"]["code"] == "invalid-players"
    response = client.post("/api/v1/games", json={"players": [{"bot": "easy"}, {"name": "Bob",
                                                                                 "email": "bob@example.org"}]})
    assert response.status_code == 201 and response.json["players"][0]["name"] == "Bob"
