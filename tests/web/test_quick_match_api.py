"""Quick match through the API: three requests confirmed by their mailed links
(``POST /api/v1/seat/accept``) become one game; refusals with their codes and
nothing changed; no address in anyone else's mail."""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import pytest

from tests.support.config import app_config
from tests.support.messages import caught, parts
from tests.support.web import snapshot

IP = "198.51.100.19"


def quick(client: Any, name: str, email: str, ip: str = IP, **extra: Any) -> Any:
    body = {"name": name, "email": email, "players": [3], "turn_hours": 24, **extra}
    return client.post("/api/v1/lobby/quick", json=body, environ_base={"REMOTE_ADDR": ip})


def link_token(message: Any) -> str:
    found = re.search(r"https://clans\.example/play/(\S+)", parts(message)["text"])
    assert found
    return found.group(1)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_three_quick_match_requests_become_one_game(client: Any, ctx: Any) -> None:
    people = [("Ann", "ann@example.org", "hu"), ("Bea", "bea@example.org", "pt"), ("Cy", "cy@example.org", "cs")]
    tokens = []
    for n, (name, email, language) in enumerate(people):
        r = quick(client, name, email, ip=f"198.51.100.{40 + n}", language=language, players=[3, 4])
        assert r.status_code == 202 and r.json == {"mailed": True}, r.json
        (mail,) = caught(ctx, email, kind="match-confirm")
        assert mail["X-PBEM-Kind"] == "match-confirm"
        tokens.append(link_token(mail))
    # Waiting: the link shows the request's seat, confirmed, and no game yet.
    for token in tokens[:2]:
        r = client.post("/api/v1/seat/accept", headers=bearer(token))
        assert r.status_code == 200 and r.json["status"] == "waiting"
    r = client.post("/api/v1/seat/accept", headers=bearer(tokens[2]))
    assert r.status_code == 200
    views = [client.get("/api/v1/seat", headers=bearer(t)).json for t in tokens]
    assert len({v["game"] for v in views}) == 1 and all(v["status"] in ("active", "waiting") for v in views)
    assert sum(v["your_turn"] for v in views) == 1
    assert sorted(p["name"] for p in client.get(f"/api/v1/games/{views[0]['game']}").json["players"]) == \
        ["Ann", "Bea", "Cy"]
    for _, email, _ in people:
        for mail in caught(ctx, email):
            body = parts(mail)
            assert not any(other in body["text"] + body["html"] for _, other, _ in people if other != email)


def test_bad_requests_are_refused_and_change_nothing(client: Any, ctx: Any) -> None:
    assert quick(client, "Ann", "ann@example.org").status_code == 202
    before = snapshot(ctx)
    r = quick(client, "Ann", "ann+other@example.org", ip="198.51.100.50")
    assert r.status_code == 409 and r.json["error"]["code"] == "already-waiting"
    for bad, code in (({"name": ""}, "invalid-name"), ({"email": "nope"}, "invalid-email"),
                      ({"players": [1]}, "invalid-players"), ({"players": "3"}, "invalid-players"),
                      ({"turn_hours": 0}, "invalid-turn-hours"), ({"language": "de"}, "invalid-language")):
        body = {"name": "Bea", "email": "bea@example.org", "players": [3], "turn_hours": 24, **bad}
        r = client.post("/api/v1/lobby/quick", json=body, environ_base={"REMOTE_ADDR": IP})
        assert r.status_code == 422 and r.json["error"]["code"] == code, (bad, r.json)
    assert snapshot(ctx) == before


@pytest.fixture
def limited(sqlite_url: str) -> Iterator[Any]:
    from pbem.web import create_app

    app = create_app(app_config(sqlite_url, LIMIT_JOINS_IP="2 per hour"))
    yield app
    app.extensions["pbem"].engine.dispose()


def test_requests_are_limited_per_client(limited: Any) -> None:
    client = limited.test_client()
    assert quick(client, "Dot", "dot@example.org", ip="198.51.100.60").status_code == 202
    assert quick(client, "Eve", "eve@example.org", ip="198.51.100.60").status_code == 202
    r = quick(client, "Fay", "fay@example.org", ip="198.51.100.60")
    assert r.status_code == 429 and r.json["error"]["code"] == "rate-limited"


def test_an_away_seat_is_listed_and_taken_over_by_a_volunteer(client: Any, ctx: Any) -> None:
    from tests.service.test_substitutes import away

    links = []
    for n, name in enumerate(("Ann", "Bea", "Cy")):
        assert quick(client, name, f"{name.lower()}@example.org", ip=f"198.51.100.{70 + n}").status_code == 202
        links.append(link_token(caught(ctx, f"{name.lower()}@example.org", kind="match-confirm")[0]))
        client.post("/api/v1/seat/accept", headers=bearer(links[-1]))
    game = client.get("/api/v1/seat", headers=bearer(links[2])).json["game"]
    assert client.get("/api/v1/lobby").json["substitutes"] == []
    r = client.post(f"/api/v1/lobby/{game}/substitute", json={"name": "Dan", "email": "dan@example.org"},
                    environ_base={"REMOTE_ADDR": IP})
    assert r.status_code == 409 and r.json["error"]["code"] == "no-substitute-seat"
    away(ctx, links[2])
    listed = client.get("/api/v1/lobby").json["substitutes"]
    assert [(s["id"], s["name"]) for s in listed] == [(game, "Cy")] and "@" not in json.dumps(listed)
    r = client.post(f"/api/v1/lobby/{game}/substitute", json={"name": "Dan", "email": "dan@example.org"},
                    environ_base={"REMOTE_ADDR": IP})
    assert r.status_code == 202 and r.json == {"id": game, "mailed": True}
    dan = link_token(caught(ctx, "dan@example.org", kind="substitute")[0])
    assert client.post("/api/v1/seat/accept", headers=bearer(dan)).status_code == 200
    assert client.get("/api/v1/seat", headers=bearer(dan)).json["game"] == game
    r = client.get("/api/v1/seat", headers=bearer(links[2]))
    assert r.status_code == 401
    assert caught(ctx, "cy@example.org", kind="substituted")
