"""Pre-moves on the seat page: the section lists the seat's own moves, adds one,
removes one, clears them, each a CSRF-checked POST; a refusal shows the page
again with the reason and its status, and nothing is stored.  No other seat's
page shows the list."""

from __future__ import annotations

import re
from typing import Any

from tests.support.games import new_game, to_move
from tests.support.web import csrf_token
from pbem import games


def _post(client: Any, token: str, path: str, **data: str) -> Any:
    return client.post(f"/play/{token}{path}", data={"csrf_token": csrf_token(client, f"/play/{token}"), **data})


def _section(page: str) -> str:
    m = re.search(r'<section class="card premoves" id="premoves".*?</section>', page, re.S)
    assert m, "no pre-moves on the page"
    return m.group(0)


def test_a_player_adds_removes_and_clears_pre_moves_on_the_page(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    nxt = toks[(toks.index(mover) + 1) % 3]
    first, second = view["legal_moves"][:2]
    added = _post(client, nxt, "/premoves", move=first)
    assert added.status_code == 303 and added.headers["Location"].endswith("#premoves")
    _post(client, nxt, "/premoves", move=second.replace("-", " "), order="")
    assert [m["move"] for m in games.premoves_of(ctx, nxt)["moves"]] == [first, second]
    section = _section(client.get(f"/play/{nxt}").get_data(as_text=True))
    assert first.replace("-", " → ") in section and second.replace("-", " → ") in section
    assert "then 12-13, 4-5" in section
    removed = _post(client, nxt, "/premoves/0/remove")
    assert removed.status_code == 303
    assert [m["move"] for m in games.premoves_of(ctx, nxt)["moves"]] == [second]
    assert _post(client, nxt, "/premoves/clear").status_code == 303
    assert games.premoves_of(ctx, nxt)["moves"] == []
    # Without the form's token, nothing is stored.
    assert client.post(f"/play/{nxt}/premoves", data={"move": first}).status_code == 400
    assert games.premoves_of(ctx, nxt)["moves"] == []


def test_a_refused_pre_move_shows_the_page_again_and_stores_nothing(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    nxt = toks[(toks.index(mover) + 1) % 3]
    refused = _post(client, nxt, "/premoves", move="1-99")
    assert refused.status_code == 422
    page = refused.get_data(as_text=True)
    assert "The pre-move was not added." in page and 'value="1-99"' in page
    assert games.premoves_of(ctx, nxt)["moves"] == []
    mine = _post(client, mover, "/premoves", move=view["legal_moves"][0])
    assert mine.status_code == 409 and games.premoves_of(ctx, mover)["moves"] == []
    assert "Pre-moves are for the others" in _section(client.get(f"/play/{mover}").get_data(as_text=True))


def test_no_other_seat_s_page_shows_the_list(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    nxt = toks[(toks.index(mover) + 1) % 3]
    move = view["legal_moves"][-1]
    games.set_premoves(ctx, nxt, [{"move": move, "order": [int(move.split("-")[1])]}])
    assert f'data-premove="{move}"' in _section(client.get(f"/play/{nxt}").get_data(as_text=True))
    for other in toks:
        if other != nxt:
            page = client.get(f"/play/{other}").get_data(as_text=True)
            assert "data-premove=" not in page and 'id="premoves"' in page  # their own (empty) section only
