"""Every page fits every screen, in every language: in headless Chromium at 390,
768, 1280 and 1920 px wide, no page scrolls sideways, no text field is narrower
than what it holds (and never under 120 px), no word is broken across two
lines, and no cell or scrolling box hides part of what it holds.

One browser, one context per language (the browser's ``Accept-Language`` picks
the language of the pages that are nobody's seat; a seat page speaks its seat's
language) and one tab: each page is loaded once and measured at the four widths
by resizing the tab.  A form measured in one language only (the start form
with its clock section open) is measured in the longest, Hungarian.
``PBEM_LAYOUT_SHOTS=1`` also saves a screenshot of each
page at 390 and 1280 px to /tmp/shots/layout (to look at them; off by default:
they take minutes)."""

from __future__ import annotations

import itertools
import os
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Iterator

import pytest
from sqlmodel import col, select

from pbem import games
from pbem.core.db import session_scope
from pbem.core.models import CaughtMail, Game, MoveRecord, Seat
from tests.support.browser import open_page
from tests.support.matches import make_away, quick_game
from tests.support.games import finish, play_to_end, seat_tokens, to_move
from tests.support.messages import caught

pytestmark = pytest.mark.browser

WIDTHS = (390, 768, 1280, 1920)
HEIGHT = 900
#: The browser's language for each of ours, and the page's ``lang`` in it.
LANGUAGES = {"en": "en-GB", "hu": "hu-HU", "cs": "cs-CZ", "pt": "pt-PT"}
TAGS = {"en": "en", "hu": "hu", "cs": "cs", "pt": "pt-PT"}
SHOTS = Path("/tmp/shots/layout") if os.environ.get("PBEM_LAYOUT_SHOTS") == "1" else None
_numbers = itertools.count(1)

#: What is wrong with the page as it is laid out now: a list of sentences.
CHECK = r"""
() => {
  const problems = [];
  const say = (what, el) => {
    const id = el.id ? '#' + el.id : '';
    const cls = el.classList && el.classList.length ? '.' + [...el.classList].join('.') : '';
    problems.push(`${el.tagName.toLowerCase()}${id}${cls}: ${what}`);
  };
  // Shown to a sighted reader (not hidden, not only for screen readers); remembered per element.
  const seen = new Map();
  const shown = el => {
    if (!seen.has(el)) {
      seen.set(el, !el.classList.contains('sr-only') && el.checkVisibility({visibilityProperty: true})
               && (!el.parentElement || el.parentElement === document.body || shown(el.parentElement)));
    }
    return seen.get(el);
  };

  // (a) No sideways scroll.
  const wide = document.scrollingElement.scrollWidth;
  if (wide > innerWidth) problems.push(`the page is ${wide}px wide, wider than the ${innerWidth}px window`);

  // (b) Text fields at least 120px and as wide as their text (typed, placeholder or chosen option).
  const canvas = document.createElement('canvas').getContext('2d');
  const textWidth = (el, text) => {
    const s = getComputedStyle(el);
    canvas.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
    return canvas.measureText(text).width;
  };
  const textual = 'input:not([type]), input[type=text], input[type=email], input[type=url], input[type=search], ' +
                  'input[type=number], input[type=tel], input[type=password], select, textarea';
  for (const el of document.querySelectorAll(textual)) {
    if (!shown(el)) continue;
    const s = getComputedStyle(el);
    const box = el.getBoundingClientRect().width;
    const inner = box - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)
                  - parseFloat(s.borderLeftWidth) - parseFloat(s.borderRightWidth);
    let text = el.value || el.placeholder || '';
    // A select shows its chosen option, and its arrow takes about 20px.
    let need = el.tagName === 'SELECT' ? 20 : 0;
    if (el.tagName === 'SELECT') text = el.selectedIndex >= 0 ? el.options[el.selectedIndex].text : '';
    if (el.tagName === 'TEXTAREA') text = '';
    need += textWidth(el, text);
    if (box < 120) say(`${Math.round(box)}px wide, under 120px`, el);
    else if (inner + 0.5 < need) say(`${Math.round(inner)}px inside, its text "${text}" needs ${Math.round(need)}px`, el);
  }

  // (c) No word broken across lines: each word of each text node (hyphenated
  // parts, addresses and links counted as separate words, as they may break
  // there) must lie on one line.
  const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SELECT', 'OPTION', 'TEXTAREA']);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || skip.has(parent.tagName) || parent.closest('svg') || !shown(parent)) continue;
    // What a person typed (table talk) and mail as it was sent may wrap anywhere.
    if (parent.closest('.talk-text, .mail-text, .mail-headers dd')) continue;
    const text = node.data;
    for (const m of text.matchAll(/[^\s\-\u2010\u2013\u2014\/@.,:;()]+/gu)) {
      if (m[0].length < 2) continue;
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = [];
      for (const r of range.getClientRects()) {
        if (r.width < 0.5) continue;
        if (!tops.some(t => Math.abs(t - r.top) < r.height / 2)) tops.push(r.top);
      }
      if (tops.length > 1) say(`the word "${m[0]}" is broken across ${tops.length} lines`, parent);
    }
  }

  // (d) No clipped cell or box: a table cell, or anything that scrolls or hides
  // what overflows it sideways, holds all of its content.
  for (const el of document.querySelectorAll('main *, header *, footer *')) {
    if (el.closest('svg') || el.matches(textual + ', input, button, iframe') || !shown(el)) continue;
    const s = getComputedStyle(el);
    const cell = el.tagName === 'TD' || el.tagName === 'TH';
    if (!cell && s.overflowX === 'visible') continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      say(`clips its content: ${el.scrollWidth}px in ${el.clientWidth}px` +
          ` ("${el.textContent.trim().replace(/\s+/g, ' ').slice(0, 40)}")`, el);
    }
  }
  return problems;
}
"""


