"""The watch page and the replay in a real browser (headless Chromium): the
watch page swaps in a move made elsewhere and says so; the replay steps forward
and back with its buttons, the arrow keys, the slider and the list of moves, at
a phone's size and a laptop's, without overflowing; without JavaScript its
buttons still step."""

from __future__ import annotations

from typing import Any

import pytest

from pbem import games
from tests.support.browser import open_page
from tests.support.games import new_game, play_to_end, to_move

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def finished(live: Any) -> tuple[str, int]:
    """A game played to its end on the live server, and its number of moves."""
    game_id, toks = new_game(live.ctx)
    return game_id, play_to_end(live.ctx, toks)


def _title(page: Any) -> str:
    return str(page.locator("#step-title").inner_text())


def _board(page: Any) -> str:
    return str(page.locator("#replay-step #board svg.clans-board").inner_html())


def _wait_title(page: Any, text: str) -> None:
    page.wait_for_function("t => document.getElementById('step-title').textContent === t", arg=text)


def _fits(page: Any, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("width, height", [(390, 844), (1280, 800)])
def test_the_replay_steps_forward_and_back(live: Any, browser: Any, finished: tuple[str, int],
                                           width: int, height: int) -> None:
    game_id, moves = finished
    page = open_page(browser, f"{live.base}/games/{game_id}/replay", width=width, height=height)
    assert _title(page) == "The set-up, before the first move"
    assert page.locator("#replay-first").is_disabled() and page.locator("#replay-back").is_disabled()
    assert page.locator("#replay-show").is_hidden()  # the slider steps by itself
    _fits(page, width)
    if width < 600:
        for name in ("first", "back", "forward", "last"):
            box = page.locator(f"#replay-{name}").bounding_box()
            assert box is not None and box["height"] >= 44 and box["width"] >= 44, (name, box)
        assert page.locator("#replay-ply").bounding_box()["height"] >= 24

    setup = _board(page)
    page.locator("#replay-forward").click()
    _wait_title(page, f"Move 1 of {moves}")
    first = _board(page)
    assert first != setup
    assert page.url.endswith("?ply=1")
    assert page.locator("#replay-number").inner_text() == f"1/{moves}"
    assert "moved" in page.locator("#step-sentence").inner_text()
    assert page.locator("#replay-status").inner_text().startswith(f"Move 1 of {moves}: ")

    page.keyboard.press("ArrowRight")
    _wait_title(page, f"Move 2 of {moves}")
    assert _board(page) not in (setup, first)
    page.keyboard.press("ArrowLeft")
    _wait_title(page, f"Move 1 of {moves}")
    assert _board(page) == first

    page.locator("#replay-ply").fill(str(moves // 2))
    _wait_title(page, f"Move {moves // 2} of {moves}")
    assert page.locator("#replay-ply").get_attribute("aria-valuetext") == f"Move {moves // 2} of {moves}"
    assert page.locator(f'.replay-history li[data-ply="{moves // 2}"] a').get_attribute("aria-current") == "step"

    page.locator("#replay-last").click()
    _wait_title(page, f"Move {moves} of {moves}")
    assert page.locator("#replay-forward").is_disabled() and page.locator("#replay-last").is_disabled()
    # The focus goes to a button that still steps, not to the page.
    assert page.evaluate("document.activeElement.id") == "replay-back"
    page.keyboard.press("Enter")
    _wait_title(page, f"Move {moves - 1} of {moves}")

    page.locator('.replay-history li[data-ply="3"] a').click()
    _wait_title(page, f"Move 3 of {moves}")
    page.locator("#replay-first").click()
    _wait_title(page, "The set-up, before the first move")
    assert _board(page) == setup
    _fits(page, width)
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def test_the_replay_without_javascript(live: Any, browser: Any, finished: tuple[str, int]) -> None:
    game_id, moves = finished
    page = open_page(browser, f"{live.base}/games/{game_id}/replay?ply=4", js=False, width=390, height=844)
    assert _title(page) == f"Move 4 of {moves}"
    with page.expect_navigation():
        page.locator("#replay-forward").click()
    assert _title(page) == f"Move 5 of {moves}" and page.url.endswith("?ply=5")
    with page.expect_navigation():
        page.locator("#replay-first").click()
    assert _title(page) == "The set-up, before the first move"
    page.locator("#replay-ply").fill("7")
    with page.expect_navigation():
        page.locator("#replay-show").click()
    assert _title(page) == f"Move 7 of {moves}"
    _fits(page, 390)
    page.context.close()


def test_the_watch_page_shows_a_move_made_elsewhere(live: Any, browser: Any) -> None:
    game_id, toks = new_game(live.ctx)
    page = open_page(browser, f"{live.base}/games/{game_id}", width=390, height=844)
    assert page.locator(".watch-refresh-text").inner_text() == "This page shows each new move by itself."
    assert page.locator("#watch-note").inner_text() == ""
    before = page.locator("#watch").get_attribute("data-version")
    mover, view = to_move(live.ctx, toks)
    move = view["legal_moves"][0]
    games.submit_move(live.ctx, mover, move, None, view["ply"])
    # The tab coming back asks at once (rather than at the next tick).
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_function("() => document.getElementById('watch-note').textContent === 'A move was made.'")
    assert page.locator("#watch").get_attribute("data-version") != before
    assert page.locator('.history li[data-ply="1"]').inner_text().endswith(f"moved {move.replace('-', ' → ')}")
    assert page.locator(".game-head h1").inner_text() == f"{games.public_game(live.ctx, game_id)['next']} is to move"
    _fits(page, 390)
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()
