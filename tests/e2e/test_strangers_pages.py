"""The pages of strangers, safely, in headless Chromium: the public profile
(anonymous and signed in), the seat page with the block and report controls
beside another player's message (and the report opened), the note that a
blocked player's messages are hidden, and "My games" with the profile's
settings and the list of blocked people.  axe-core (WCAG 2.x A and AA) finds
nothing serious or critical at a phone's width, and in every language no page
scrolls sideways at 390, 768, 1280 or 1920 px."""

from __future__ import annotations

import itertools
import re
from typing import Any, Iterator

import pytest

from pbem import games
from pbem.core.db import session_scope
from pbem.people import profiles
from pbem.table import talk
from tests.support.browser import open_page
from tests.support.games import finish, seat_tokens
from tests.support.messages import caught

pytestmark = pytest.mark.browser

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
OPTIONS = {"runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"], "iframes": False}
WIDTHS = (390, 768, 1280, 1920)
LOCALES = {"en": "en-GB", "hu": "hu-HU", "cs": "cs-CZ", "pt": "pt-PT"}
_numbers = itertools.count(1)


def make_game(ctx: Any, language: str = "en") -> tuple[str, list[str], dict[str, str]]:
    """A started game of three with a message from each of the others: its id,
    tokens (the first is the viewer's), and the addresses by name."""
    n = next(_numbers)
    people = [{"name": name, "email": f"{name.split()[0].lower()}{n}@example.org", "language": language}
              for name in ("Annamária", "Bartholomew Long", "Cidália")]
    game_id = games.start_game(ctx, games.parse_players(people))
    for t in seat_tokens(ctx, game_id):
        games.accept(ctx, t)
    toks = seat_tokens(ctx, game_id)
    for t in toks[1:]:
        talk.talk(ctx, t, "Good luck, everyone! https://example.org/a-rather-long-address-to-wrap")
    return game_id, toks, {p["name"]: p["email"] for p in people}


def own_address(ctx: Any, token: str, emails: dict[str, str]) -> str:
    return emails[games.seat_view(ctx, token)["you"]]


def submit(page: Any, selector: str) -> None:
    with page.expect_navigation():
        page.locator(selector).first.click()


def sign_in(page: Any, live: Any, address: str) -> None:
    page.goto(live.base + "/login")
    page.locator("#email").fill(address)
    submit(page, "main form button[type=submit]")
    m = re.search(r"/signin/([^\s/]+)", caught(live.ctx, address, "login")[-1]
                  .get_body(preferencelist=("plain",)).get_content())
    assert m
    page.goto(f"{live.base}/signin/{m.group(1)}")
    submit(page, "main form button[type=submit]")
    assert page.url.endswith("/games")


def profile_path(ctx: Any, address: str) -> str:
    with session_scope(ctx.engine) as session:
        return f"/people/{profiles.public_ids(session, [address])[address.lower()]}"


@pytest.fixture
def unlimited(live: Any) -> Iterator[None]:
    kept = live.ctx.limit
    live.ctx.limit = lambda name, keys: None
    try:
        yield
    finally:
        live.ctx.limit = kept


def test_the_pages_pass_axe(live: Any, browser: Any, unlimited: None) -> None:
    from axe_playwright_python.sync_playwright import Axe

    axe, findings, checked = Axe(), [], []
    ctx = live.ctx
    game_id, toks, emails = make_game(ctx)
    finish(ctx, game_id, toks)
    page = open_page(browser, f"{live.base}/play/{toks[0]}", width=390, height=844)

    def check(label: str) -> None:
        checked.append(label)
        if page.evaluate("document.documentElement.scrollWidth") > 390:
            findings.append(f"{label}: wider than the phone")
        for v in axe.run(page, options=OPTIONS).response["violations"]:
            if v.get("impact") in ("serious", "critical"):
                findings.append(f"{label}: {v['id']} {v['help']} {[n['target'] for n in v['nodes']]}")

    try:
        assert page.locator("[data-talk-actions]").count() == 2
        check("seat: talk with block and report")
        page.locator(".talk-report summary").first.click()
        page.locator(".talk-report textarea").first.fill("spam")
        check("seat: the report opened")
        submit(page, ".talk-report[open] button[type=submit]")
        check("seat: reported")
        submit(page, "[data-block-form] button[type=submit]")
        assert page.locator("[data-talk-hidden]").is_visible()
        check("seat: a player blocked")
        others = [a for a in emails.values() if a != own_address(ctx, toks[0], emails)]
        page.goto(live.base + profile_path(ctx, others[0]))
        assert "@" not in page.content()
        check("profile, anonymous")
        sign_in(page, live, own_address(ctx, toks[0], emails))
        assert page.locator("#blocks [data-block]").count() == 1
        check("my games: profile and blocks")
        for address in others:
            page.goto(live.base + profile_path(ctx, address))
            check("profile, signed in")
        page.goto(live.base + profile_path(ctx, own_address(ctx, toks[0], emails)))
        check("profile, your own")
    finally:
        page.context.close()
    assert checked and not findings, "\n".join(findings)


@pytest.mark.parametrize("language", list(LOCALES))
def test_the_pages_fit_every_width(live: Any, browser: Any, unlimited: None, language: str) -> None:
    ctx = live.ctx
    game_id, toks, emails = make_game(ctx, language)
    finish(ctx, game_id, toks)
    mine = own_address(ctx, toks[0], emails)
    other = next(a for a in emails.values() if a != mine)
    page = open_page(browser, f"{live.base}/play/{toks[0]}", width=390, locale=LOCALES[language])
    problems, measured = [], []

    def measure(label: str) -> None:
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            wide = page.evaluate("document.documentElement.scrollWidth")
            measured.append(label)
            if wide > width:
                problems.append(f"{language} {label} at {width}px: {wide}px wide")
        page.set_viewport_size({"width": 390, "height": 900})

    try:
        page.locator(".talk-report summary").first.click()
        measure("seat: talk with the report opened")
        page.goto(live.base + profile_path(ctx, other))
        measure("profile")
        sign_in(page, live, mine)
        page.goto(live.base + profile_path(ctx, other))
        submit(page, "main form[action$='/block'] button[type=submit]")
        measure("profile: blocked")
        page.goto(live.base + "/games")
        assert page.locator("#blocks [data-block]").count() == 1
        measure("my games: profile and blocks")
    finally:
        page.context.close()
    assert len(measured) == 4 * len(WIDTHS) and not problems, "\n".join(problems)
