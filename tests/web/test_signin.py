"""Signing in by email: ask for a link, open it (which changes nothing), press the
button (which spends it), see all your games."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from pbem import games
from tests.support.games import new_game
from tests.support.messages import caught
from tests.support.web import ask_for_link, csrf_from, csrf_token, link_in, snapshot


def test_login_page(client):
    response = client.get("/login")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert 'for="email"' in page and 'action="/login"' in page and 'name="csrf_token"' in page


def test_the_same_answer_whether_or_not_the_address_has_games(client, ctx):
    new_game(ctx, start=False)
    known = ask_for_link(client, ctx, "ann@example.org")
    unknown = ask_for_link(client, ctx, "zed@example.org")
    # The form token carries its time: two requests a second apart differ there only.
    strip = lambda page: re.sub(r'name="csrf_token" value="[^"]*"', "", page).replace(  # noqa: E731
        "ann@example.org", "X").replace("zed@example.org", "X")
    assert "a sign-in link is on its way" in known
    assert strip(known) == strip(unknown)
    assert len(caught(ctx, kind="login")) == 1
    assert caught(ctx, kind="login")[0]["To"] == "ann@example.org"


def test_asking_again_too_soon_says_nothing_was_sent_and_when_to_ask(client, ctx):
    """A second request within five minutes sends nothing: the page says a link
    went a short while ago and when to ask again, the same for an address that
    plays here and one that does not (the limit counts requests, not players)."""
    new_game(ctx, start=False)
    strip = lambda page: re.sub(r'name="csrf_token" value="[^"]*"', "", page).replace(  # noqa: E731
        "ann@example.org", "X").replace("zed@example.org", "X")
    pages = {}
    for email in ("ann@example.org", "zed@example.org"):
        first = ask_for_link(client, ctx, email)
        assert "a sign-in link is on its way" in first and "sent-again" not in first
        asked = ctx.now()
        pages[email] = again = ask_for_link(client, ctx, email)
        assert "a sign-in link is on its way" not in again
        assert "we sent it a sign-in link a short while ago, and we send no other so soon" in again
        when = re.search(r'ask again after <time datetime="([^"]+)" data-local>([^<]+)</time>', again)
        assert when is not None
        after = datetime.fromisoformat(when.group(1).replace("Z", "+00:00"))
        assert timedelta(minutes=4) < after - asked <= timedelta(minutes=5, seconds=2)
    assert len(caught(ctx, kind="login")) == 1  # the second requests sent nothing
    same = [re.sub(r"<time[^>]*>[^<]*</time>", "T", strip(p)) for p in pages.values()]
    assert same[0] == same[1]


def test_once_the_days_sign_in_mails_are_used_up_the_page_says_tomorrow(client, ctx):
    """Five requests for one address in five minutes use up its day ("5 per day"
    counts the ones held back too): the time to ask again is then a day away, not
    five minutes (when asking would be refused again)."""
    new_game(ctx, start=False)
    asked = ctx.now()
    for n in range(5):
        token = csrf_token(client, "/login")
        page = client.post("/login", data={"csrf_token": token, "email": "zed@example.org"},
                           environ_base={"REMOTE_ADDR": f"192.0.2.{n}"}).get_data(as_text=True)
    when = re.search(r'ask again after <time datetime="([^"]+)"', page)
    assert when is not None
    after = datetime.fromisoformat(when.group(1).replace("Z", "+00:00"))
    assert timedelta(hours=23) < after - asked <= timedelta(days=1, seconds=2)


def test_asking_again_too_soon_is_told_in_the_readers_language(client, ctx):
    new_game(ctx, start=False)
    client.post("/language", data={"csrf_token": csrf_token(client, "/login"), "language": "cs", "next": "/login"})
    ask_for_link(client, ctx, "zed@example.org")
    again = ask_for_link(client, ctx, "zed@example.org")
    assert "Podívej se po něm, nebo o nový odkaz požádej znovu později (nejdřív: <time" in again


def test_an_invalid_address_is_refused(client, ctx):
    token = csrf_token(client, "/login")
    before = snapshot(ctx)
    response = client.post("/login", data={"csrf_token": token, "email": "not an address"})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "That is not an email address." in page and 'value="not an address"' in page
    assert snapshot(ctx) == before


def test_sign_in_flow(client, ctx):
    first, _ = new_game(ctx, start=False)
    second, _ = new_game(ctx, 2)
    ask_for_link(client, ctx, "Ann@Example.org")
    path = link_in(caught(ctx, kind="login")[-1])
    # Opening the link (twice: a mail scanner, then the person) shows a button and spends nothing.
    before = snapshot(ctx)
    for _ in range(2):
        response = client.get(path)
        assert response.status_code == 200
        page = response.get_data(as_text=True)
        assert f'action="{path}"' in page and ">Sign in</button>" in page
        assert "ann@example.org" in page
        assert client.head(path).status_code == 200
    assert snapshot(ctx) == before
    assert client.get("/games").headers["Location"].endswith("/login")
    # The button signs in.
    response = client.post(path, data={"csrf_token": csrf_from(page)})
    assert response.status_code == 303 and response.headers["Location"].endswith("/games")
    response = client.get("/games")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "Signed in as ann@example.org" in page
    assert re.findall(r'data-game="(\w+)"', page) == [str(second), str(first)]
    for game in games.games_of(ctx, "ann@example.org")[0]:
        assert f'href="{game["link"]}"' in page
    assert "waiting for players" in page  # Ann started (and so accepted) the first game
    # The link works once.
    other = client.application.test_client()
    response = other.get(path)
    assert response.status_code == 401
    page = response.get_data(as_text=True)
    assert "used already" in page and 'href="/login"' in page and "Ask for a new sign-in link" in page
    response = client.post(path, data={"csrf_token": csrf_token(client, "/games")})
    assert response.status_code == 401
    # Signing out.
    response = client.post("/logout", data={"csrf_token": csrf_token(client, "/games")})
    assert response.status_code == 303
    assert client.get("/games").status_code == 303


def test_an_expired_link_is_refused(client, ctx, monkeypatch):
    new_game(ctx, start=False)
    ask_for_link(client, ctx)
    path = link_in(caught(ctx, kind="login")[-1])
    later = ctx.now() + timedelta(minutes=ctx.config["LOGIN_MINUTES"], seconds=1)
    monkeypatch.setattr(ctx, "now", lambda: later)
    before = snapshot(ctx)
    response = client.get(path)
    assert response.status_code == 401
    page = response.get_data(as_text=True)
    assert "This sign-in link has expired" in page and 'href="/login"' in page
    response = client.post(path, data={"csrf_token": csrf_token(client, "/")})
    assert response.status_code == 401
    assert snapshot(ctx) == before
    assert client.get("/games").status_code == 303


def test_forged_sign_in_links_are_refused(client, ctx):
    for token in ("x", "a" * 43, "../games"):
        response = client.get(f"/signin/{token}")
        assert response.status_code in (401, 404)
        assert "Traceback" not in response.get_data(as_text=True)
    response = client.get("/signin/" + "a" * 43)
    assert response.status_code == 401
    assert "This sign-in link is not valid" in response.get_data(as_text=True)


def test_sign_in_needs_the_form_token(client, ctx):
    new_game(ctx, start=False)
    ask_for_link(client, ctx)
    path = link_in(caught(ctx, kind="login")[-1])
    before = snapshot(ctx)
    assert client.post(path, data={}).status_code == 400
    assert client.post(path, data={"csrf_token": "nope"}).status_code == 400
    assert snapshot(ctx) == before
    assert client.get(path).status_code == 200  # still usable