class Layout:
    """One tab per language; each page is measured at every width."""

    def __init__(self, live: Any, browser: Any) -> None:
        self.live, self.browser = live, browser
        self.pages: dict[str, Any] = {}
        self.problems: list[str] = []
        self.measured: list[str] = []

    def tab(self, language: str) -> Any:
        if language not in self.pages:
            page = open_page(self.browser, f"{self.live.base}/healthz", width=WIDTHS[0], height=HEIGHT,
                             status=None, locale=LANGUAGES[language], timezone="Europe/Budapest")
            self.pages[language] = page
        return self.pages[language]

    def open(self, language: str, path: str, status: int = 200) -> Any:
        page = self.tab(language)
        response = page.goto(self.live.base + path)
        assert response is not None and response.status == status, (path, response and response.status)
        return page

    def measure(self, language: str, label: str) -> None:
        """Check what the language's tab shows now, at every width."""
        page = self.pages[language]
        tag = page.locator("html").get_attribute("lang")
        assert tag == TAGS[language], (label, tag)
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": HEIGHT})
            for problem in page.evaluate(CHECK):
                self.problems.append(f"{language} {label} at {width}px: {problem}")
            self.measured.append(f"{language} {label} {width}")
            if SHOTS is not None and width in (390, 1280):
                SHOTS.mkdir(parents=True, exist_ok=True)
                name = re.sub(r"[^a-z0-9]+", "-", f"{language} {label} {width}".lower())
                page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
        page.set_viewport_size({"width": WIDTHS[0], "height": HEIGHT})

    def visit(self, language: str, path: str, label: str, status: int = 200) -> Any:
        page = self.open(language, path, status)
        self.measure(language, label)
        return page

    def close(self) -> None:
        for page in self.pages.values():
            errors = [e for e in page.errors if not e.startswith("Failed to load resource")]
            assert errors == [], errors
            page.context.close()


