"""The home page and its "start a game" form."""

from __future__ import annotations

import re

import pytest

from pbem import games
from tests.support.messages import caught
from tests.support.web import csrf_from, csrf_token, snapshot

FORM = {
    "name0": "Ann", "email0": "ann@example.org",
    "name1": "Bob", "email1": "bob@example.org",
    "name2": "", "email2": "",
    "name3": "", "email3": "",
    "turn_hours": "72",
}


def test_home_page_has_the_form_and_no_external_resources(client):
    response = client.get("/")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert 'action="/games"' in page and 'name="csrf_token"' in page
    for i in range(4):
        assert f'for="name{i}"' in page and f'for="email{i}"' in page
    assert 'name="turn_hours" value="72"' in page
    # Everything is served from here: no CDN, no remote font or script.
    for src in re.findall(r'(?:src|href)="([^"]+)"', page):
        assert not src.startswith(("http:", "https:", "//")), src
    assert response.headers["Content-Security-Policy"].startswith("default-src 'self'")


def test_static_files_are_served(client):
    for path in ("/static/style.css", "/static/app.js", "/static/play.js", "/static/favicon.svg"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert len(response.data) > 100


def test_start_a_game_sends_invitations_and_shows_no_seat_links(client, ctx):
    token = csrf_token(client)
    form = dict(FORM, csrf_token=token, name2="Cid", email2="cid@example.org", turn_hours="48")
    response = client.post("/games", data=form)
    assert response.status_code == 303
    location = response.headers["Location"]
    game_id = re.search(r"/games/(\w+)", location).group(1)
    page = client.get(location).get_data(as_text=True)
    assert "Check your email" in page and "Nobody else gets an email until Ann accepts" in " ".join(page.split())
    assert "Ann" in page and "Bob" in page and "Cid" in page
    assert "/play/" not in page  # each player gets their own link by email, nowhere else
    view = games.public_game(ctx, game_id)
    assert view["status"] == "invited" and view["turn_hours"] == 48
    assert [p["name"] for p in view["players"]] == ["Ann", "Bob", "Cid"]
    # Only the one who started it is mailed, to confirm; the others when Ann accepts.
    (confirm,) = caught(ctx, kind="invite")
    assert confirm["To"] == "ann@example.org" and "Confirm your game" in confirm["Subject"]
    link = re.search(r"https://clans\.example(/play/\S+)", confirm.get_body(preferencelist=("plain",)).get_content())
    page = client.get(link.group(1)).get_data(as_text=True)
    assert "Accept and invite the others" in page
    client.post(link.group(1) + "/accept", data={"csrf_token": csrf_from(page)})
    invites = caught(ctx, kind="invite")[1:]
    assert sorted(m["To"] for m in invites) == ["bob@example.org", "cid@example.org"]
    for m in invites:
        body = m.get_body(preferencelist=("plain",)).get_content()
        assert "/play/" in body and "Ann (ann@example.org) asked us to invite you" in " ".join(body.split())
        assert "/never/" in body


def test_default_turn_time_and_blank_optional_rows(client, ctx):
    form = dict(FORM, csrf_token=csrf_token(client), turn_hours="")
    response = client.post("/games", data=form)
    assert response.status_code == 303
    game_id = response.headers["Location"].split("/games/")[1].split("?")[0]
    view = games.public_game(ctx, game_id)
    assert len(view["players"]) == 2 and view["turn_hours"] == 72


@pytest.mark.parametrize("change, message", [
    ({"name1": "", "email1": ""}, "player 2"),
    ({"email1": "not-an-address"}, "not an email address"),
    ({"email1": "ANN@example.org"}, "email address of their own"),
    ({"name1": "ann"}, "different name"),
    ({"name2": "Cid"}, "player 3"),
    ({"turn_hours": "abc"}, "whole number of hours"),
    ({"turn_hours": "0"}, "turn time must be 1 to"),
    ({"turn_hours": "100000"}, "turn time must be 1 to"),
    ({"turn_hours": "-5"}, "whole number of hours"),
])
def test_bad_input_is_refused_with_the_form_kept_and_nothing_created(client, ctx, change, message):
    form = dict(FORM, csrf_token=csrf_token(client), **change)
    before = snapshot(ctx)
    response = client.post("/games", data=form)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert message.lower() in page.lower()
    assert 'role="alert"' in page
    # The values typed are kept.
    assert 'value="Ann"' in page and 'value="ann@example.org"' in page
    if change.get("email1"):
        assert f'value="{change["email1"]}"' in page
    assert snapshot(ctx) == before
    assert caught(ctx) == []


def test_the_values_typed_are_escaped(client, ctx):
    form = dict(FORM, csrf_token=csrf_token(client), name1='<script>alert(1)</script>', email1='"><b>x')
    response = client.post("/games", data=form)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page and '"><b>x' not in page
    assert "&lt;script&gt;" in page


def test_csrf_is_required_to_start_a_game(client, ctx):
    csrf_token(client)  # the session has a token, but the form does not send it
    before = snapshot(ctx)
    response = client.post("/games", data=FORM)
    assert response.status_code == 400
    assert "did not come from this site" in response.get_data(as_text=True)
    response = client.post("/games", data=dict(FORM, csrf_token="forged"))
    assert response.status_code == 400
    assert snapshot(ctx) == before


def test_unknown_public_game_is_a_404_page(client):
    response = client.get("/games/999999")
    assert response.status_code == 404
    page = response.get_data(as_text=True)
    assert "There is no game 999999." in page and "Traceback" not in page


def test_the_field_in_error_is_marked(client, ctx):
    form = dict(FORM, csrf_token=csrf_token(client), name3="Dee", email3="dee-at-example")
    page = client.post("/games", data=form).get_data(as_text=True)
    assert "Player 3: &#39;dee-at-example&#39; is not an email address." in page
    marked = re.findall(r'<input id="(\w+)"[^>]*aria-invalid="true"', page)
    assert marked == ["email3"]
    page = client.post("/games", data=dict(form, email3="dee@example.org", turn_hours="x")).get_data(as_text=True)
    assert re.findall(r'<input id="(\w+)"[^>]*aria-invalid="true"', page) == ["turn_hours"]


def test_a_name_in_error_is_marked_whatever_the_message_says(client, ctx):
    # The row comes from the error itself, not from parsing its wording.
    form = dict(FORM, csrf_token=csrf_token(client), name3="x" * 41, email3="dee@example.org")
    page = client.post("/games", data=form).get_data(as_text=True)
    assert "Player 3: a name may have at most 40 characters." in page
    assert re.findall(r'<input id="(\w+)"[^>]*aria-invalid="true"', page) == ["name3"]
    page = client.post("/games", data=dict(form, name3="Dee", turn_hours="100000")).get_data(as_text=True)
    assert re.findall(r'<input id="(\w+)"[^>]*aria-invalid="true"', page) == ["turn_hours"]
