"""The demo mailbox's pages."""

from __future__ import annotations

import re
import time
from typing import Any, Iterator

import pytest
from sqlmodel import col, select

from pbem import games
from pbem.people import signin
from pbem.core.db import session_scope
from pbem.inbound.receiver import receiver
from pbem.core.models import CaughtMail
from pbem.web.pages import autolink
from tests.support.config import app_config
from tests.support.games import new_game, to_move
from tests.support.messages import caught
from tests.support.smtp import free_port
from tests.support.web import csrf_token


@pytest.fixture
def app(database_url: str) -> Iterator[Any]:
    """The mailbox exists only on a loopback base URL (or in the demo)."""
    from pbem.web import create_app

    app = create_app(app_config(database_url, BASE_URL="http://127.0.0.1:5000", MAILBOX=True))
    yield app
    app.extensions["pbem"].engine.dispose()


def test_mailbox_lists_caught_mail_newest_first(client, ctx):
    new_game(ctx)
    response = client.get("/mailbox/")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    ids = [int(i) for i in re.findall(r'href="/mailbox/(\d+)"', page)]
    assert len(ids) == len(caught(ctx)) and ids == sorted(ids, reverse=True)
    for m in caught(ctx):
        assert f"to {m['To']}" in page
    assert 'data-kind="invite"' in page and 'data-kind="turn"' in page
    assert re.search(r'<time datetime="\d{4}-\d\d-\d\dT[\d:]+Z" data-local>[^<]+UTC</time>', page)


def _listed(page: str) -> list[int]:
    return [int(i) for i in re.findall(r'href="/mailbox/(\d+)" class="mail-link"', page)]


def _caught_rows(ctx: Any) -> list[CaughtMail]:
    with session_scope(ctx.engine) as session:
        return list(session.exec(select(CaughtMail).order_by(col(CaughtMail.id))).all())


def test_the_mailbox_shows_the_newest_game_first_each_games_mail_together(client, ctx):
    older, _ = new_game(ctx)
    newer, _ = new_game(ctx)
    signin.request_login(ctx, "ann@example.org")  # a message about no game, the newest
    rows = _caught_rows(ctx)
    page = client.get("/mailbox/").get_data(as_text=True)
    login = [m.id for m in rows if m.kind == "login"]
    of_newer = [m.id for m in rows if f"X-PBEM-Game: {newer}" in m.raw]
    of_older = [m.id for m in rows if f"X-PBEM-Game: {older}" in m.raw]
    assert login and of_newer and of_older
    assert _listed(page) == login[::-1] + of_newer[::-1] + of_older[::-1]
    assert page.index(f"Game {newer}") < page.index(f"Game {older}") and "Not about a game" in page
    # The filter offers the games newest first too.
    assert page.index(f'<option value="{newer}"') < page.index(f'<option value="{older}"')


def test_the_mailbox_filters_by_recipient_game_and_kind(client, ctx):
    older, _ = new_game(ctx)
    newer, _ = new_game(ctx)
    rows = _caught_rows(ctx)

    def listed(**query: str) -> list[int]:
        response = client.get("/mailbox/", query_string=query)
        assert response.status_code == 200
        return _listed(response.get_data(as_text=True))

    assert sorted(listed(to="bob@example.org")) == [m.id for m in rows if m.recipient == "bob@example.org"]
    assert sorted(listed(game=older)) == [m.id for m in rows if f"X-PBEM-Game: {older}" in m.raw]
    assert sorted(listed(kind="turn")) == [m.id for m in rows if m.kind == "turn"]
    both = listed(game=newer, kind="turn")
    assert len(both) == 1 and both == [m.id for m in rows if m.kind == "turn" and f"X-PBEM-Game: {newer}" in m.raw]
    page = client.get("/mailbox/", query_string={"game": newer, "kind": "turn"}).get_data(as_text=True)
    assert f'<option value="{newer}" selected>' in page and '<option value="turn" selected>' in page
    assert f"1 of {len(rows)} messages" in page and 'href="/mailbox/">All mail</a>' in page
    nothing = client.get("/mailbox/", query_string={"to": "zed@example.org"}).get_data(as_text=True)
    assert _listed(nothing) == [] and "No mail matches." in nothing


