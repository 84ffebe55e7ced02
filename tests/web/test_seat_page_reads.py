"""A seat's page costs one look-up of its seat: its view, its version, the table
talk, the rematch and the webhooks are read together (``table.seat_page``), not
each by the token again in a transaction of its own."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pbem.table import rematch, talk
from tests.support.games import finish, new_game
from tests.support.web import csrf_token

#: The look-up of a seat by its token: the token's hash in a WHERE clause.
_LOOK_UP = re.compile(r"token_hash\s*=", re.I)


def _look_ups(statements: list[str]) -> list[str]:
    return [s for s in statements if _LOOK_UP.search(s)]


@pytest.mark.parametrize("over", [False, True], ids=["active", "finished"])
def test_a_seat_page_looks_its_seat_up_once(client: Any, ctx: Any, statements: list[str], over: bool) -> None:
    game_id, toks = new_game(ctx)
    talk.talk(ctx, toks[1], "Hello table")
    if over:
        finish(ctx, game_id, toks)
        made = rematch.play_again(ctx, toks[1])  # the page links to the player's seat in it
    statements.clear()
    response = client.get(f"/play/{toks[0]}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "Hello table" in page and 'id="webhooks"' in page
    if over:
        assert f"/games/{made.game}" in page or "data-rematch-seat" in page
    assert len(_look_ups(statements)) == 1, statements
    # The seat with its game, its bounces, its person's vacation bank (one row by a unique hash), the talk,
    # the webhooks; a finished game's rematch and the seat in it; the seat's notes, and (while someone else is
    # to move) what a nudge depends on, in one statement; a game in play's pre-moves of the seat and its
    # calendar feed (one row each, by the seat).
    assert len(statements) <= 9, statements


def test_a_refused_form_reads_the_page_once_more(client: Any, ctx: Any, statements: list[str]) -> None:
    """The service looked the seat up and refused; the page is read once to show why."""
    _, toks = new_game(ctx)
    form = {"csrf_token": csrf_token(client, f"/play/{toks[0]}"), "text": "   "}
    statements.clear()
    response = client.post(f"/play/{toks[0]}/talk", data=form)
    assert response.status_code == 422 and 'id="talk-error"' in response.get_data(as_text=True)
    assert len(_look_ups(statements)) == 2, statements