@pytest.fixture
def layout(live: Any, browser: Any) -> Iterator[Layout]:
    # Many games and sign-ins from one address and one client.
    kept, config = live.ctx.limit, {name: live.app.config[name] for name in ("LIMIT_NEW_GAMES", "LIMIT_LOGIN")}
    live.ctx.limit = lambda name, keys: None
    live.app.config.update({name: "1000 per minute" for name in config})
    checker = Layout(live, browser)
    try:
        yield checker
    finally:
        live.ctx.limit = kept
        live.app.config.update(config)
        checker.close()


def people(language: str, count: int = 3) -> list[dict[str, str]]:
    """Players of this language, with addresses no other game of this module uses
    (and names as long as a person's may well be)."""
    n = next(_numbers)
    names = ("Annamária", "Bartholomew", "Cidália Fernandes", "Dezső")
    return [{"name": name, "email": f"{name.split()[0].lower()}{n}@example.org", "language": language,
             "time_zone": "Europe/Budapest"} for name in names[:count]]


def submit(page: Any, selector: str) -> None:
    with page.expect_navigation():
        page.locator(selector).click()


def sign_in_token(ctx: Any, address: str) -> str:
    mails = caught(ctx, address, "login")
    assert mails, f"no sign-in mail to {address}"
    m = re.search(r"/signin/([^\s/]+)", mails[-1].get_body(preferencelist=("plain",)).get_content())
    assert m, "no sign-in link in the mail"
    return m.group(1)


