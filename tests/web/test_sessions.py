"""Ending sessions (issue 27, section 4): "sign out everywhere" on the signed-in
dashboard ends every session of the address; replacing a seat link ends the
owner's other sessions too (whoever had the link may have had more)."""

from __future__ import annotations

from typing import Any

from pbem import games
from pbem.people import signin
from pbem.core.db import session_scope
from tests.support.games import new_game, seat_tokens
from tests.support.web import csrf_from, csrf_token


def sign_in_link(ctx: Any, email: str) -> str:
    """The path of a fresh sign-in link for ``email`` (as the worker makes one)."""
    with session_scope(ctx.engine) as session:
        login = signin.new_login(ctx, session, email)
        assert login is not None
        return signin.login_link(ctx, login).removeprefix(ctx.base_url)


def signed_in_browser(app: Any, ctx: Any, email: str) -> Any:
    browser = app.test_client()
    path = sign_in_link(ctx, email)
    page = browser.get(path).get_data(as_text=True)
    assert browser.post(path, data={"csrf_token": csrf_from(page)}).status_code == 303
    assert browser.get("/games").status_code == 200
    return browser


def is_signed_in(browser: Any) -> bool:
    answer = browser.get("/games")
    return bool(answer.status_code == 200)


def test_sign_out_everywhere_ends_every_session_of_the_address(app: Any, ctx: Any) -> None:
    new_game(ctx, 2)
    here, phone, laptop = (signed_in_browser(app, ctx, "ann@example.org") for _ in range(3))
    bob = signed_in_browser(app, ctx, "bob@example.org")
    waiting = sign_in_link(ctx, "ann@example.org")  # mailed, not yet used
    dashboard = here.get("/games").get_data(as_text=True)
    assert 'action="/logout/everywhere"' in dashboard and "Sign out everywhere" in dashboard
    done = here.post("/logout/everywhere", data={"csrf_token": csrf_from(dashboard)})
    assert done.status_code == 303
    assert "You are signed out everywhere" in here.get(done.headers["Location"]).get_data(as_text=True)
    assert [is_signed_in(b) for b in (here, phone, laptop, bob)] == [False, False, False, True]
    # The link not yet used opens nothing more.
    fresh = app.test_client()
    assert fresh.get(waiting).status_code == 401
    assert fresh.post(waiting, data={"csrf_token": csrf_token(fresh, "/login")}).status_code == 401
    assert not is_signed_in(fresh)
    # A new sign-in works as before.
    assert is_signed_in(signed_in_browser(app, ctx, "ann@example.org"))


def test_sign_out_everywhere_needs_a_session_and_the_form_token(app: Any, ctx: Any) -> None:
    new_game(ctx, 2)
    ann = signed_in_browser(app, ctx, "ann@example.org")
    assert ann.post("/logout/everywhere", data={}).status_code == 400  # a form of this site only
    assert is_signed_in(ann)
    stranger = app.test_client()
    assert stranger.post("/logout/everywhere", data={"csrf_token": csrf_token(stranger)}).status_code == 401
    assert is_signed_in(ann)


def test_replacing_a_seat_link_ends_the_owners_other_sessions(app: Any, ctx: Any) -> None:
    _, toks = new_game(ctx, 2)
    ann_seat = next(t for t in toks if games.seat_view(ctx, t)["you"] == "Ann")
    here, elsewhere = (signed_in_browser(app, ctx, "ann@example.org") for _ in range(2))
    bob = signed_in_browser(app, ctx, "bob@example.org")
    page = here.get(f"/play/{ann_seat}").get_data(as_text=True)
    done = here.post(f"/play/{ann_seat}/new-link", data={"csrf_token": csrf_from(page)})
    assert done.status_code == 200 and "signed out too" in done.get_data(as_text=True)
    # The browser that asked stays signed in; the owner's others do not; other people's do.
    assert [is_signed_in(b) for b in (here, elsewhere, bob)] == [True, False, True]


def test_a_replacement_from_a_browser_not_signed_in_ends_every_session(app: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    ann_seat = next(t for t in toks if games.seat_view(ctx, t)["you"] == "Ann")
    ann = signed_in_browser(app, ctx, "ann@example.org")
    bob = signed_in_browser(app, ctx, "bob@example.org")
    somewhere = app.test_client()
    page = somewhere.get(f"/play/{ann_seat}").get_data(as_text=True)
    assert somewhere.post(f"/play/{ann_seat}/new-link", data={"csrf_token": csrf_from(page)}).status_code == 200
    assert [is_signed_in(b) for b in (ann, bob)] == [False, True]
    # The service does the same for the API's caller (no browser session to keep).
    ann = signed_in_browser(app, ctx, "ann@example.org")
    new_seat = next(t for t in seat_tokens(ctx, game_id) if games.seat_view(ctx, t)["you"] == "Ann")
    games.replace_seat_link(ctx, new_seat)
    assert not is_signed_in(ann)
