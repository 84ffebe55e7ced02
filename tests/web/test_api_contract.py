"""The JSON API as service.md describes it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlmodel import select

from pbem import games
from pbem.core.db import session_scope
from pbem.core.models import Game, MoveRecord
from pbem.rules import CLANS
from tests.support.games import PLAYERS, new_game, play, seat_tokens, to_move
from tests.support.messages import caught


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def test_create_accept_and_play_through_the_api(client, ctx):
    r = client.post("/api/v1/games", json={"players": PLAYERS, "turn_hours": 48})
    assert r.status_code == 201
    game_id = r.json["id"]
    assert r.headers["Location"] == f"/api/v1/games/{game_id}"
    assert r.json["status"] == "invited" and r.json["turn_hours"] == 48
    invites = caught(ctx, kind="invite")
    assert [str(m["To"]) for m in invites] == [PLAYERS[0]["email"]]  # the creator confirms first
    toks = seat_tokens(ctx, game_id)
    for n, token in enumerate(toks):
        r = client.post("/api/v1/seat/accept", headers=bearer(token))
        assert r.status_code == 200
        assert r.json["status"] == ("active" if n == len(toks) - 1 else "waiting")
        if n == 0:  # the creator's acceptance sends the others' invitations
            invites = caught(ctx, kind="invite")
            assert sorted(str(m["To"]) for m in invites) == sorted(p["email"] for p in PLAYERS)
    views = [client.get("/api/v1/seat", headers=bearer(t)).json for t in toks]
    assert sum(v["your_turn"] for v in views) == 1
    mine = next(v for v in views if v["your_turn"])
    token = toks[views.index(mine)]
    r = client.post("/api/v1/seat/moves", headers=bearer(token),
                    json={"move": mine["legal_moves"][0], "ply": mine["ply"]})
    assert r.status_code == 200 and r.json["ply"] == 1 and not r.json["your_turn"]


@pytest.mark.parametrize("players, code", [
    ([PLAYERS[0]], "invalid-players"),
    (PLAYERS + PLAYERS[:2], "invalid-players"),
    ([PLAYERS[0], {"name": "Bob", "email": "not an address"}], "invalid-email"),
    ([PLAYERS[0], {"name": "", "email": "b@example.org"}], "invalid-players"),
    ([PLAYERS[0], PLAYERS[0]], "invalid-players"),
    ("ann", "invalid-players"),
])
def test_bad_new_games_are_refused_and_create_nothing(client, ctx, players, code):
    r = client.post("/api/v1/games", json={"players": players})
    assert r.status_code == 422 and r.json["error"]["code"] == code
    with session_scope(ctx.engine) as session:
        assert session.exec(select(Game)).first() is None
    assert caught(ctx) == []


@pytest.mark.parametrize("body, status, code", [
    ("{not json", 400, "bad-json"),
    ("[1, 2]", 400, "bad-json"),
    (json.dumps({"move": "1-2"}), 400, "bad-request"),
    (json.dumps({"move": "1-2", "ply": "0"}), 400, "bad-request"),
    (json.dumps({"move": 12, "ply": 0}), 422, "malformed-move"),
    (json.dumps({"move": "1-2", "ply": 0, "order": "x"}), 422, "bad-order"),
])
def test_malformed_move_requests(client, ctx, body, status, code):
    game_id, toks = new_game(ctx)
    token, _ = to_move(ctx, toks)
    r = client.post("/api/v1/seat/moves", headers={**bearer(token), "Content-Type": "application/json"},
                    data=body)
    assert r.status_code == status and r.json["error"]["code"] == code
    assert games.public_game(ctx, game_id)["ply"] == 0


@pytest.mark.parametrize("ply", [True, False, 1.5, "1", None])
def test_a_ply_that_is_not_a_whole_number_is_refused(client, ctx, ply):
    """A bool is not a ply, though Python counts True as 1: at ply 1, ``"ply": true``
    with a legal move is refused (as the document says: 400 bad-request), not played."""
    game_id, toks = new_game(ctx)
    play(ctx, toks, 1)
    token, view = to_move(ctx, toks)
    assert view["ply"] == 1
    r = client.post("/api/v1/seat/moves", headers=bearer(token), json={"move": view["legal_moves"][0], "ply": ply})
    assert r.status_code == 400 and r.json["error"]["code"] == "bad-request", r.json
    assert games.public_game(ctx, game_id)["ply"] == 1


def test_another_seat_resending_the_last_move_is_stale(client, ctx):
    """Only the seat that made a move may send it again and get the view: the
    same move and ply from another seat is a stale request (409), not a replay."""
    game_id, toks = new_game(ctx)
    token, view = to_move(ctx, toks)
    body = {"move": view["legal_moves"][0], "ply": 0}
    assert client.post("/api/v1/seat/moves", headers=bearer(token), json=body).status_code == 200
    for other in (t for t in toks if t != token):
        r = client.post("/api/v1/seat/moves", headers=bearer(other), json=body)
        assert r.status_code == 409 and r.json["error"]["code"] == "stale", r.json
    assert client.post("/api/v1/seat/moves", headers=bearer(token), json=body).status_code == 200
    assert games.public_game(ctx, game_id)["ply"] == 1


def test_refusals_carry_the_rules_codes(client, ctx):
    game_id, toks = new_game(ctx)
    token, view = to_move(ctx, toks)
    r = client.post("/api/v1/seat/moves", headers=bearer(token), json={"move": "1-1", "ply": 0})
    assert r.status_code == 422 and r.json["error"]["code"] == "not-adjacent"
    assert "1" in r.json["error"]["message"]
    r = client.post("/api/v1/seat/moves", headers=bearer(token), json={"move": view["legal_moves"][0], "ply": 5})
    assert r.status_code == 409 and r.json["error"]["code"] == "stale"
    other = next(t for t in toks if t != token)
    r = client.post("/api/v1/seat/moves", headers=bearer(other), json={"move": view["legal_moves"][0], "ply": 0})
    assert r.status_code == 409 and r.json["error"]["code"] == "not-your-turn"


def test_repeated_identical_submission_returns_the_view_once(client, ctx):
    game_id, toks = new_game(ctx)
    token, view = to_move(ctx, toks)
    body = {"move": view["legal_moves"][0], "ply": 0}
    first = client.post("/api/v1/seat/moves", headers=bearer(token), json=body)
    second = client.post("/api/v1/seat/moves", headers=bearer(token), json=body)
    assert first.status_code == second.status_code == 200
    assert first.json["ply"] == second.json["ply"] == 1
    with session_scope(ctx.engine) as session:
        assert len(session.exec(select(MoveRecord)).all()) == 1


@pytest.mark.parametrize("header", ["", "Bearer", "Bearer nope", "Basic abc", "Bearer " + "A" * 43])
def test_bad_tokens_get_401(client, ctx, header):
    new_game(ctx)
    r = client.get("/api/v1/seat", headers={"Authorization": header} if header else {})
    assert r.status_code == 401 and r.json["error"]["code"] == "unauthorized"
    r = client.post("/api/v1/seat/moves", headers={"Authorization": header}, json={"move": "1-2", "ply": 0})
    assert r.status_code == 401


def test_unknown_game_oversized_body_and_wrong_method(client, ctx):
    assert client.get("/api/v1/games/12345").status_code == 404
    assert client.get("/api/v1/games/12345").json["error"]["code"] == "not-found"
    r = client.post("/api/v1/games", data="x" * (200 * 1024), headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "error" in r.json
    r = client.get("/api/v1/seat/moves")
    assert r.status_code == 405 and "error" in r.json


def test_no_api_answer_shows_another_players_clan_before_the_end(client, ctx):
    game_id, toks = new_game(ctx, 3)
    clans = {}
    for token in toks:
        view = client.get("/api/v1/seat", headers=bearer(token)).json
        clans[view["seat"]] = view["clan"]
        assert view["clan"] in CLANS
        assert all(p["clan"] is None for p in view["players"])
    assert len(set(clans.values())) == 3
    public = client.get(f"/api/v1/games/{game_id}").json
    assert all(p["clan"] is None for p in public["players"])
    assert "clan" not in public or public.get("clan") is None
    record = client.get(f"/api/v1/games/{game_id}/record").json
    assert "clans" not in record
    for token in toks:
        view = client.get("/api/v1/seat", headers=bearer(token)).json
        text = json.dumps({k: v for k, v in view.items() if k not in ("huts", "villages", "clan_scores")})
        for seat, clan in clans.items():
            if seat != view["seat"]:
                assert f'"clan": "{clan}"' not in text


def test_get_and_head_change_nothing(client, ctx):
    game_id, toks = new_game(ctx, start=False)
    before = games.public_game(ctx, game_id)
    for token in toks:
        client.get("/api/v1/seat", headers=bearer(token))
        client.head("/api/v1/seat", headers=bearer(token))
        client.get(f"/play/{token}")
        client.head(f"/play/{token}")
    assert games.public_game(ctx, game_id) == before
    assert before["status"] == "invited"


def test_openapi_document(client):
    doc = client.get("/api/v1/openapi.json").json
    assert doc["openapi"].startswith("3.")
    for path in ("/games", "/games/{id}", "/games/{id}/record", "/seat", "/seat/accept", "/seat/moves"):
        assert path in doc["paths"]


def test_pause_via_the_api(client: Any, ctx: Any) -> None:
    ctx.config["VACATION_DAYS"] = 7  # the bank pauses spend from (a person's, a year's)
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    auth = {"Authorization": f"Bearer {t}"}
    ok = client.post("/api/v1/seat/pause", json={"days": 2}, headers=auth)
    assert ok.status_code == 200 and ok.json["vacation_days_left"] == 5
    assert ok.json["players"][view["seat"]]["paused_until"]
    too_many = client.post("/api/v1/seat/pause", json={"days": 6}, headers=auth)
    assert too_many.status_code == 422 and too_many.json["error"]["code"] == "invalid-days"
    assert client.post("/api/v1/seat/pause", json={"days": 1},
                       headers={"Authorization": "Bearer nope"}).status_code == 401
    assert client.post("/api/v1/seat/pause", json={}, headers=auth).status_code == 422
    assert games.seat_view(ctx, t)["vacation_days_left"] == 5
