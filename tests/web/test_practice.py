"""Practice from here on the pages: the seat page of a running game and a
finished game's replay offer it (the replay to a signed-in player), each a
POST that leads to the practising player's seat in the new game; refused
requests change nothing."""

from __future__ import annotations

import re
from typing import Any

from tests.support.config import app_config
from tests.support.games import new_game, play, play_to_end
from tests.support.web import csrf_from, sign_in, snapshot
from pbem import games


def page(client: Any, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, response.status_code
    return response.get_data(as_text=True)


def section(text: str) -> str | None:
    m = re.search(r'<section class="card practice".*?</section>', text, re.S)
    return m.group(0) if m else None


def test_practise_from_ones_own_seat(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 4)
    seat_page = page(client, f"/play/{toks[1]}")
    card = section(seat_page)
    assert card is not None and f'action="/play/{toks[1]}/practice"' in card
    assert 'name="level"' in card and "Start a practice game" in card and 'name="ply" value="4"' in card
    original = games.seat_view(ctx, toks[1])
    before = snapshot(ctx)

    response = client.post(f"/play/{toks[1]}/practice",
                           data={"csrf_token": csrf_from(seat_page), "level": "easy", "ply": "4"})

    assert response.status_code == 303
    token = response.headers["Location"].rpartition("/play/")[2]
    view = games.seat_view(ctx, token)
    assert view["game"] != game_id and view["clan"] == original["clan"] and view["seat"] == original["seat"]
    assert view["huts"] == original["huts"] or view["ply"] > original["ply"]
    shown = page(client, f"/play/{token}")
    assert "Your practice game has started" in shown
    assert f'data-practice-of="{game_id}"' in shown and "It is not rated" in shown
    # Nothing of the original changed: its rows are the same (new rows are the practice game's).
    after = snapshot(ctx)
    for table, rows in before.items():
        assert after[table][:len(rows)] == rows, table


def test_no_practice_on_a_finished_seat_page_and_refusals_change_nothing(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, 3)
    play_to_end(ctx, toks)
    seat_page = page(client, f"/play/{toks[0]}")
    assert section(seat_page) is None
    before = snapshot(ctx)
    response = client.post(f"/play/{toks[0]}/practice", data={"csrf_token": csrf_from(seat_page), "level": "easy"})
    assert response.status_code == 409 and "No practice game was started." in response.get_data(as_text=True)
    assert snapshot(ctx) == before
    running, others = new_game(ctx, 2)
    before = snapshot(ctx)
    running_page = page(client, f"/play/{others[0]}")
    assert client.post(f"/play/{others[0]}/practice", data={"level": "easy"}).status_code == 400  # no form token
    bad = client.post(f"/play/{others[0]}/practice", data={"csrf_token": csrf_from(running_page), "level": "x"})
    assert bad.status_code == 422
    stale = client.post(f"/play/{others[0]}/practice",
                        data={"csrf_token": csrf_from(running_page), "level": "easy", "ply": "4"})
    assert stale.status_code == 409 and "No practice game was started." in stale.get_data(as_text=True)
    assert snapshot(ctx) == before


def test_the_replay_offers_practice_to_a_signed_in_player(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, 3)
    moves = play_to_end(ctx, toks)
    visitor = page(client, f"/games/{game_id}/replay?ply=5")
    card = section(visitor)
    assert card is not None and 'id="practice-sign-in"' in card and "<form" not in card
    before = snapshot(ctx)
    response = client.post(f"/games/{game_id}/replay/practice",
                           data={"csrf_token": csrf_from(visitor), "ply": "5", "seat": "2", "level": "easy"})
    assert response.status_code == 401 and snapshot(ctx) == before
    assert section(page(client, f"/games/{game_id}/replay?ply={moves}")) is None  # nothing left to play

    sign_in(client, ctx, "bob@example.org")
    replay = page(client, f"/games/{game_id}/replay?ply=5&part=step")  # what the replay's script swaps in
    card = section(replay)
    assert card is not None and 'name="ply" value="5"' in card and 'name="seat"' in card
    response = client.post(f"/games/{game_id}/replay/practice",
                           data={"csrf_token": csrf_from(replay), "ply": "5", "seat": "2", "level": "medium"})
    assert response.status_code == 303
    token = response.headers["Location"].rpartition("/play/")[2]
    view = games.seat_view(ctx, token)
    assert view["seat"] == 2 and view["you"] == "Bob" and view["ply"] == 5 and view["your_turn"]
    assert f'data-practice-of="{game_id}"' in page(client, f"/play/{token}")
    bad = client.post(f"/games/{game_id}/replay/practice",
                      data={"csrf_token": csrf_from(replay), "ply": str(moves), "seat": "0", "level": "easy"})
    assert bad.status_code == 422


def test_practice_starts_count_as_new_games_per_client(database_url: str) -> None:
    from pbem.web import create_app

    app = create_app(app_config(database_url, LIMIT_NEW_GAMES="1 per day"))
    ctx, client = app.extensions["pbem"], app.test_client()
    try:
        game_id, toks = new_game(ctx, 2)
        seat_page = page(client, f"/play/{toks[0]}")
        data = {"csrf_token": csrf_from(seat_page), "level": "easy"}
        assert client.post(f"/play/{toks[0]}/practice", data=data).status_code == 303
        before = snapshot(ctx)
        assert client.post(f"/play/{toks[0]}/practice", data=data).status_code == 429
        assert snapshot(ctx) == before
    finally:
        ctx.engine.dispose()


def test_practise_through_the_api(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 2)
    auth = {"Authorization": f"Bearer {toks[0]}"}
    seen = games.seat_view(ctx, toks[0])
    before = snapshot(ctx)
    for body, status, code in [({"level": "genius"}, 422, "invalid-level"), ({}, 422, "invalid-level"),
                               ({"level": "easy", "ply": 5}, 409, "stale"),
                               ({"level": "easy", "ply": "2"}, 400, "bad-request")]:
        response = client.post("/api/v1/seat/practice", json=body, headers=auth)
        assert (response.status_code, response.json["error"]["code"]) == (status, code), body
    assert client.post("/api/v1/seat/practice", json={"level": "easy"}).status_code == 401
    assert snapshot(ctx) == before

    response = client.post("/api/v1/seat/practice", json={"level": "medium", "ply": seen["ply"]}, headers=auth)
    assert response.status_code == 201, response.json
    made = response.json
    assert set(made) == {"game", "token"} and made["game"] != game_id
    view = client.get("/api/v1/seat", headers={"Authorization": f"Bearer {made['token']}"}).json
    assert view["game"] == made["game"] and view["seat"] == seen["seat"] and view["clan"] == seen["clan"]
    assert [h["move"] for h in view["history"][:2]] == [h["move"] for h in seen["history"]]
    after = snapshot(ctx)
    for table, rows in before.items():
        assert after[table][:len(rows)] == rows, table  # the original's rows are as they were
