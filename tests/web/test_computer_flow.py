"""Playing the computer, said the way it happens (issue 28): the address is
confirmed by mail first (a safety rule), and the pages say exactly that; the
button starts the game; signed in, or once confirmed, you land in the game;
"Play again" against the computer does not speak of invitations."""

from __future__ import annotations

import re
from typing import Any

from pbem import games
from tests.support.games import finish, seat_tokens
from tests.support.messages import caught
from tests.support.web import csrf_from, csrf_token, sign_in

SOLO = {"against": "computer", "name": "Ann", "email": "ann@example.org", "language": "en",
        "opponents": "2", "level": "easy"}


def _confirm_link(ctx: Any) -> str:
    (confirm,) = caught(ctx, kind="invite")
    m = re.search(r"https://clans\.example(/play/\S+)", confirm.get_body(preferencelist=("plain",)).get_content())
    assert m
    return m.group(1)


def test_the_computer_form_says_the_address_is_confirmed_first(client: Any, ctx: Any) -> None:
    home = client.get("/").get_data(as_text=True)
    assert "First we email you a link to confirm your address" in home
    assert "you get an email whenever it is your turn" not in home
    response = client.post("/games", data=dict(SOLO, csrf_token=csrf_token(client)))
    assert response.status_code == 303 and "new=1" in response.headers["Location"]
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "One step first: confirm your address" in page
    assert "press <strong>Accept and start</strong>: you are in the game at once" in page
    # Nothing about others to invite: there are none.
    assert "Check your email" not in page and "invitations go out" not in page
    # The mail says the same: nobody else is emailed, the button starts the game.
    (mail,) = caught(ctx, kind="invite")
    text = mail.get_body(preferencelist=("plain",)).get_content()
    html = mail.get_body(preferencelist=("html",)).get_content()
    assert "They are computer players, so nobody else is emailed" in " ".join(text.split())
    assert "Accept and start" in html and "Accept and invite the others" not in html
    assert "we send their invitations" not in html and "to send their invitations" not in " ".join(text.split())
    # The link in the mail: one button, which starts the game.
    seat = _confirm_link(ctx)
    page = client.get(seat).get_data(as_text=True)
    assert "Accept and start" in page and "Accept and invite the others" not in page
    assert "You started this game: nobody else has been emailed yet" not in page
    response = client.post(seat + "/accept", data={"csrf_token": csrf_from(page)})
    assert response.status_code == 303 and response.headers["Location"].endswith(seat)
    page = client.get(seat).get_data(as_text=True)
    assert 'id="status-title" data-status="active">Your turn<' in page  # the computers moved already
    assert "(!) Your turn" in page.split("</title>")[0]
    assert 'href="/static/favicon-turn.svg"' in page


def test_a_game_with_people_still_invites_them(client: Any, ctx: Any) -> None:
    form = {"name0": "Ann", "email0": "ann@example.org", "name1": "Bob", "email1": "bob@example.org",
            "who2": "easy", "turn_hours": "", "csrf_token": csrf_token(client)}
    response = client.post("/games", data=form)
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Check your email" in page and "invitations go out" in page
    (mail,) = caught(ctx, kind="invite")
    assert "Accept and invite the others" in mail.get_body(preferencelist=("html",)).get_content()
    page = client.get(_confirm_link(ctx)).get_data(as_text=True)
    assert "Accept and invite the others" in page and "Accept and start" not in page


def test_signed_in_the_game_against_the_computer_opens_at_once(client: Any, ctx: Any) -> None:
    games.start_game(ctx, games.parse_players([{"name": "Ann", "email": "ann@example.org"},
                                                     {"name": "Bob", "email": "bob@example.org"}]))
    sign_in(client, ctx)
    response = client.post("/games", data=dict(SOLO, csrf_token=csrf_token(client)))
    assert response.status_code == 303
    assert re.search(r"/play/[\w-]+$", response.headers["Location"]), response.headers["Location"]
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Your game against the computer has started." in page
    assert 'data-status="active"' in page


def test_play_again_against_the_computer_says_it_has_begun(client: Any, ctx: Any) -> None:
    game_id = games.start_game(ctx, games.parse_players([{"name": "Ann", "email": "ann@example.org"},
                                                               {"bot": "easy"}]))
    (ann,) = [t for t in seat_tokens(ctx, game_id) if games.seat_view(ctx, t)["you"] == "Ann"]
    games.accept(ctx, ann)
    finish(ctx, game_id, [ann])
    page = client.get(f"/play/{ann}").get_data(as_text=True)
    assert "Start a new game against the computer: it begins at once." in page
    assert "the others get an invitation by email" not in page
    response = client.post(f"/play/{ann}/rematch", data={"csrf_token": csrf_from(page)})
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "You started a rematch against the computer: it has begun." in page
    assert "invited by email" not in page
    assert 'data-status="active"' in page
