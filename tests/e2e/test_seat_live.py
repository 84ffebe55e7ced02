"""A player's own page in a real browser follows its game (issue 28): another
seat's move shows up by itself, the title and icon say it is their turn, a
move being chosen or a message being written is kept (the page offers to
update instead), and the table talk's new messages are counted by the board."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from pbem.table import talk
from pbem.core.db import session_scope
from pbem.core.models import Seat
from pbem.core.tokens import digest
from tests.support.browser import open_page
from tests.support.clock import wait_until
from tests.support.games import new_game, seat_tokens, to_move
from tests.support.messages import caught_count
from pbem import games

pytestmark = pytest.mark.browser

#: The page asks every few seconds: a change shows within this.
SHOWS = 12_000


def _waiting_page(live: Any, browser: Any, *, width: int = 390) -> tuple[Any, str, dict[str, Any], str]:
    """A new two-player game, the page of the player who waits, and the mover's token and view."""
    game_id, toks = new_game(live.ctx, 2)
    mover, view = to_move(live.ctx, toks)
    waiting = next(t for t in toks if t != mover)
    page = open_page(browser, f"{live.base}/play/{waiting}", width=width, height=844)
    return page, mover, view, waiting


def _seen(live: Any, token: str) -> Any:
    with session_scope(live.ctx.engine) as session:
        return session.exec(select(Seat.seen_at).where(Seat.token_hash == digest(token))).one()


def test_the_page_shows_the_others_move_and_the_turn_by_itself(live: Any, browser: Any) -> None:
    page, mover, view, waiting = _waiting_page(live, browser)
    name = view["you"]
    assert page.locator("#status-title").inner_text() == f"{name} is to move"
    assert not page.title().startswith("(!)")
    assert page.locator("#favicon").get_attribute("href").endswith("/favicon.svg")
    # With the page open, it does not promise a mail for the turn: it shows it.
    assert "This page shows your turn as soon as it comes" in page.locator(".waiting-note").inner_text()
    # The page says its player is there (a POST from its script).
    wait_until(lambda: _seen(live, waiting) is not None)
    games.submit_move(live.ctx, mover, view["legal_moves"][0], None, view["ply"])
    page.wait_for_function("() => document.getElementById('status-title').textContent.trim() === 'Your turn'",
                           timeout=SHOWS)
    assert page.title().startswith("(!) Your turn")
    assert page.locator("#favicon").get_attribute("href").endswith("/favicon-turn.svg")
    assert "A move was made" in page.locator("#seat-note-text").inner_text() or \
        "It is your turn" in page.locator("#seat-note-text").inner_text()
    # The new board works: play.js set it up again.
    assert page.locator("#move-hint").is_visible()
    assert page.locator("#move-list").get_attribute("open") is None
    assert page.errors == []
    page.context.close()


def test_a_message_being_written_is_kept_and_the_page_offers_to_update(live: Any, browser: Any) -> None:
    page, mover, view, waiting = _waiting_page(live, browser)
    page.locator("#talk-text").fill("Good luck, everyone")
    games.submit_move(live.ctx, mover, view["legal_moves"][0], None, view["ply"])
    offer = page.locator("#seat-update")
    offer.wait_for(state="visible", timeout=SHOWS)
    assert "It is your turn" in offer.inner_text()
    # Not swapped: the text stays, the heading is the old one; the tab says it is their turn.
    assert page.locator("#talk-text").input_value() == "Good luck, everyone"
    assert page.locator("#status-title").inner_text() != "Your turn"
    assert page.title().startswith("(!) Your turn")
    page.locator("#seat-update-now").click()
    page.wait_for_function("() => document.getElementById('status-title').textContent.trim() === 'Your turn'",
                           timeout=SHOWS)
    assert offer.is_hidden()
    assert page.errors == []
    page.context.close()


def test_new_table_talk_is_counted_next_to_the_board(live: Any, browser: Any) -> None:
    page, mover, view, waiting = _waiting_page(live, browser)
    jump = page.locator("#talk-jump")
    assert jump.inner_text() == "Table talk"
    head = page.locator(".game-head").bounding_box()
    assert head is not None and head["y"] + head["height"] < 844  # in the first screen
    talk.talk(live.ctx, mover, "Your move, take your time")
    page.wait_for_function("() => document.getElementById('talk-jump').textContent.trim() === "
                           "'1 new message at the table'", timeout=SHOWS)
    assert "has-new" in (jump.get_attribute("class") or "")
    assert page.locator(".talk-message").count() == 1
    jump.click()  # to the table: read
    page.wait_for_function("() => document.getElementById('talk-jump').textContent.trim() === "
                           "'Table talk: 1 message'", timeout=SHOWS)
    assert "has-new" not in (jump.get_attribute("class") or "")
    # The talk comes right after the board and the move form, before the game's facts.
    talk_top = page.locator("#talk").bounding_box()
    players_top = page.locator(".side").bounding_box()
    assert talk_top is not None and players_top is not None and talk_top["y"] < players_top["y"]
    assert page.errors == []
    page.context.close()


def test_accepting_a_game_against_the_computer_on_the_page_mails_no_turn(live: Any, browser: Any) -> None:
    """The page says its player is there before the start too: the first turn,
    which comes with the acceptance, is on the page, not in the mailbox."""
    address = "solo-page@example.org"
    game_id = games.start_game(live.ctx, games.parse_players([{"name": "Sol", "email": address},
                                                                    {"bot": "easy"}, {"bot": "medium"}]))
    (token,) = [t for t in seat_tokens(live.ctx, game_id) if games.seat_view(live.ctx, t)["you"] == "Sol"]
    page = open_page(browser, f"{live.base}/play/{token}", width=390, height=844)
    wait_until(lambda: _seen(live, token) is not None)
    with page.expect_navigation():
        page.get_by_role("button", name="Accept and start").click()
    page.wait_for_function("() => document.getElementById('status-title').textContent.trim() === 'Your turn'",
                           timeout=SHOWS)
    assert caught_count(live.ctx, address, "turn") == 0
    assert caught_count(live.ctx, address, "invite") == 1
    assert page.errors == []
    page.context.close()
