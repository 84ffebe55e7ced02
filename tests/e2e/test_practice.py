"""Practice from here in a real browser (headless Chromium): a signed-in player
steps a finished game's replay to a position, starts a practice game from it
in a seat of their choosing, and plays against the computer there; the
original game's rows are the same afterwards."""

from __future__ import annotations

import re
from typing import Any

import pytest
from sqlalchemy import text

from pbem import games
from tests.support.browser import open_page
from tests.support.games import db_id, new_game, play_to_end
from tests.support.messages import caught

pytestmark = pytest.mark.browser


def _rows_of(ctx: Any, game_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row that belongs to a game: the game, its seats, its moves, its mail."""
    gid = db_id(ctx, game_id)
    with ctx.engine.connect() as conn:
        out = {"game": [tuple(r) for r in conn.execute(text("SELECT * FROM game WHERE id = :g"), {"g": gid})]}
        for table in ("seat", "move", "outbox", "table_message"):
            out[table] = [tuple(r) for r in conn.execute(
                text(f"SELECT * FROM {table} WHERE game_id = :g ORDER BY id"), {"g": gid})]
    return out


def _sign_in(page: Any, live: Any, email: str) -> None:
    """Ask for a sign-in link on the page, read it from the mailbox, press the button."""
    page.goto(f"{live.base}/login")
    page.locator("#email").fill(email)
    with page.expect_navigation():
        page.locator("main form button[type=submit]").click()
    mail = caught(live.ctx, email, "login")[-1]
    m = re.search(r"/signin/([^\s/]+)", mail.get_body(preferencelist=("plain",)).get_content())
    assert m, "no sign-in link in the mail"
    page.goto(f"{live.base}/signin/{m.group(1)}")
    with page.expect_navigation():
        page.locator("main form button[type=submit]").click()
    assert page.url.endswith("/games")


@pytest.mark.parametrize("width, height", [(390, 844)])
def test_practise_from_a_replay_position_and_play_the_computer(live: Any, browser: Any, width: int,
                                                               height: int) -> None:
    game_id, toks = new_game(live.ctx, 3)
    moves = play_to_end(live.ctx, toks)
    before = _rows_of(live.ctx, game_id)
    page = open_page(browser, f"{live.base}/games/{game_id}/replay?ply=2", width=width, height=height)
    # A visitor is asked to sign in first.
    assert page.locator("#practice-sign-in").is_visible() and page.locator("#practice-start").count() == 0
    _sign_in(page, live, "ann@example.org")

    page.goto(f"{live.base}/games/{game_id}/replay?ply=2")
    page.locator("#replay-forward").click()  # the script swaps in position 3, its practice form with it
    page.wait_for_function("() => document.getElementById('step-title').textContent === 'Move 3 of %d'" % moves)
    assert page.locator("#practice input[name=ply]").input_value() == "3"
    page.locator("#practice-seat").select_option("2")
    page.locator("#practice-level").select_option("easy")
    with page.expect_navigation():
        page.locator("#practice-start").click()

    assert "/play/" in page.url
    token = page.url.rpartition("/play/")[2]
    assert "Your practice game has started" in page.locator("main").inner_text()
    assert page.locator("#practice-note").get_attribute("data-practice-of") == game_id
    view = games.seat_view(live.ctx, token)
    # Seat 2 of the position after move 3: the two computers before it moved at once.
    assert view["seat"] == 2 and view["ply"] == 5 and view["your_turn"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width

    # Play a move from the list; the computers answer at once.
    page.locator("#move-list summary").click()  # the list is folded away while the board is for tapping
    page.locator("#move-select").select_option(index=1)
    with page.expect_navigation():
        page.locator("#move-list button[type=submit]").click()
    view = games.seat_view(live.ctx, token)
    assert view["ply"] == 8 and view["your_turn"] and view["status"] == "active"
    assert [p["bot"] for p in view["players"]] == ["easy", "easy", None]
    assert page.locator("#move-select").count() == 1  # the page shows the next turn
    assert _rows_of(live.ctx, game_id) == before  # the original is untouched
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()
