"""The lobby's API: open seats in a new game, the listing, joining by mail and
accepting, every refusal with its code and nothing changed, no address anywhere."""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import pytest

from pbem import games
from tests.support.config import app_config
from tests.support.games import seat_tokens
from tests.support.messages import caught, parts
from tests.support.web import snapshot

IP = "198.51.100.9"


def open_game(client: Any, ctx: Any, seats: int = 3, **extra: Any) -> str:
    """Ann's table with open seats, confirmed by her."""
    body = {"players": [{"name": "Ann", "email": "ann@example.org"}] + [{"open": True}] * (seats - 1), **extra}
    r = client.post("/api/v1/games", json=body, environ_base={"REMOTE_ADDR": IP})
    assert r.status_code == 201, r.json
    games.accept(ctx, seat_tokens(ctx, r.json["id"])[0])
    return str(r.json["id"])


def join(client: Any, table: str, name: str, email: str, ip: str = IP, **extra: Any) -> Any:
    return client.post(f"/api/v1/lobby/{table}/join", json={"name": name, "email": email, **extra},
                       environ_base={"REMOTE_ADDR": ip})


def link_token(message: Any) -> str:
    text = parts(message)["text"]
    found = re.search(r"https://clans\.example/play/(\S+)", text)
    assert found, text
    return found.group(1)


def test_a_table_is_listed_joined_by_mail_and_started(client: Any, ctx: Any) -> None:
    table = open_game(client, ctx, turn_hours=24)
    listed = client.get("/api/v1/lobby").json
    assert listed["page"] == 1 and listed["more"] is False
    assert [(t["id"], t["seats"], t["open_seats"], t["turn_hours"]) for t in listed["tables"]] == [(table, 3, 2, 24)]
    assert join(client, table, "Bea", "bea@example.org", language="pt").status_code == 202
    invitation = caught(ctx, "bea@example.org", kind="table-invite")[-1]
    assert invitation["Content-Language"] == "pt-PT"
    body = parts(invitation)
    assert "Ann" in body["text"] and "ann@example.org" not in body["text"] + body["html"]
    bea = link_token(invitation)
    assert client.post("/api/v1/seat/accept", headers={"Authorization": f"Bearer {bea}"}).status_code == 200
    # Bea is seated now: the lobby shows her by name, with her reliability, and no address.
    listed = client.get("/api/v1/lobby").json
    assert [p["name"] for p in listed["tables"][0]["players"]] == ["Ann", "Bea"]
    assert "@" not in json.dumps(listed)
    assert join(client, table, "Cy", "cy@example.org").status_code == 202
    cy = link_token(caught(ctx, "cy@example.org", kind="table-invite")[-1])
    # Cy's invitation names the two strangers at the table, never their addresses.
    text = parts(caught(ctx, "cy@example.org", kind="table-invite")[-1])["text"]
    assert "Ann" in text and "Bea" in text and "bea@example.org" not in text
    view = client.post("/api/v1/seat/accept", headers={"Authorization": f"Bearer {cy}"}).json
    assert view["status"] == "active"
    assert client.get("/api/v1/lobby").json["tables"] == []
    refused = join(client, table, "Dot", "dot@example.org")
    assert refused.status_code == 409 and refused.json["error"]["code"] == "full"


def test_a_held_seat_answers_seat_taken_and_changes_nothing(client: Any, ctx: Any) -> None:
    table = open_game(client, ctx, seats=2)
    assert join(client, table, "Bea", "bea@example.org").status_code == 202
    before = snapshot(ctx)
    refused = join(client, table, "Cy", "cy@example.org")
    assert refused.status_code == 409 and refused.json["error"]["code"] == "seat-taken"
    assert snapshot(ctx) == before


@pytest.mark.parametrize("body, status, code", [
    ({"name": "", "email": "bea@example.org"}, 422, "invalid-name"),
    ({"name": "Bea", "email": "not an address"}, 422, "invalid-email"),
    ({"name": "Bea", "email": "bea@example.org", "language": "de"}, 422, "invalid-language"),
    ({"name": "Bea", "email": "bea@example.org", "language": ""}, 422, "invalid-language"),
    ({"name": "Bea", "email": "bea@example.org", "time_zone": ""}, 422, "invalid-time-zone"),
    ({"name": "Bea", "email": "bea@example.org", "time_zone": "Mars/Olympus"}, 422, "invalid-time-zone"),
    ({"name": "ANN", "email": "bea@example.org"}, 422, "invalid-name"),
    ({"name": "Ann B", "email": "Ann+lobby@example.org"}, 409, "already-seated"),
])
def test_bad_joins_are_refused_and_change_nothing(client: Any, ctx: Any, body: dict[str, Any], status: int,
                                                  code: str) -> None:
    table = open_game(client, ctx)
    before = snapshot(ctx)
    r = client.post(f"/api/v1/lobby/{table}/join", json=body, environ_base={"REMOTE_ADDR": IP})
    assert (r.status_code, r.json["error"]["code"]) == (status, code)
    assert snapshot(ctx) == before


