"""List-Unsubscribe carries a token that can only stop mail (issue 27, section
4): whatever reads the header (a mail program, a scanner, a list processor)
cannot play the seat with it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pbem.core import errors
from pbem.games import unsubscribing
from tests.support.games import new_game, play, to_move
from tests.support.messages import caught
from pbem import games

ONE_CLICK = {"data": "List-Unsubscribe=One-Click", "content_type": "application/x-www-form-urlencoded"}


def header_token(message: Any) -> str:
    found = re.fullmatch(r"<https://clans\.example/unsubscribe/([^>/]+)(/talk)?>", message["List-Unsubscribe"])
    assert found, message["List-Unsubscribe"]
    return found.group(1)


def test_the_header_token_cannot_open_the_seat(app: Any, client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    seat_token, view = to_move(ctx, toks)
    mail = [m for m in caught(ctx, kind="turn")][-1]
    token = header_token(mail)
    assert token.startswith(game_id + ".")
    assert all(t not in mail["List-Unsubscribe"] for t in toks)
    # Not the seat page, not the API, not the service.
    assert client.get(f"/play/{token}").status_code in (401, 404)
    assert client.get("/api/v1/seat", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    with pytest.raises(errors.Unauthorized):
        games.seat_view(ctx, token)
    # The footer's link in the body is the same: no seat token in "stop turn mail".
    text = mail.get_body(preferencelist=("plain",)).get_content()
    stop_line = next(line for line in text.splitlines() if "/unsubscribe/" in line)
    assert token in stop_line and not any(t in stop_line for t in toks)
    # The unsubscribe page does not link to the seat either.
    page = client.get(f"/unsubscribe/{token}")
    assert page.status_code == 200 and b"/play/" not in page.data and b"Stop turn mail" in page.data
    # ... and it stops mail, without cookies or CSRF token, like a mail client.
    done = app.test_client().post(f"/unsubscribe/{token}", **ONE_CLICK)
    assert done.status_code == 200 and done.mimetype == "text/plain"
    to = mail["To"]
    assert games.seat_view(ctx, seat_token)["mail"] == "none"  # the mail was the mover's
    before = len(caught(ctx, recipient=to, kind="turn"))
    play(ctx, toks, 6)
    assert len(caught(ctx, recipient=to, kind="turn")) == before


def owner_of(ctx: Any, toks: list[str], token: str) -> str:
    """The seat token of the seat an unsubscribe token stops."""
    name = unsubscribing.view(ctx, token)["name"]
    return next(t for t in toks if games.seat_view(ctx, t)["you"] == name)


def test_the_page_button_and_the_talk_link_take_the_token(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    token = header_token(caught(ctx, kind="invite")[-1])
    owner = owner_of(ctx, toks, token)
    games.set_mail(ctx, owner, "every")
    from pbem.table import talk

    talk.set_talk_mail(ctx, owner, True)
    done = client.post(f"/unsubscribe/{token}/talk", data={})
    assert done.status_code == 200 and b"/play/" not in done.data
    assert games.seat_view(ctx, owner)["mail"] == "every"  # the talk link leaves turn mail on
    assert unsubscribing.view(ctx, token)["talk_mail"] is False
    done = client.post(f"/unsubscribe/{token}", data={})
    assert done.status_code == 200 and b"no more turn mail" in done.data and b"/play/" not in done.data
    assert games.seat_view(ctx, owner)["mail"] == "none"
    assert all(games.seat_view(ctx, t)["mail"] == "every" for t in toks if t != owner)


def test_forged_and_borrowed_tokens_are_refused(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    other_game, other_toks = new_game(ctx)
    token = header_token(caught(ctx, kind="invite")[0])
    game, _, mac = token.partition(".")
    forged = [f"{game}.{mac[:-2]}{'AA' if not mac.endswith('AA') else 'BB'}",  # another mac
              f"{other_game}.{mac}",  # the mac of a seat of another game
              f"{game}.",
              f"nosuchgame2345.{mac}",
              f"{game}.{mac}.{mac}"]
    for bad in forged:
        assert client.get(f"/unsubscribe/{bad}").status_code == 401, bad
        assert client.post(f"/unsubscribe/{bad}", **ONE_CLICK).status_code == 401, bad
        assert client.post(f"/unsubscribe/{bad}/talk", **ONE_CLICK).status_code == 401, bad
    assert all(games.seat_view(ctx, t)["mail"] == "every" for t in toks + other_toks)


def test_a_replaced_seat_link_leaves_old_unsubscribe_links_working(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    token = header_token(caught(ctx, kind="invite")[-1])
    owner = owner_of(ctx, toks, token)
    games.replace_seat_link(ctx, owner)
    with pytest.raises(errors.Unauthorized):
        games.seat_view(ctx, owner)  # the old seat link is gone
    assert client.post(f"/unsubscribe/{token}", **ONE_CLICK).status_code == 200
    assert unsubscribing.view(ctx, token)["mail"] == "none"
