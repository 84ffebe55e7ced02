"""The seat page in a real browser (headless Chromium): choosing a move on the
board, the order of several villages, the phone layout, and the page without
JavaScript.  Screenshots go to /tmp/shots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbem import games
from tests.support.browser import open_page
from tests.support.games import new_game, set_huts, to_move, two_village_position

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots")


def tap(page: Any, territory: int) -> None:
    """Click a territory where its number is drawn (always inside its outline)."""
    label = page.locator(f'#board g.label[data-for="{territory}"] text.number')
    label.scroll_into_view_if_needed()
    box = label.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def shoot(page: Any, name: str, *, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def test_choose_a_move_on_the_board_and_confirm(live: Any, browser: Any) -> None:
    game_id, toks = new_game(live.ctx)
    mover, view = to_move(live.ctx, toks)
    move = view["legal_moves"][len(view["legal_moves"]) // 2]
    source, target = (int(x) for x in move.split("-"))
    page = open_page(browser, f"{live.base}/play/{mover}", timezone="Asia/Kolkata")
    # The deadline in the reader's zone (UTC+5:30 here), with the UTC time kept as its title.
    due = page.locator(".turn-meta time")
    deadline = view["deadline"]
    local_minutes = (int(deadline[11:13]) * 60 + int(deadline[14:16]) + 330) % 1440
    assert f"{local_minutes // 60:02d}:{local_minutes % 60:02d}" in due.inner_text()
    assert "(in 3 days)" in due.inner_text() and "UTC" not in due.inner_text()
    assert due.get_attribute("title").endswith("UTC")
    assert page.locator("#confirm-form").is_hidden()
    assert page.locator("#move-hint").is_visible()
    assert page.locator("#move-list").get_attribute("open") is None  # the no-JS list folds away
    shoot(page, "desktop-turn", full=True)

    tap(page, source)
    assert "selected" in page.locator(f"#t-{source}").get_attribute("class")
    targets = {int(t) for t in page.locator("path.territory.target").evaluate_all(
        "els => els.map(e => e.dataset.territory)")}
    assert targets == {int(m.split("-")[1]) for m in view["legal_moves"] if m.startswith(f"{source}-")}
    assert page.locator(".js-hl .hl-pick-target").count() == len(targets)
    assert page.locator("#confirm-form").is_hidden()

    tap(page, target)
    bar = page.locator("#confirm-form")
    assert bar.is_visible()
    assert page.locator("#confirm-move").inner_text() == f"{source} → {target}"
    assert page.locator("#confirm-move-input").input_value() == move
    shoot(page, "desktop-confirm")

    # Cancel, then choose again and confirm.
    page.locator("#confirm-cancel").click()
    assert bar.is_hidden() and page.locator("path.territory.selected").count() == 0
    tap(page, source)
    tap(page, target)
    with page.expect_navigation():
        page.locator("#confirm-submit").click()
    assert f"Your move {source} → {target} was played." in page.locator(".notice-ok").inner_text()
    after = games.public_game(live.ctx, game_id)
    assert after["ply"] == 1 and after["last_move"] == move
    assert page.locator('.history li[data-ply="1"]').inner_text().endswith(f"moved {source} → {target}")
    assert page.locator("#confirm-form").count() == 0  # no longer this player's turn
    assert page.errors == []  # type: ignore[attr-defined]


def test_phone_layout_fits_and_the_confirm_button_is_in_view(live: Any, browser: Any) -> None:
    game_id, toks = new_game(live.ctx)
    mover, view = to_move(live.ctx, toks)
    page = open_page(browser, f"{live.base}/play/{mover}", width=390, height=844)
    shoot(page, "phone-turn", full=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    board = page.locator("#board svg.clans-board").bounding_box()
    assert board is not None and 300 <= board["width"] <= 390 and board["x"] >= 0
    # The legend's clan shapes are the size of a letter, not of the board (the
    # board's CSS once sized every svg in its frame).
    swatches = page.locator("#board .swatch")
    assert swatches.count() == 5
    for i in range(swatches.count()):
        box = swatches.nth(i).bounding_box()
        assert box is not None and box["height"] <= 32, box
    # The own clan and the board are on the first screen.
    clan = page.locator("[data-your-clan]").bounding_box()
    assert clan is not None and clan["y"] + clan["height"] <= 844
    assert board["y"] < 844
    move = view["legal_moves"][-1]
    source, target = (int(x) for x in move.split("-"))
    tap(page, source)
    tap(page, target)
    button = page.locator("#confirm-submit")
    assert button.is_visible()
    box = button.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844
    assert box["height"] >= 44 and box["x"] + box["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shoot(page, "phone-confirm")
    for path in ("/", "/login", f"/games/{game_id}", "/mailbox/"):
        other = open_page(browser, f"{live.base}{path}", width=390, height=844)
        assert other.evaluate("document.documentElement.scrollWidth") <= 390, path
        shoot(other, "phone" + (path.replace("/", "-").rstrip("-") or "-home"), full=True)
        other.context.close()
    assert page.errors == []  # type: ignore[attr-defined]


def test_order_of_two_villages_is_chosen_on_the_page(live: Any, browser: Any) -> None:
    game_id, toks = new_game(live.ctx)
    huts, move, villages = two_village_position()
    set_huts(live.ctx, game_id, huts)
    mover, view = to_move(live.ctx, toks)
    source, target = (int(x) for x in move.split("-"))
    page = open_page(browser, f"{live.base}/play/{mover}", width=390, height=844)
    tap(page, source)
    tap(page, target)
    items = page.locator("#order-list li")
    assert page.locator("#order-box").is_visible() and items.count() == 2
    assert [int(x) for x in items.evaluate_all("els => els.map(e => e.dataset.village)")] == villages
    assert page.locator("#confirm-order-input").input_value() == f"{villages[0]},{villages[1]}"
    shoot(page, "phone-order")
    items.nth(0).locator("button").nth(1).click()  # found the first one later
    assert page.locator("#confirm-order-input").input_value() == f"{villages[1]},{villages[0]}"
    with page.expect_navigation():
        page.locator("#confirm-submit").click()
    after = games.public_game(live.ctx, game_id)
    assert after["last_move"] == move
    assert [v["territory"] for v in after["villages"]] == [villages[1], villages[0]]


def test_the_page_works_without_javascript(live: Any, browser: Any) -> None:
    game_id, toks = new_game(live.ctx)
    mover, view = to_move(live.ctx, toks)
    page = open_page(browser, f"{live.base}/play/{mover}", width=390, height=844, js=False)
    assert page.locator("#confirm-form").is_hidden()
    assert page.locator("#move-select").is_visible()
    move = view["legal_moves"][0]
    page.locator("#move-select").select_option(move)
    shoot(page, "phone-nojs", full=True)
    with page.expect_navigation():
        page.locator(".fallback-form button[type=submit]").click()
    assert games.public_game(live.ctx, game_id)["last_move"] == move
    # Times stay in UTC without the script.
    assert "UTC" in page.locator(".turn-meta time, .waiting-note time").first.inner_text()


def test_a_seat_page_offers_the_browsers_time_zone_and_saves_it(live: Any, browser: Any) -> None:
    """First visit: the settings hold the browser's zone (not yet saved); Save
    keeps it, and the page then writes its times in that zone."""
    game_id, toks = new_game(live.ctx, 2)
    page = open_page(browser, f"{live.base}/play/{toks[0]}", width=390, height=844, timezone="Europe/Prague")
    field = page.locator("#seat-time-zone")
    assert field.input_value() == "Europe/Prague"
    assert games.seat_view(live.ctx, toks[0])["time_zone"] is None  # offered, not saved
    with page.expect_navigation():
        page.locator("form.language-form button[type=submit]").click()
    assert games.seat_view(live.ctx, toks[0])["time_zone"] == "Europe/Prague"
    assert page.locator("#seat-time-zone").get_attribute("data-offer-browser-zone") is None
    page.context.close()
