"""Strangers, safely, on the pages and in the API: blocking from the table talk
and from a profile (CSRF-protected POSTs), reporting a message, the profile page
(no address, a hidden one answers 404), "My games" (the profile's settings, the
list of blocked people), and the API's routes with their refusals (401 bad
token, 404 unknown message, 409 and 422 that change nothing)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from sqlmodel import select

from pbem import games
from pbem.core.db import session_scope
from pbem.core.people_tables import Block, Profile, TalkReport
from pbem.table import talk
from tests.support.games import PLAYERS, finish, new_game
from tests.support.web import csrf_token, sign_in, snapshot

ANN, BOB, CID = (p["email"] for p in PLAYERS)


def page(client: Any, path: str, status: int = 200) -> str:
    response = client.get(path)
    assert response.status_code == status, response.status_code
    return response.get_data(as_text=True)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def seat_no(ctx: Any, token: str) -> int:
    return int(games.seat_view(ctx, token)["seat"])


def rows(ctx: Any, model: Any) -> list[Any]:
    with session_scope(ctx.engine) as session:
        return list(session.exec(select(model)))


def bobs_message(ctx: Any, toks: list[str], text: str = "hello from Bob") -> int:
    talk.talk(ctx, toks[1], text)
    return next(m["id"] for m in talk.table(ctx, toks[2]).messages if m["text"] == text)


def test_block_from_the_talk_hides_the_players_messages(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    message = bobs_message(ctx, toks)
    seat_page = page(client, f"/play/{toks[0]}")
    assert f'data-talk-actions="{message}"' in seat_page and "Block Bob" in seat_page
    # Not beside one's own message.
    talk.talk(ctx, toks[0], "mine")
    mine = next(m["id"] for m in talk.table(ctx, toks[0]).messages if m["you"])
    assert f'data-talk-actions="{mine}"' not in page(client, f"/play/{toks[0]}")

    # Without the form token: refused, nothing changes.
    before = snapshot(ctx)
    assert client.post(f"/play/{toks[0]}/block", data={"message": str(message)}).status_code == 400
    assert snapshot(ctx) == before

    response = client.post(f"/play/{toks[0]}/block",
                           data={"csrf_token": csrf_token(client, f"/play/{toks[0]}"), "message": str(message)})
    assert response.status_code == 303 and response.headers["Location"].endswith("#talk")
    shown = page(client, f"/play/{toks[0]}")
    assert "You blocked Bob" in shown and "hello from Bob" not in shown and "data-talk-hidden" in shown
    assert "hello from Bob" in page(client, f"/play/{toks[2]}")
    (row,) = rows(ctx, Block)
    assert (row.blocker, row.blocked, row.name) == (ANN, BOB, "Bob")


def test_a_refused_block_on_the_page_says_so_and_changes_nothing(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    before = snapshot(ctx)
    response = client.post(f"/play/{toks[0]}/block",
                           data={"csrf_token": csrf_token(client, f"/play/{toks[0]}"), "message": "999999"})
    assert response.status_code == 404
    assert "Nothing was changed." in response.get_data(as_text=True)
    assert snapshot(ctx) == before


def test_report_from_the_page(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    message = bobs_message(ctx, toks, "rude words")
    form = {"csrf_token": csrf_token(client, f"/play/{toks[0]}"), "message": str(message), "reason": "rude"}
    response = client.post(f"/play/{toks[0]}/report", data=form)
    assert response.status_code == 303
    assert "reported to the people who run this service" in page(client, f"/play/{toks[0]}")
    (row,) = rows(ctx, TalkReport)
    assert (row.message_id, row.reason) == (message, "rude")
    # Your own message: 409, nothing stored.
    talk.talk(ctx, toks[0], "mine")
    mine = next(m["id"] for m in talk.table(ctx, toks[0]).messages if m["you"])
    refused = client.post(f"/play/{toks[0]}/report", data={**form, "message": str(mine)})
    assert refused.status_code == 409 and "Nothing was reported." in refused.get_data(as_text=True)
    assert len(rows(ctx, TalkReport)) == 1


def test_the_profile_shows_no_address_and_a_hidden_one_is_not_found(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    finish(ctx, game_id, toks)
    bobs_message(ctx, toks)
    seat_page = page(client, f"/play/{toks[0]}")
    link = re.search(r'href="(/people/[a-z0-9]+)"', seat_page)
    assert link, "no profile link beside Bob's message"
    profile = page(client, link.group(1))
    assert "<h1>Bob</h1>" in profile and 'data-stat="finished">1<' in profile
    for p in PLAYERS:
        assert p["email"] not in profile
    assert "@" not in profile

    sign_in(client, ctx, BOB)
    games_page = page(client, "/games")
    assert f'href="{link.group(1)}"' in games_page
    response = client.post("/games/profile", data={"csrf_token": csrf_token(client, "/games"), "hidden": "1"})
    assert response.status_code == 303
    assert page(client, link.group(1), 404)
    assert link.group(1) not in page(client, f"/play/{toks[0]}")  # nor linked from the table
    (row,) = [p for p in rows(ctx, Profile) if p.email == BOB]
    assert row.hidden
    assert page(client, "/people/k3vx9q2mtr7hwa", 404) and page(client, "/people/..%2Fetc", 404)


def test_block_from_a_profile_and_unblock_on_my_games(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    bobs_message(ctx, toks)
    link = re.search(r'href="(/people/[a-z0-9]+)"', page(client, f"/play/{toks[0]}"))
    assert link
    # Anonymous: no block button, and the POST is refused.
    assert "Block Bob" not in page(client, link.group(1))
    anonymous = client.post(link.group(1) + "/block", data={"csrf_token": csrf_token(client, link.group(1))})
    assert anonymous.status_code == 401 and rows(ctx, Block) == []

    sign_in(client, ctx, ANN)
    response = client.post(link.group(1) + "/block", data={"csrf_token": csrf_token(client, link.group(1)),
                                                           "block": "1"})
    assert response.status_code == 303
    assert "Unblock Bob" in page(client, link.group(1))
    games_page = page(client, "/games")
    (row,) = rows(ctx, Block)
    assert f'data-block="{row.id}"' in games_page and BOB not in games_page
    response = client.post(f"/games/blocks/{row.id}/remove", data={"csrf_token": csrf_token(client, "/games")})
    assert response.status_code == 303 and rows(ctx, Block) == []


# -- the API ---------------------------------------------------------------------


def test_block_and_unblock_by_the_api(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    bob = seat_no(ctx, toks[1])
    made = client.post("/api/v1/seat/block", json={"seat": bob}, headers=bearer(toks[0]))
    assert made.status_code == 201
    assert made.get_json() == {"seat": bob, "name": "Bob", "blocked": True, "changed": True}
    again = client.post("/api/v1/seat/block", json={"message": bobs_message(ctx, toks)}, headers=bearer(toks[0]))
    assert again.status_code == 200 and not again.get_json()["changed"]
    # The message is hidden from Ann now.
    assert talk.table(ctx, toks[0]).messages == []
    gone = client.delete(f"/api/v1/seat/block/{bob}", headers=bearer(toks[0]))
    assert gone.status_code == 200 and gone.get_json()["blocked"] is False
    assert rows(ctx, Block) == []


@pytest.mark.parametrize("body, status, code", [
    ({"seat": "own"}, 409, "own-seat"),
    ({"seat": 9}, 422, "invalid-seat"),
    ({}, 422, "no-target"),
    ({"message": 999999}, 404, "no-message"),
    ([1], 400, "bad-json"),
])
def test_refused_blocks_by_the_api_change_nothing(client: Any, ctx: Any, body: Any, status: int, code: str) -> None:
    _, toks = new_game(ctx)
    if body == {"seat": "own"}:
        body = {"seat": seat_no(ctx, toks[0])}
    before = snapshot(ctx)
    response = client.post("/api/v1/seat/block", json=body, headers=bearer(toks[0]))
    assert response.status_code == status and response.get_json()["error"]["code"] == code
    assert snapshot(ctx) == before


def test_report_by_the_api(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    message = bobs_message(ctx, toks)
    made = client.post(f"/api/v1/seat/talk/{message}/report", json={"reason": "spam"}, headers=bearer(toks[0]))
    assert made.status_code == 201 and made.get_json() == {"message": message, "reported": True, "created": True}
    again = client.post(f"/api/v1/seat/talk/{message}/report", headers=bearer(toks[0]))
    assert again.status_code == 200 and again.get_json()["created"] is False
    (row,) = rows(ctx, TalkReport)
    assert row.reason == "spam"


def test_refused_reports_by_the_api_change_nothing(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    message = bobs_message(ctx, toks)
    talk.talk(ctx, toks[0], "mine")
    mine = next(m["id"] for m in talk.table(ctx, toks[0]).messages if m["you"])
    before = snapshot(ctx)
    for path, headers, body, status, code in [
        (f"/api/v1/seat/talk/{message}/report", {"Authorization": "Bearer nope-not-a-seat-token-at-all"}, None,
         401, "unauthorized"),
        (f"/api/v1/seat/talk/{message}/report", {}, None, 401, "unauthorized"),
        ("/api/v1/seat/talk/999999/report", bearer(toks[0]), None, 404, "no-message"),
        (f"/api/v1/seat/talk/{mine}/report", bearer(toks[0]), None, 409, "own-message"),
        (f"/api/v1/seat/talk/{message}/report", bearer(toks[0]), {"reason": "x" * 501}, 422, "reason-too-long"),
        (f"/api/v1/seat/talk/{message}/report", bearer(toks[0]), {"reason": 5}, 422, "bad-reason"),
    ]:
        response = client.post(path, headers=headers, json=body) if body is not None else client.post(
            path, headers=headers)
        assert response.status_code == status, (path, response.get_data(as_text=True))
        assert response.get_json()["error"]["code"] == code
    assert snapshot(ctx) == before


def test_a_rematch_of_blocked_people_is_refused_by_the_api(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    finish(ctx, game_id, toks)
    client.post("/api/v1/seat/block", json={"seat": seat_no(ctx, toks[2])}, headers=bearer(toks[1]))
    before = snapshot(ctx)
    response = client.post("/api/v1/seat/rematch", headers=bearer(toks[0]))
    assert response.status_code == 409 and response.get_json()["error"]["code"] == "blocked"
    assert snapshot(ctx) == before
