""""Play again" on a finished game's seat page (and the API): one rematch with the
same players; the other seats' pages and the public page then point to it,
each seat to its own place only."""

from __future__ import annotations

import re
from typing import Any

from sqlmodel import select

from pbem.core import tokens
from pbem.table import rematch
from pbem.core.db import session_scope
from pbem.core.models import Seat
from tests.support.config import app_config
from tests.support.games import finish, new_game, play, seat_tokens
from tests.support.messages import caught
from tests.support.web import csrf_from, snapshot
from pbem import games


def finished(ctx: Any, players: int = 3) -> tuple[str, list[str]]:
    game_id, toks = new_game(ctx, players)
    play(ctx, toks, 1)
    finish(ctx, game_id, toks)
    return game_id, toks


def page(client: Any, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, response.status_code
    return response.get_data(as_text=True)


def rematch_section(text: str) -> str:
    m = re.search(r'<section class="card rematch".*?</section>', text, re.S)
    assert m, "no rematch card"
    return m.group(0)


def test_play_again_from_the_seat_page(client: Any, ctx: Any) -> None:
    game_id, toks = finished(ctx)
    seat_page = page(client, f"/play/{toks[0]}")
    card = rematch_section(seat_page)
    assert f'action="/play/{toks[0]}/rematch"' in card and ">Play again</button>" in card
    invites = len(caught(ctx, kind="invite"))

    response = client.post(f"/play/{toks[0]}/rematch", data={"csrf_token": csrf_from(seat_page)})

    assert response.status_code == 303
    new_token = response.headers["Location"].rpartition("/play/")[2]
    view = games.seat_view(ctx, new_token)
    rematch_id = view["game"]
    assert view["status"] == "waiting" and view["you"] == games.seat_view(ctx, toks[0])["you"]
    assert "You started a rematch." in page(client, f"/play/{new_token}")
    # The other two are invited by mail, to the rematch.
    sent = caught(ctx, kind="invite")[invites:]
    assert len(sent) == 2 and {m["X-PBEM-Game"] for m in sent} == {rematch_id}
    new_tokens = seat_tokens(ctx, rematch_id)

    # The others' finished pages point each to their own seat in it, never to another's.
    for old in toks[1:]:
        card = rematch_section(page(client, f"/play/{old}"))
        assert "A rematch has started" in card and rematch_id in card
        links = re.findall(r'href="/play/([^"]+)"', card)
        assert len(links) == 1 and links[0] in new_tokens
        assert games.seat_view(ctx, links[0])["you"] == games.seat_view(ctx, old)["you"]
        assert "Play again</button>" not in card
    # The public page names the rematch's public page, and no seat at all.
    public = page(client, f"/games/{game_id}")
    card = rematch_section(public)
    assert f'href="/games/{rematch_id}"' in card
    assert "/play/" not in public and not any(t in public for t in new_tokens)

    # A second click (or another player's) leads to the same rematch.
    count = snapshot(ctx)["game"]
    again = client.post(f"/play/{toks[1]}/rematch", data={"csrf_token": csrf_from(seat_page)})
    assert again.status_code == 303
    other = again.headers["Location"].rpartition("/play/")[2]
    assert games.seat_view(ctx, other)["game"] == rematch_id and other != new_token
    assert "The rematch had started already" in page(client, f"/play/{other}")
    assert snapshot(ctx)["game"] == count


def test_no_rematch_before_the_end(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx, 2)
    seat_page = page(client, f"/play/{toks[0]}")
    assert 'class="card rematch"' not in seat_page
    before = snapshot(ctx)
    response = client.post(f"/play/{toks[0]}/rematch", data={"csrf_token": csrf_from(seat_page)})
    assert response.status_code == 409
    assert "A rematch can start only when this game is over." in response.get_data(as_text=True)
    assert snapshot(ctx) == before


def test_a_rematch_needs_the_form_token_and_a_real_seat(client: Any, ctx: Any) -> None:
    _, toks = finished(ctx, 2)
    good = csrf_from(page(client, f"/play/{toks[0]}"))
    before = snapshot(ctx)
    for sent in ({}, {"csrf_token": "wrong"}):
        assert client.post(f"/play/{toks[0]}/rematch", data=sent).status_code == 400
    assert client.post(f"/play/{'x' * 43}/rematch", data={"csrf_token": good}).status_code == 401
    assert snapshot(ctx) == before


def test_rematches_count_against_the_limit_on_new_games(database_url: str) -> None:
    from pbem.web import create_app

    app = create_app(app_config(database_url, LIMIT_NEW_GAMES="1 per day"))
    try:
        ctx, client = app.extensions["pbem"], app.test_client()
        _, first = finished(ctx, 2)
        _, second = finished(ctx, 2)
        token = csrf_from(page(client, f"/play/{first[0]}"))
        assert client.post(f"/play/{first[0]}/rematch", data={"csrf_token": token}).status_code == 303
        before = snapshot(ctx)
        refused = client.post(f"/play/{second[0]}/rematch", data={"csrf_token": token})
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        assert snapshot(ctx) == before
        # Finding the rematch there is costs nothing.
        assert client.post(f"/play/{first[1]}/rematch", data={"csrf_token": token}).status_code == 303
    finally:
        app.extensions["pbem"].engine.dispose()


def test_rematch_by_the_api(client: Any, ctx: Any) -> None:
    _, running = new_game(ctx, 2)
    refused = client.post("/api/v1/seat/rematch", headers={"Authorization": f"Bearer {running[0]}"})
    assert refused.status_code == 409 and refused.json["error"]["code"] == "not-finished"
    assert client.post("/api/v1/seat/rematch").status_code == 401
    assert client.post("/api/v1/seat/rematch", headers={"Authorization": "Bearer " + "x" * 43}).status_code == 401

    _, toks = finished(ctx, 2)
    made = client.post("/api/v1/seat/rematch", headers={"Authorization": f"Bearer {toks[0]}"})
    assert made.status_code == 201 and made.json["created"] is True
    seat = client.get("/api/v1/seat", headers={"Authorization": f"Bearer {made.json['token']}"}).json
    assert seat["game"] == made.json["game"] and seat["status"] == "waiting"
    again = client.post("/api/v1/seat/rematch", headers={"Authorization": f"Bearer {toks[1]}"})
    assert again.status_code == 200 and again.json["game"] == made.json["game"]
    assert again.json["created"] is False and again.json["token"] != made.json["token"]


def test_a_seat_the_computer_took_over_offers_no_button(client: Any, ctx: Any) -> None:
    _, toks = finished(ctx)
    with session_scope(ctx.engine) as session:
        seat = session.exec(select(Seat).where(Seat.token_hash == tokens.digest(toks[1]))).one()
        seat.bot, seat.bot_from = "medium", 1
        session.add(seat)
    assert 'class="card rematch"' not in page(client, f"/play/{toks[1]}")
    # Once someone else starts one, that person is invited back, and their page says where.
    made = rematch.play_again(ctx, toks[0]).game
    card = rematch_section(page(client, f"/play/{toks[1]}"))
    assert made in card and "data-rematch-seat" in card