@pytest.fixture(scope="module")
def ended(live: Any) -> tuple[str, list[str]]:
    """A game played to its end (so that its replay has every move): its id and
    its seat tokens.  Made once; each language's test gives its seats its language."""
    game_id = games.start_game(live.ctx, games.parse_players(people("en")))
    for t in seat_tokens(live.ctx, game_id):
        games.accept(live.ctx, t)
    toks = seat_tokens(live.ctx, game_id)
    play_to_end(live.ctx, toks)
    return game_id, toks


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_page_fits_every_width(layout: Layout, live: Any, ended: tuple[str, list[str]], language: str) -> None:
    ctx = live.ctx
    # The start forms: empty, then with a refused row (its error above the fields).
    page = layout.visit(language, "/", "home")
    page.locator("#name0").fill("Annamária")
    page.locator("#email0").fill("not an address")
    page.locator("#who2").select_option("hard")
    submit(page, ".start-card button[type=submit]")
    page.locator("#start-error").wait_for(state="visible", timeout=15_000)  # the answer may come after the load event
    layout.measure(language, "home, a refused start")
    page = layout.open(language, "/#computer")
    submit(page, ".solo-card button[type=submit]")
    assert page.locator("#solo-error").is_visible()
    layout.measure(language, "home, a refused game against the computer")

    # A game: invited, playing, finished; its public page and its replay.
    players = people(language)
    # With a correspondence clock and weekends off: the seat pages show every player's bank.
    game_id = games.start_game(ctx, games.parse_players(players), options=games.parse_time_options(
        {"days": 3, "increment_hours": 12, "max_days": 5}, True))
    toks = seat_tokens(ctx, game_id)
    layout.visit(language, f"/play/{toks[0]}", "seat: invited")
    layout.visit(language, f"/games/{game_id}?new=1", "public page: invitations sent")
    layout.visit(language, f"/never/{toks[1]}", "never email me")
    for t in toks:
        games.accept(ctx, t)
    toks = seat_tokens(ctx, game_id)
    mover, view = to_move(ctx, toks)
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    mover, view = to_move(ctx, toks)
    page = layout.visit(language, f"/play/{mover}", "seat: your turn")
    source = view["legal_moves"][0].split("-")[0]
    page.locator(f"#board [data-territory='{source}']").first.click()
    layout.measure(language, "seat: a territory picked")
    other = next(t for t in toks if t != mover)
    # With pre-moves listed (one with an order): their section's rows and buttons must fit too.
    target = view["legal_moves"][0].split("-")[1]
    games.set_premoves(ctx, other, [view["legal_moves"][0], {"move": view["legal_moves"][-1], "order": None},
                                    {"move": view["legal_moves"][0], "order": [int(target)]}])
    layout.visit(language, f"/play/{other}", "seat: not your turn")
    # The turn began 25 hours ago: the nudge button shows.
    with session_scope(ctx.engine) as session:
        for made in session.exec(select(MoveRecord).join(Game, col(Game.id) == col(MoveRecord.game_id))
                                 .where(Game.public_id == game_id)):
            made.created_at = made.created_at - timedelta(hours=25)
            session.add(made)
    page = layout.visit(language, f"/play/{other}", "seat: may nudge")
    assert page.locator("form[action$='/nudge'] button").count() == 1
    layout.visit(language, f"/games/{game_id}", "public page: in play")
    layout.visit(language, f"/unsubscribe/{other}", "unsubscribe")
    over, over_toks = ended
    for t in over_toks:
        games.set_language(ctx, t, language, "Europe/Budapest")
    layout.visit(language, f"/play/{over_toks[0]}", "seat: game over")
    layout.visit(language, f"/games/{over}", "public page: game over")
    layout.visit(language, f"/games/{over}/replay", "replay: the set-up")
    moves = games.public_game(ctx, over)["ply"]
    layout.visit(language, f"/games/{over}/replay?ply={moves}", "replay: the end")

    # Signing in and the player's games (one over, one in play).
    finish(ctx, game_id, toks)
    other_game = games.start_game(ctx, games.parse_players(players[:1] + people(language)[1:]))
    for t in seat_tokens(ctx, other_game):
        games.accept(ctx, t)
    page = layout.visit(language, "/login", "sign-in")
    page.locator("#email").fill(players[0]["email"])
    submit(page, "main form button[type=submit]")
    assert page.locator("#login-error").count() == 0
    layout.measure(language, "sign-in link sent")
    page = layout.visit(language, f"/signin/{sign_in_token(ctx, players[0]['email'])}", "sign-in confirm")
    submit(page, "main form button[type=submit]")
    assert page.url.endswith("/games")
    layout.measure(language, "my games")

    # The demo's mailbox and one mail in it; the error pages.
    with session_scope(ctx.engine) as session:
        mail_id = session.exec(select(CaughtMail.id).where(CaughtMail.kind == "turn")
                               .order_by(col(CaughtMail.id).desc())).first()
    layout.visit(language, "/mailbox/", "mailbox")
    layout.visit(language, f"/mailbox/{mail_id}", "mailbox: a turn mail")
    layout.visit(language, "/no/such/page", "404", status=404)
    layout.visit(language, "/play/not-a-seat-token", "401", status=401)

    assert len(layout.measured) == 24 * len(WIDTHS)
    assert not layout.problems, f"{len(layout.problems)} layout problems:\n" + "\n".join(layout.problems)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_all_your_games_at_once_fits_every_width(layout: Layout, live: Any, language: str) -> None:
    """The games waiting on you, "next game", the daily mail setting, the calendar's
    links (the dashboard's and a seat's) and the page that stops the daily mail."""
    from zoneinfo import ZoneInfo

    from pbem.workers import daily_mail

    ctx = live.ctx
    me = people(language, 1)[0]
    mine = []
    for _ in range(2):
        game_id = games.start_game(ctx, games.parse_players([me, people(language, 2)[1]]))
        for t in seat_tokens(ctx, game_id):
            games.accept(ctx, t)
        toks = sorted(seat_tokens(ctx, game_id), key=lambda t: games.seat_view(ctx, t)["you"] != me["name"])
        if not games.seat_view(ctx, toks[0])["your_turn"]:
            view = games.seat_view(ctx, toks[1])
            games.submit_move(ctx, toks[1], view["legal_moves"][0], None, view["ply"])
        mine.append(toks[0])
    page = layout.open(language, f"/play/{mine[0]}")
    submit(page, "#calendar button[type=submit]")
    layout.measure(language, "seat: the calendar's links")
    page = layout.open(language, "/login")
    page.locator("#email").fill(me["email"])
    submit(page, "main form button[type=submit]")
    page = layout.open(language, f"/signin/{sign_in_token(ctx, me['email'])}")
    submit(page, "main form button[type=submit]")
    submit(page, "#calendar button[type=submit]")
    page.locator("#daily input[name=on][value='1']").check()
    submit(page, "#daily button[type=submit]")
    layout.measure(language, "my games: waiting on you, daily mail, calendar")
    submit(page, "#waiting [data-next-game]")
    assert page.locator("#next-game").is_visible()
    layout.measure(language, "seat: next game")
    kept = ctx.now
    ctx.now = lambda: (datetime.now(ZoneInfo("Europe/Budapest")) + timedelta(days=1)).replace(hour=8, minute=5)
    try:
        assert daily_mail.send_daily(ctx)
    finally:
        ctx.now = kept
    mail = caught(ctx, me["email"], "daily")[-1]
    stop = mail["List-Unsubscribe"].strip("<>")
    layout.visit(language, stop[stop.index("/unsubscribe/"):], "stop the daily mail?")
    assert not layout.problems, f"{len(layout.problems)} layout problems:\n" + "\n".join(layout.problems)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_lobby_fits_every_width(layout: Layout, live: Any, language: str) -> None:
    """The lobby with a table that asks for something, its join form open, a refused
    join, the home page's tables waiting and the "check your email" page."""
    ctx = live.ctx
    players = people(language, 2)
    table = games.start_game(ctx, games.parse_players([players[0], {"open": True}, {"open": True}]), 48,
                             requirements=games.parse_requirements({"min_in_time": 0.8, "max_rating": 30}))
    games.accept(ctx, seat_tokens(ctx, table)[0])
    plain = games.start_game(ctx, games.parse_players([players[1], {"open": True}]), 12)
    games.accept(ctx, seat_tokens(ctx, plain)[0])
    layout.visit(language, "/", "home with tables waiting")
    page = layout.visit(language, f"/lobby?language={language}", "lobby")
    page.locator(f"#table-{table} summary").click()
    layout.measure(language, "lobby: a join form open")
    page.locator(f"#name-{table}").fill("Bartholomew Fernandes")
    page.locator(f"#email-{table}").fill("not an address")
    submit(page, f"#table-{table} button[type=submit]")
    page.locator("#join-error").wait_for(state="visible", timeout=15_000)
    layout.measure(language, "lobby: a refused join")
    page = layout.open(language, f"/lobby?language={language}")
    page.locator(f"#table-{plain} summary").click()
    page.locator(f"#name-{plain}").fill("Cidália")
    page.locator(f"#email-{plain}").fill(f"cidalia.{language}@example.org")
    submit(page, f"#table-{plain} button[type=submit]")
    layout.measure(language, "lobby: joined, check your email")
    away = quick_game(ctx, ("Ola", "Pia", "Rui"), domain=f"{language}.example.org")
    make_away(ctx, away[1])
    page = layout.open(language, f"/lobby?language={language}")
    page.locator("#substitutes summary").first.click()
    page.locator("#quick-name").fill("Bartholomew Fernandes")
    page.locator("#quick-email").fill("not an address")
    submit(page, "#quick button[type=submit]")
    page.locator("#quick-error").wait_for(state="visible", timeout=15_000)
    layout.measure(language, "lobby: a refused quick match")
    page.locator("#quick-email").fill(f"bart.{language}@example.org")
    submit(page, "#quick button[type=submit]")
    layout.measure(language, "quick match: check your email")
    assert len(layout.measured) == 7 * len(WIDTHS)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_practice_from_here_fits_every_width(layout: Layout, live: Any, ended: tuple[str, list[str]],
                                             language: str) -> None:
    """The replay's practice form (for a signed-in player) and the practice game's seat page."""
    ctx = live.ctx
    over, _ = ended
    with session_scope(ctx.engine) as session:
        address = session.exec(select(Seat.email).join(Game, col(Game.id) == col(Seat.game_id))
                               .where(Game.public_id == over, Seat.position == 0)).one()
    page = layout.open(language, "/login")
    page.locator("#email").fill(address)
    submit(page, "main form button[type=submit]")
    page = layout.open(language, f"/signin/{sign_in_token(ctx, address)}")
    submit(page, "main form button[type=submit]")
    page = layout.visit(language, f"/games/{over}/replay?ply=3", "replay: practise from here, signed in")
    page.locator("#practice-seat").select_option("2")
    submit(page, "#practice-start")
    assert page.locator("#practice-note").is_visible()
    layout.measure(language, "seat: a practice game")
    assert len(layout.measured) == 2 * len(WIDTHS)
    assert not layout.problems, f"{len(layout.problems)} layout problems:\n" + "\n".join(layout.problems)


