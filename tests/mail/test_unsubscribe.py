"""One-click unsubscribe (RFC 8058): GET shows, POST stops turn mail, bad tokens change nothing."""

from __future__ import annotations

from typing import Any

from pbem import games
from tests.support.games import new_game, play, to_move
from tests.support.messages import caught

ONE_CLICK = {"data": "List-Unsubscribe=One-Click", "content_type": "application/x-www-form-urlencoded"}


def test_get_and_head_change_nothing(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    for method in (client.get, client.head):
        page = method(f"/unsubscribe/{toks[0]}")
        assert page.status_code == 200
        assert page.headers["Cache-Control"] == "private, no-store"
    page = client.get(f"/unsubscribe/{toks[0]}")
    assert b'<form method="post"' in page.data and b"Stop turn mail" in page.data
    assert games.seat_view(ctx, toks[0])["mail"] == "every"


def test_one_click_post_turns_turn_mail_off(app: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    mail_client = app.test_client()  # no cookies, no CSRF token: like a mail client
    done = mail_client.post(f"/unsubscribe/{t}", **ONE_CLICK)
    assert done.status_code == 200 and done.mimetype == "text/plain"
    assert games.seat_view(ctx, t)["mail"] == "none"
    # Only that player, only that game.
    assert [games.seat_view(ctx, other)["mail"] for other in toks if other != t] == ["every", "every"]
    other_game, other_toks = new_game(ctx)
    assert all(games.seat_view(ctx, o)["mail"] == "every" for o in other_toks)
    # Doing it again is fine.
    assert mail_client.post(f"/unsubscribe/{t}", **ONE_CLICK).status_code == 200
    # No turn mail for them any more; the game goes on and the others get theirs.
    email = caught(ctx, kind="turn")[0]["To"]
    before = len(caught(ctx, recipient=email, kind="turn"))
    play(ctx, toks, 6)
    assert len(caught(ctx, recipient=email, kind="turn")) == before
    assert len(caught(ctx, kind="turn")) >= 1 + 4


def test_the_page_button_posts_without_a_csrf_token(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    client.get(f"/unsubscribe/{toks[1]}")
    done = client.post(f"/unsubscribe/{toks[1]}", data={})
    assert done.status_code == 200 and done.mimetype == "text/html"
    assert b"no more turn mail" in done.data
    assert games.seat_view(ctx, toks[1])["mail"] == "none"


def test_bad_token_is_401_and_changes_nothing(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    forged = toks[0][:-2] + ("AA" if not toks[0].endswith("AA") else "BB")
    for token in (forged, "x", "not-a-token-at-all-but-long-enough-to-look-like-one-xxxxxx"):
        assert client.post(f"/unsubscribe/{token}", **ONE_CLICK).status_code == 401
        assert client.get(f"/unsubscribe/{token}").status_code == 401
    assert all(games.seat_view(ctx, t)["mail"] == "every" for t in toks)


def test_other_posts_still_need_the_csrf_token(client: Any, ctx: Any) -> None:
    """The exemption is for the unsubscribe endpoint only."""
    game_id, toks = new_game(ctx, start=False)
    refused = client.post(f"/play/{toks[1]}/accept", data={})
    assert refused.status_code == 400
    assert games.seat_view(ctx, toks[1])["status"] == "invited"