def test_a_message_page_shows_headers_text_with_links_and_the_html(client, ctx):
    new_game(ctx, start=False)
    page = client.get("/mailbox/").get_data(as_text=True)
    mail_id = re.findall(r'href="/mailbox/(\d+)"', page)[-1]
    response = client.get(f"/mailbox/{mail_id}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    message = caught(ctx)[0]
    for header in ("From", "To", "Subject", "X-PBEM-Kind"):
        assert f"<dt>{header}</dt>" in page
    assert "<dd>invite</dd>" in page
    links = re.findall(r'<a href="(http://127\.0\.0\.1:5000/play/[^"]+)"', page)
    assert links and all(link in message.get_body(preferencelist=("plain",)).get_content() for link in links)
    if message.get_body(preferencelist=("html",)) is not None:
        assert re.search(rf'<iframe class="mail-html" src="/mailbox/{mail_id}/html"[^>]*sandbox="', page)


def test_unsubscribe_header_is_shown_with_its_link(client, ctx):
    game_id, toks = new_game(ctx)
    turn = next(m for m in caught(ctx, kind="turn"))
    page = client.get("/mailbox/").get_data(as_text=True)
    subject = turn["Subject"]
    mail_id = re.search(rf'href="/mailbox/(\d+)" class="mail-link">\s*<span class="mail-subject">{re.escape(subject)}',
                        page).group(1)
    page = client.get(f"/mailbox/{mail_id}").get_data(as_text=True)
    assert "<dt>List-Unsubscribe</dt>" in page
    assert re.search(r'<dd>&lt;<a href="http://127\.0\.0\.1:5000/unsubscribe/[^"]+"', page)


def test_unknown_message_is_a_404_page(client):
    response = client.get("/mailbox/424242")
    assert response.status_code == 404
    assert "there is no caught mail 424242".capitalize() in response.get_data(as_text=True)


def test_autolink_escapes_first_then_links():
    html = str(autolink('<script>alert(1)</script> see https://a.example/x?y=1&z=2. or "https://b.example/q"'))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert '<a href="https://a.example/x?y=1&amp;z=2" rel="noopener noreferrer">https://a.example/x?y=1&amp;z=2</a>.' in html
    assert '&#34;<a href="https://b.example/q" rel="noopener noreferrer">https://b.example/q</a>&#34;' in html
    assert str(autolink("javascript:alert(1) ftp://x")) == "javascript:alert(1) ftp://x"
    assert str(autolink('https://c.example/"onmouseover="x')).count('"') == 4


def test_the_reply_button_plays_a_turn_through_the_real_inbound_path(app, client, ctx):
    """Demo: "Reply" on a turn mail sends, by SMTP, to the service's own receiver;
    the move is played and the answer lands in the mailbox."""
    port = free_port()
    for settings in (app.config, ctx.config):
        settings.update(INBOUND_HOST="127.0.0.1", INBOUND_PORT=port)
    game_id, toks = new_game(ctx, 2)
    mover, view = to_move(ctx, toks)
    address = next(p for p in ({"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"})
                   if p["name"] == view["you"])["email"]
    turn = caught(ctx, address, "turn")[-1]
    assert turn["Reply-To"] and str(turn["Reply-To"]).startswith("move+")
    with session_scope(ctx.engine) as session:
        mail_id = session.exec(select(CaughtMail.id).where(CaughtMail.recipient == address, CaughtMail.kind == "turn")
                               .order_by(col(CaughtMail.id).desc())).first()
    page = client.get(f"/mailbox/{mail_id}").get_data(as_text=True)
    assert f'action="/mailbox/{mail_id}/reply"' in page
    controller = receiver(ctx, app.extensions["celery"].relay_inbound, host="127.0.0.1", port=port, lmtp=False)
    controller.start()
    try:
        move = view["legal_moves"][0]
        r = client.post(f"/mailbox/{mail_id}/reply",
                        data={"text": f"{move}\ngood luck!", "csrf_token": csrf_token(client, f"/mailbox/{mail_id}")})
        assert r.status_code == 303
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not caught(ctx, address, "reply-accepted"):
            time.sleep(0.05)
    finally:
        controller.stop()
    assert caught(ctx, address, "reply-accepted")
    assert games.public_game(ctx, game_id)["history"][-1]["move"] == move