#: The language whose words run longest (tests/e2e/test_accessibility.py): a form
#: measured in one language only is measured in this one.
LONGEST = "hu"

#: The fields, check boxes and their labels under ``selector`` that do not lie
#: wholly inside the window, or inside their own box (a field cut off at the
#: right edge is clipped even where nothing scrolls).
CLIPPED = r"""
(selector) => {
  const problems = [];
  for (const el of document.querySelectorAll(`${selector} input, ${selector} label, ${selector} summary`)) {
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    const r = el.getBoundingClientRect();
    const name = el.tagName === 'LABEL' ? `the label of ${el.getAttribute('for') || el.textContent.trim().slice(0, 30)}`
                                        : el.id || el.tagName.toLowerCase();
    if (r.left < -0.5 || r.right > innerWidth + 0.5) {
      problems.push(`${name}: from ${Math.round(r.left)}px to ${Math.round(r.right)}px, outside the ${innerWidth}px window`);
    }
    if (el.tagName === 'LABEL' && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${name}: its text needs ${el.scrollWidth}px, it has ${el.clientWidth}px`);
    }
  }
  return problems;
}
"""


def _unclipped(layout: Layout, language: str, selector: str, label: str) -> None:
    """Every field of ``selector`` inside the window, at every width."""
    page = layout.pages[language]
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": HEIGHT})
        layout.problems += [f"{language} {label} at {width}px: {p}" for p in page.evaluate(CLIPPED, selector)]
    page.set_viewport_size({"width": WIDTHS[0], "height": HEIGHT})