def test_unknown_tables_and_bad_filters(client: Any, ctx: Any) -> None:
    assert join(client, "nosuchtable0", "Bea", "bea@example.org").status_code == 404
    assert client.get("/api/v1/lobby/nosuchtable0").status_code == 404
    for query in ("players=9", "max_turn_hours=0", "language=de", "page=x", "page=²", "players=", "language="):
        r = client.get(f"/api/v1/lobby?{query}")
        assert r.status_code == 400 and r.json["error"]["code"] == "bad-filter", query


def test_requirements_are_listed_and_refuse_with_their_code(client: Any, ctx: Any) -> None:
    table = open_game(client, ctx, requirements={"min_in_time": 0.75, "max_rating": 30})
    assert client.get(f"/api/v1/lobby/{table}").json["requirements"] == {
        "min_in_time": 0.75, "min_rating": None, "max_rating": 30.0}
    before = snapshot(ctx)
    r = join(client, table, "Bea", "bea@example.org")
    assert r.status_code == 409 and r.json["error"]["code"] == "in-time-required"
    assert snapshot(ctx) == before
    bad = client.post("/api/v1/games", json={"players": [{"name": "Ann", "email": "ann@example.org"}, {"open": True}],
                                             "requirements": {"min_in_time": 1.5}}, environ_base={"REMOTE_ADDR": IP})
    assert bad.status_code == 422 and bad.json["error"]["code"] == "invalid-requirements"


@pytest.fixture
def limited(sqlite_url: str) -> Iterator[Any]:
    from pbem.web import create_app

    app = create_app(app_config(sqlite_url, LIMIT_JOINS_IP="2 per hour", LIMIT_JOINS="1 per hour"))
    yield app
    app.extensions["pbem"].engine.dispose()


def test_joins_are_limited_per_client_and_per_mailbox(limited: Any) -> None:
    client, ctx = limited.test_client(), limited.extensions["pbem"]
    tables = [open_game(client, ctx, seats=2) for _ in range(3)]
    assert join(client, tables[0], "Bea", "bea@example.org").status_code == 202
    # The same mailbox (a +tag is the same mailbox) from elsewhere: its own limit.
    r = join(client, tables[1], "Bea", "bea+2@example.org", ip="203.0.113.5")
    assert r.status_code == 429 and r.json["error"]["code"] == "rate-limited" and int(r.headers["Retry-After"]) >= 1
    assert join(client, tables[1], "Cy", "cy@example.org").status_code == 202
    # A third join from the first client: the client's limit.
    r = join(client, tables[2], "Dot", "dot@example.org")
    assert r.status_code == 429


def test_three_unaccepted_joins_per_mailbox(client: Any, ctx: Any) -> None:
    tables = [open_game(client, ctx, seats=2) for _ in range(4)]
    for n, table in enumerate(tables[:3]):
        assert join(client, table, "Bea", "bea@example.org", ip=f"198.51.100.{20 + n}").status_code == 202
    before = snapshot(ctx)
    r = join(client, tables[3], "Bea", "bea@example.org", ip="198.51.100.30")
    assert r.status_code == 409 and r.json["error"]["code"] == "too-many-joins"
    assert snapshot(ctx) == before


def test_play_again_after_a_lobby_game_shows_no_address(client: Any, ctx: Any) -> None:
    """"Play again" invites the others by mail: strangers from the lobby are named,
    never given each other's address."""
    from tests.support.games import finish

    table = open_game(client, ctx, seats=2)
    assert join(client, table, "Bea", "bea@example.org").status_code == 202
    bea = link_token(caught(ctx, "bea@example.org", kind="table-invite")[-1])
    client.post("/api/v1/seat/accept", headers={"Authorization": f"Bearer {bea}"})
    finish(ctx, table, seat_tokens(ctx, table))
    again = client.post("/api/v1/seat/rematch", headers={"Authorization": f"Bearer {bea}"})
    assert again.status_code == 201, again.json
    invitation = caught(ctx, "ann@example.org", kind="invite")[-1]
    body = parts(invitation)
    assert "Bea" in body["text"] and "bea@example.org" not in body["text"] + body["html"]
    assert "from the lobby" in body["text"]
