"""Table talk on the seat page: writing a message, seeing the others', the errors
(422 empty or too long, 429 too many), the "Email me each message" box, escaping,
and that the table shows nothing of any clan and nothing on the public page."""

from __future__ import annotations

import re

import pytest
from sqlmodel import select

from pbem.table import talk
from pbem.core.db import session_scope
from pbem.core.models import Seat
from pbem.rules.tables import CLANS
from tests.support.games import redeal_others, finish, new_game, play
from tests.support.web import csrf_token, snapshot
from pbem import games


def page_of(client, token) -> str:
    response = client.get(f"/play/{token}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def talk_section(page: str) -> str:
    m = re.search(r'<section class="card talk" id="talk".*?</section>', page, re.S)
    assert m, "no table talk on the page"
    return _FORM_TOKEN.sub(r"\1\2", m.group(0))


#: The form token is signed at each render: it says nothing of the game.
_FORM_TOKEN = re.compile(r'(name="csrf_token" value=")[^"]*(")')


def post(client, token, text, form_token=None):
    form_token = form_token or csrf_token(client, f"/play/{token}")
    return client.post(f"/play/{token}/talk", data={"csrf_token": form_token, "text": text})


def messages_on(page: str) -> list[tuple[str, str]]:
    return re.findall(r'<strong class="talk-author">(.*?)</strong>.*?<p class="talk-text">(.*?)</p>',
                      talk_section(page), re.S)


def test_a_message_written_on_the_page_is_shown_to_every_player(client, ctx):
    _, toks = new_game(ctx)
    author = games.seat_view(ctx, toks[0])["you"]
    assert "No messages yet." in talk_section(page_of(client, toks[1]))
    response = post(client, toks[0], "Good luck!\nHave fun.")
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/play/{toks[0]}#talk")
    page = page_of(client, toks[0])
    assert "Your message is at the table." in page  # the flash
    for t in toks:
        assert messages_on(page_of(client, t)) == [(author, "Good luck!\nHave fun.")]
    # Its time, in the reader's words and as a machine-readable time.
    section = talk_section(page_of(client, toks[1]))
    assert re.search(r'<time class="talk-time" datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ">[^<]*UTC</time>', section)
    # The author's own messages are marked as theirs.
    assert 'class="talk-message is-you"' in talk_section(page_of(client, toks[0]))
    assert 'class="talk-message is-you"' not in section


def test_messages_are_escaped_and_only_addresses_become_links(client, ctx):
    _, toks = new_game(ctx)
    nasty = ('<script>alert(1)</script> <img src=x onerror=alert(2)> "quoted" & '
             'see https://example.org/rules?a=1&b=2. javascript:alert(3)')
    assert post(client, toks[0], nasty).status_code == 303
    section = talk_section(page_of(client, toks[1]))
    assert "<script>alert" not in section and "<img" not in section
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section
    assert "&lt;img src=x onerror=alert(2)&gt;" in section and "&#34;quoted&#34; &amp;" in section
    # In the message (beside it: the author's profile, and the block and report controls).
    (link,) = re.findall(r"<a [^>]*>", talk_section(page_of(client, toks[1])).split('class="talk-text"')[1]
                         .split("</p>")[0])
    assert link == '<a href="https://example.org/rules?a=1&amp;b=2" rel="noopener noreferrer">'
    assert "javascript:alert(3)" in section and 'href="javascript' not in section


@pytest.mark.parametrize("text, code, words", [
    ("", "empty-talk", "Write a message first."),
    (" \n\u202e ", "empty-talk", "Write a message first."),
    ("x" * 1001, "talk-too-long", "A message may be at most 1000 characters long; yours has 1001."),
])
def test_a_refused_message_is_shown_back_with_the_reason_and_changes_nothing(client, ctx, text, code, words):
    _, toks = new_game(ctx)
    form_token = csrf_token(client, f"/play/{toks[0]}")
    before = snapshot(ctx)
    response = post(client, toks[0], text, form_token)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert snapshot(ctx) == before
    assert f'id="talk-error" data-code="{code}">{words}</p>' in page
    assert re.search(r'<p class="notice notice-error" role="alert" id="play-error"[^>]*>' + re.escape(words), page)
    # What was typed is still in the box (nothing lost), and the box says it is wrong.
    box = re.search(r"<textarea id=\"talk-text\"[^>]*>(.*?)</textarea>", page, re.S)
    assert box and 'aria-invalid="true"' in box.group(0)
    if code == "talk-too-long":
        assert box.group(1) == text


def test_too_many_messages_are_held_back_with_429(app, client, ctx):
    app.config["LIMIT_TALK"] = "2 per hour"
    _, toks = new_game(ctx)
    form_token = csrf_token(client, f"/play/{toks[0]}")
    for n in range(2):
        assert post(client, toks[0], f"message {n}", form_token).status_code == 303
    before = snapshot(ctx)
    response = post(client, toks[0], "one too many", form_token)
    assert response.status_code == 429 and int(response.headers["Retry-After"]) >= 1
    page = response.get_data(as_text=True)
    assert 'data-code="rate-limited"' in page and "many messages in a short time" in page
    assert ">one too many</textarea>" in page
    assert snapshot(ctx) == before


def test_the_email_me_each_message_box(client, ctx):
    _, toks = new_game(ctx)
    form_token = csrf_token(client, f"/play/{toks[1]}")
    box = re.compile(r'<input type="checkbox" id="talk-mail" name="talk_mail" value="1"( checked)?>')
    assert box.search(page_of(client, toks[1])).group(1) is None
    response = client.post(f"/play/{toks[1]}/talk-mail", data={"csrf_token": form_token, "talk_mail": "1"})
    assert response.status_code == 303 and response.headers["Location"].endswith("#talk")
    page = page_of(client, toks[1])
    assert box.search(page).group(1) == " checked" and "you get each message at the table by email" in page
    assert talk.table(ctx, toks[1]).talk_mail
    # An unticked box sends nothing: off.
    assert client.post(f"/play/{toks[1]}/talk-mail", data={"csrf_token": form_token}).status_code == 303
    assert box.search(page_of(client, toks[1])).group(1) is None and not talk.table(ctx, toks[1]).talk_mail


def test_the_forms_need_the_form_token_and_a_good_seat_link(client, ctx):
    _, toks = new_game(ctx)
    before = snapshot(ctx)
    assert client.post(f"/play/{toks[0]}/talk", data={"text": "hi"}).status_code == 400
    assert client.post(f"/play/{toks[0]}/talk-mail", data={"talk_mail": "1"}).status_code == 400
    form_token = csrf_token(client, f"/play/{toks[0]}")
    assert post(client, "x" * 43, "hi", form_token).status_code == 401
    assert snapshot(ctx) == before


def test_the_table_is_labelled_for_assistive_technology(client, ctx):
    _, toks = new_game(ctx)
    section = talk_section(page_of(client, toks[0]))
    assert 'aria-labelledby="talk-title"' in section and '<h2 id="talk-title">Table talk</h2>' in section
    assert '<label for="talk-text">Your message</label>' in section
    assert 'aria-describedby="talk-help"' in section and 'maxlength="1000"' in section
    assert '<label class="radio" for="talk-mail">' in section


def test_who_sees_the_table(client, ctx):
    game_id, toks = new_game(ctx, start=False)  # Ann accepted; Bob and Cid are invited
    talk.talk(ctx, toks[0], "hello, table")
    # The one who accepted (waiting for the others) sees it and may write.
    assert 'action="/play/%s/talk#talk"' % toks[0] in talk_section(page_of(client, toks[0]))
    # An invited player is not at the table yet.
    assert 'id="talk"' not in page_of(client, toks[1])
    # Nobody else: the public page and the public API have no table talk.
    for t in toks[1:]:
        games.accept(ctx, t)
    assert "hello, table" not in client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "hello, table" not in client.get(f"/api/v1/games/{game_id}").get_data(as_text=True)
    # After the end the players still talk.
    finish(ctx, game_id, toks)
    assert post(client, toks[2], "well played").status_code == 303
    assert ("Cid", "well played") in messages_on(page_of(client, toks[1]))




def test_the_table_never_shows_a_clan(client, ctx):
    """Non-interference: deal the others new clans and the viewer's table section
    is the same; and no clan word or colour is in it, not even the viewer's own."""
    game_id, toks = new_game(ctx)
    play(ctx, toks, 3)
    for t in toks:
        talk.talk(ctx, t, "nice move")
    for viewer_token in toks:
        viewer = games.seat_view(ctx, viewer_token)["seat"]
        before = talk_section(page_of(client, viewer_token))
        redeal_others(ctx, game_id, viewer)
        assert talk_section(page_of(client, viewer_token)) == before
        assert not any(clan in before for clan in CLANS)
        assert "--c:" not in before and "swatch" not in before and "data-player-clan" not in before