def test_the_start_forms_clock_section_opened_fits_every_width(layout: Layout, live: Any) -> None:
    """The start form with its clock section (a correspondence clock, weekends
    off, no vacation) opened and filled to its largest numbers, then refused for a
    clock out of range (the page opens the section itself and marks the field):
    in the longest language, at every width, nothing scrolls sideways and no
    field is clipped."""
    language = LONGEST
    page = layout.open(language, "/")
    section = page.locator(".start-form details.clock-options")
    assert section.get_attribute("open") is None  # closed until asked for
    section.locator("summary").click()
    assert section.get_attribute("open") is not None
    page.locator("#clock_days").fill(str(games.MAX_CLOCK_DAYS))
    page.locator("#clock_increment_hours").fill(str(games.MAX_INCREMENT_HOURS))
    page.locator("#clock_max_days").fill(str(games.MAX_BANK_DAYS))
    page.locator("#weekends_off").check()
    page.locator("#vacation_off").check()
    layout.measure(language, "home, the clock section open")
    _unclipped(layout, language, ".clock-options", "home, the clock section open")
    page.locator("#clock_days").fill(str(games.MAX_CLOCK_DAYS * 100))
    submit(page, ".start-card button[type=submit]")
    page.locator("#start-error").wait_for(state="visible", timeout=15_000)
    section = page.locator(".start-form details.clock-options")
    assert section.get_attribute("open") is not None
    assert page.locator("#clock_days").get_attribute("aria-invalid") == "true"
    assert page.locator("#weekends_off").is_checked() and page.locator("#vacation_off").is_checked()
    layout.measure(language, "home, a refused clock")
    _unclipped(layout, language, ".clock-options", "home, a refused clock")
    assert len(layout.measured) == 2 * len(WIDTHS)
    assert not layout.problems, f"{len(layout.problems)} layout problems:\n" + "\n".join(layout.problems)
