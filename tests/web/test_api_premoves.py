"""Pre-moves in the API (``PUT``/``GET``/``DELETE /api/v1/seat/premoves``): the
seat's own list, the refusals with their status and code (nothing changes),
and no other reader (a view, the public view, the record, a webhook post)
ever seeing it, before or after it fires."""

from __future__ import annotations

from typing import Any

from tests.support.games import new_game, to_move
from tests.support.receiver import Receiver
from tests.support.clock import wait_until
from pbem.table import webhooks
from pbem import games


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _next_two(ctx: Any, toks: list[str]) -> tuple[str, str, str, dict[str, Any]]:
    token, view = to_move(ctx, toks)
    i = toks.index(token)
    return token, toks[(i + 1) % 3], toks[(i + 2) % 3], view


def test_a_seat_sets_reads_and_clears_its_list(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    mover, nxt, _, view = _next_two(ctx, toks)
    first, second = view["legal_moves"][:2]
    put = client.put("/api/v1/seat/premoves", json={"moves": [first, {"move": second, "order": None}]},
                     headers=_bearer(nxt))
    assert put.status_code == 200, put.get_json()
    assert put.get_json()["moves"] == [{"move": first, "order": None}, {"move": second, "order": None}]
    got = client.get("/api/v1/seat/premoves", headers=_bearer(nxt))
    assert got.status_code == 200 and got.get_json() == put.get_json()
    # Another seat's list is its own: empty.
    assert client.get("/api/v1/seat/premoves", headers=_bearer(mover)).get_json()["moves"] == []
    cleared = client.delete("/api/v1/seat/premoves", headers=_bearer(nxt))
    assert cleared.status_code == 200 and cleared.get_json()["moves"] == []
    assert client.get("/api/v1/seat/premoves", headers=_bearer(nxt)).get_json()["moves"] == []


def test_refusals_have_their_status_and_code_and_change_nothing(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    mover, nxt, _, view = _next_two(ctx, toks)
    kept = {"moves": [view["legal_moves"][0]]}
    assert client.put("/api/v1/seat/premoves", json=kept, headers=_bearer(nxt)).status_code == 200
    cases = [
        (_bearer(nxt), {"moves": ["1-99"]}, 422, "unknown-territory"),
        (_bearer(nxt), {"moves": ["1-1"]}, 422, "not-adjacent"),
        (_bearer(nxt), {"moves": ["x"]}, 422, "malformed-move"),
        (_bearer(nxt), {"moves": [{"move": "1-2", "order": "6"}]}, 422, "bad-order"),
        (_bearer(nxt), {"moves": ["1-2"] * 11}, 422, "too-many-premoves"),
        (_bearer(nxt), {"moves": "1-2"}, 422, "invalid-premoves"),
        (_bearer(nxt), {}, 422, "invalid-premoves"),
        (_bearer(mover), {"moves": [view["legal_moves"][0]]}, 409, "your-turn"),
        ({}, {"moves": []}, 401, "unauthorized"),
    ]
    for headers, body, status, code in cases:
        response = client.put("/api/v1/seat/premoves", json=body, headers=headers)
        assert (response.status_code, response.get_json()["error"]["code"]) == (status, code), body
    assert client.put("/api/v1/seat/premoves", data="[", headers={**_bearer(nxt), "Content-Type": "application/json"}
                      ).status_code == 400
    assert client.get("/api/v1/seat/premoves", headers=_bearer(nxt)).get_json()["moves"] == [
        {"move": view["legal_moves"][0], "order": None}]
    assert client.get("/api/v1/seat/premoves").status_code == 401


def test_no_other_reader_sees_the_list_before_or_after_it_fires(hook_app: Any, hctx: Any,
                                                                 receiver: Receiver) -> None:
    client = hook_app.test_client()
    game_id, toks = new_game(hctx)
    webhooks.add_webhook(hctx, toks[0], "json", receiver.url)
    mover, nxt, third, view = _next_two(hctx, toks)
    move = view["legal_moves"][0]
    used = {int(t) for t in move.split("-")}
    kept = next(m for m in view["legal_moves"] if not {int(t) for t in m.split("-")} & used)
    # A move the mover is about to make, then illegal: its text is in nobody's view but the list.
    put = client.put("/api/v1/seat/premoves", json={"moves": [{"move": move, "order": None}, kept]},
                     headers=_bearer(nxt))
    assert put.status_code == 200

    def others() -> list[str]:
        return [client.get("/api/v1/seat", headers=_bearer(t)).get_data(as_text=True) for t in (mover, third)] + [
            client.get(f"/api/v1/games/{game_id}").get_data(as_text=True),
            client.get(f"/api/v1/games/{game_id}/record").get_data(as_text=True)]

    for text in others():
        assert "premove" not in text and '"order": null' not in text
    own_view = client.get("/api/v1/seat", headers=_bearer(nxt)).get_data(as_text=True)
    assert "premove" not in own_view  # the list is in its own resource only
    posts_before = len(receiver.posts)
    moved = client.post("/api/v1/seat/moves", json={"move": move, "ply": view["ply"]}, headers=_bearer(mover))
    assert moved.status_code == 200
    # The pre-move fired: the game is at the third seat's turn.
    assert client.get("/api/v1/seat", headers=_bearer(third)).get_json()["your_turn"]
    for text in others():
        assert "premove" not in text and "pre-move" not in text
    record = client.get(f"/api/v1/games/{game_id}/record").get_json()
    assert record["moves"][-2:] == [move, kept]  # a move like any other: nothing says it was set ahead
    wait_until(lambda: len(receiver.posts) > posts_before)
    for post in receiver.posts[posts_before:]:
        body = post.json()
        assert set(body) == {"game", "event", "ply", "to_move", "url"}
        assert "premove" not in post.body.decode() and "pre-move" not in post.body.decode()
    assert games.premoves_of(hctx, nxt)["fired"]["move"] == kept
