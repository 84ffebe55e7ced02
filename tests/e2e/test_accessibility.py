"""Every page and every kind of email, checked by axe-core (WCAG 2.0/2.1, levels
A and AA) in headless Chromium at a phone's size, 390×844: no finding of
impact "serious" or "critical" is allowed.

One browser and one live server for the module; each test makes the games it
needs through the services (with addresses of their own, so the per-address
invitation limit is not reached), then opens the pages as a player would.
Axe's script comes with the ``axe-playwright-python`` package: nothing is
fetched at run time."""

from __future__ import annotations

import itertools
import re
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any, Iterator
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import col, select

from pbem.workers import clock
from pbem.core.db import as_utc, session_scope
from pbem.core.errors import RateLimited
from pbem.core.models import CaughtMail, Game, Seat
from tests.support.browser import open_page
from tests.support.matches import make_away, quick_game
from tests.support.games import db_id, finish, play_to_end, seat_tokens, to_move
from tests.support.messages import caught
from pbem.people import signin
from pbem import games

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 390, 844
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: Frames are left out: the only one (the mailbox's view of an email) is checked
#: on its own address, and axe would wait a minute for a frame without its script.
OPTIONS = {"runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"], "iframes": False}
BLOCKING = ("serious", "critical")
MAIL_KINDS = {"invite", "turn", "game-over", "login", "link", "deadline", "reminder", "digest"}

_numbers = itertools.count(1)


@pytest.fixture(scope="module")
def axe() -> Any:
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


class Audit:
    """Opens pages at the phone size and collects axe's serious and critical findings."""

    def __init__(self, live: Any, browser: Any, axe: Any) -> None:
        self.live, self.browser, self.axe = live, browser, axe
        self.findings: list[str] = []
        self.checked: list[str] = []
        self.page: Any = None

    def open(self, path: str, status: int | None = 200) -> Any:
        """Go to ``path`` in this test's one tab (a browser context costs more than the page)."""
        url = self.live.base + path
        if self.page is None:
            self.page = open_page(self.browser, url, width=WIDTH, height=HEIGHT, status=status)
        else:
            response = self.page.goto(url)
            assert response is not None and (status is None or response.status == status), (url, response)
        return self.page

    def check(self, page: Any, label: str) -> None:
        """Run axe on what ``page`` shows now."""
        results = self.axe.run(page, options=OPTIONS).response
        self.checked.append(label)
        # Reflow (WCAG 1.4.10), which axe leaves alone: nothing wider than the phone.
        wide = page.evaluate("document.documentElement.scrollWidth")
        if wide > WIDTH:
            self.findings.append(f"{label} ({page.url}): {wide}px wide, more than the {WIDTH}px screen")
        for v in results["violations"]:
            if v.get("impact") not in BLOCKING:
                continue
            self.findings.append(f"{label} ({page.url}): {v['id']} [{v['impact']}] {v['help']}")
            for node in v["nodes"]:
                why = " ".join(c["message"] for c in node.get("any", []) + node.get("all", [])
                               + node.get("none", []))
                self.findings.append(f"    {' > '.join(map(str, node['target']))}: {why[:300]}")

    def visit(self, path: str, label: str, status: int | None = 200) -> Any:
        page = self.open(path, status)
        self.check(page, label)
        return page

    def assert_clean(self) -> None:
        assert self.checked
        assert not self.findings, "axe found serious or critical problems:\n" + "\n".join(self.findings)


@pytest.fixture
def audit(live: Any, browser: Any, axe: Any) -> Iterator[Audit]:
    a = Audit(live, browser, axe)
    yield a
    if a.page is not None:
        # Error answers are what some of these pages are; script errors are not.
        errors = [e for e in a.page.errors if not e.startswith("Failed to load resource")]
        assert errors == [], errors
        a.page.context.close()


def players(count: int = 3) -> list[dict[str, str]]:
    """Players with addresses no other game of this module uses."""
    n = next(_numbers)
    return [{"name": name, "email": f"{name.lower()}{n}@example.org"} for name in ("Ann", "Bob", "Cid", "Dee")[:count]]


def make_game(ctx: Any, *, accepted: int = 3, first: dict[str, str] | None = None) -> tuple[str, list[str], list[str]]:
    """A game of three whose first ``accepted`` seats have accepted (all: started):
    its id, its seat tokens and the players' addresses, in seat order."""
    people = players()
    if first is not None:
        people[0] = first
    game_id = games.start_game(ctx, games.parse_players(people))
    toks = seat_tokens(ctx, game_id)
    for t in toks[:accepted]:
        games.accept(ctx, t)
    toks = seat_tokens(ctx, game_id)  # the start draws who sits first
    by_name = {p["name"]: p["email"] for p in people}
    emails = [by_name[p["name"]] for p in games.public_game(ctx, game_id)["players"]]
    return game_id, toks, emails


@contextmanager
def clock_at(ctx: Any, at: datetime) -> Iterator[None]:
    """The service's clock (the live app's too) stopped at ``at`` for a while."""
    kept = ctx.now
    ctx.now = lambda: at
    try:
        yield
    finally:
        ctx.now = kept


def submit(page: Any, selector: str) -> None:
    with page.expect_navigation():
        page.locator(selector).click()


def test_home_sign_in_and_error_pages(audit: Audit, live: Any) -> None:
    page = audit.visit("/", "home")
    page.locator("#name0").fill("Ann")
    page.locator("#email0").fill("not an address")
    page.locator("#name1").fill("Bob")
    page.locator("#email1").fill("bob@example.org")
    submit(page, ".start-card button[type=submit]")
    assert page.locator("#start-error").is_visible()
    audit.check(page, "home with a form error")

    _, _, emails = make_game(live.ctx)
    page = audit.visit("/login", "login")
    page.locator("#email").fill("nobody")
    submit(page, "main form button[type=submit]")
    assert page.locator("#login-error").is_visible()
    audit.check(page, "login with an error")
    page.locator("#email").fill(emails[0])
    submit(page, "main form button[type=submit]")
    assert "Check your email" in page.locator("h1").inner_text()
    audit.check(page, "sign-in link sent")
    page = audit.visit("/login", "login again")
    page.locator("#email").fill(emails[0])
    submit(page, "main form button[type=submit]")
    assert page.locator("#sent-again").is_visible()  # too soon: nothing sent, and it says so
    audit.check(page, "sign-in link asked for again too soon")
    page = audit.visit(f"/signin/{_sign_in_token(live.ctx, emails[0])}", "sign in")
    submit(page, "main form button[type=submit]")
    assert page.url.endswith("/games")
    audit.check(page, "my games (one game)")

    audit.visit("/no/such/page", "404", status=404)
    audit.visit("/play/not-a-seat-token", "401", status=401)
    audit.assert_clean()


@pytest.mark.parametrize("language", ["en", "cs"])
def test_the_lobby_and_its_join_form(audit: Audit, live: Any, language: str) -> None:
    ctx = live.ctx
    creator = {**players(1)[0], "language": language}
    table = games.start_game(ctx, games.parse_players([creator, {"open": True}, {"bot": "easy"}]),
                             requirements=games.parse_requirements({"min_in_time": 0.5}))
    games.accept(ctx, seat_tokens(ctx, table)[0])
    page = audit.open("/")
    page.select_option("#page-language", language)
    submit(page, ".language-switch button")
    audit.check(page, f"{language} home with tables waiting")
    page = audit.visit("/lobby", f"{language} lobby")
    page.locator(f"#table-{table} summary").click()
    audit.check(page, f"{language} lobby: a join form open")
    page.locator(f"#name-{table}").fill("Zed")
    page.locator(f"#email-{table}").fill("nope")
    submit(page, f"#table-{table} button[type=submit]")
    assert page.locator("#join-error").is_visible()
    audit.check(page, f"{language} lobby: a refused join")
    away = quick_game(ctx, ("Ola", "Pia", "Rui"), domain=f"{language}.example.org")
    make_away(ctx, away[1])
    page = audit.visit("/lobby", f"{language} lobby with a substitute seat")
    page.locator("#substitutes summary").first.click()
    audit.check(page, f"{language} lobby: a substitute form open")
    page.locator("#quick-name").fill("Zed")
    page.locator("#quick-email").fill("nope")
    submit(page, "#quick button[type=submit]")
    assert page.locator("#quick-error").is_visible()
    audit.check(page, f"{language} lobby: a refused quick match")
    page.locator("#quick-email").fill(f"zed.{language}@example.org")
    submit(page, "#quick button[type=submit]")
    audit.check(page, f"{language} quick match: check your email")
    audit.assert_clean()


def test_seat_pages_in_every_state(audit: Audit, live: Any) -> None:
    ctx = live.ctx
    game_id, toks, _ = make_game(ctx, accepted=0)
    audit.visit(f"/games/{game_id}?new=1", "public game, just started (?new=1)")
    page = audit.visit(f"/play/{toks[0]}", "seat: invited, first seat")
    assert "Accept and invite the others" in page.locator(".invitation button").inner_text()
    submit(page, ".invitation button[type=submit]")
    assert page.locator(".notice-ok").is_visible()
    audit.check(page, "seat: waiting, with a notice")
    audit.visit(f"/play/{toks[1]}", "seat: invited, another seat")
    audit.visit(f"/never/{toks[1]}", "never email me again")
    audit.visit(f"/games/{game_id}?new=confirmed", "public game, just started (?new=confirmed)")
    audit.visit(f"/games/{game_id}", "public game, waiting")

    for t in toks[1:]:
        games.accept(ctx, t)
    mover, view = to_move(ctx, toks)
    audit.visit(f"/play/{mover}", "seat: active, your turn")
    other = next(t for t in toks if t != mover)
    audit.visit(f"/play/{other}", "seat: active, not your turn")
    games.set_premoves(ctx, other, view["legal_moves"][:2])
    audit.visit(f"/play/{other}?with=premoves", "seat: active, not your turn, with pre-moves")
    # After the wait: the nudge button, pressed; the notes, saved; and too long.
    # (The first turn began 25 hours ago: the clock itself stays, for the mail waiting on presence.)
    with session_scope(ctx.engine) as session:
        started = session.get(Game, db_id(session, game_id))
        assert started is not None and started.ply == 0 and started.started_at is not None
        started.started_at = as_utc(started.started_at) - timedelta(hours=25)
        session.add(started)
    page = audit.visit(f"/play/{other}", "seat: active, may nudge")
    submit(page, "form[action$='/nudge'] button")
    audit.check(page, "seat: nudged, with a notice")
    page.locator("#notes-text").fill("Block green in the north.")
    submit(page, "form.notes-form button")
    audit.check(page, "seat: notes saved")
    page.locator("#notes-text").evaluate("(box, text) => { box.removeAttribute('maxlength'); box.value = text; }",
                                         "n" * 4001)
    submit(page, "form.notes-form button")
    audit.check(page, "seat: notes too long")
    audit.visit(f"/games/{game_id}", "public game, active")
    page = audit.visit(f"/unsubscribe/{other}", "unsubscribe")
    submit(page, "main form button[type=submit]")
    audit.check(page, "unsubscribed")
    # The header's link: a token that only stops mail (the page links to no seat).
    # (The first turn's mail waits while its reader is on their page, as the first
    # seat was when the game began: the nudge to the same mover has the same header.)
    game_mail = caught(ctx, kind="turn") or caught(ctx, kind="nudge")
    stop = str(game_mail[-1]["List-Unsubscribe"]).strip("<>")
    page = audit.visit(stop[stop.index("/unsubscribe/"):], "unsubscribe (the header's token)")
    submit(page, "main form button[type=submit]")
    audit.check(page, "unsubscribed (the header's token)")

    # A refused request: the 429 page (the limit answers as if reached).
    def refuse(name: str, keys: Any) -> None:
        raise RateLimited("too many requests: please wait and try again later", retry_after=60)

    page = audit.open(f"/play/{other}")
    live.ctx.limit, kept = refuse, live.ctx.limit
    try:
        with page.expect_navigation():
            page.locator("form[action$='/new-link'] button").click()
    finally:
        live.ctx.limit = kept
    assert "Error 429" in page.locator(".eyebrow").text_content()
    audit.check(page, "429")
    page = audit.open(f"/play/{other}")
    submit(page, "form[action$='/new-link'] button")
    assert "A new link is on its way" in page.locator("h1").inner_text()
    audit.check(page, "new link sent")
    toks = seat_tokens(ctx, game_id)

    # A move with an error, then the end of the game.
    page = audit.open(f"/play/{mover}")
    page.locator("#move-list summary").click()  # the list folds away when the board can be used
    page.locator("#move-text").fill("99-98")
    submit(page, ".fallback-form button[type=submit]")
    assert page.locator("#play-error").is_visible()
    audit.check(page, "seat: a refused move")
    finish(ctx, game_id, toks)
    audit.visit(f"/play/{toks[0]}", "seat: finished")
    audit.visit(f"/games/{game_id}", "public game, finished")
    audit.assert_clean()


def test_my_games_with_the_pager(audit: Audit, live: Any) -> None:
    ctx = live.ctx
    me = {"name": "Max", "email": "max@example.org"}
    kept = ctx.limit
    ctx.limit = lambda name, keys: None  # one address invited to 22 games
    try:
        # Started, invited, waiting by turns; the newest (first listed) is finished.
        games = [make_game(ctx, first=me, accepted=(3, 0, 1)[n % 3]) for n in range(22)]
    finally:
        ctx.limit = kept
    finish(ctx, games[-1][0], games[-1][1])
    page = audit.open("/login")
    page.locator("#email").fill(me["email"])
    submit(page, "main form button[type=submit]")
    page = audit.open(f"/signin/{_sign_in_token(ctx, me['email'])}")
    submit(page, "main form button[type=submit]")
    assert page.locator(".pager a[rel=next]").is_visible()
    audit.check(page, "my games, page 1")
    submit(page, ".pager a[rel=next]")
    assert page.locator(".pager a[rel=prev]").is_visible()
    audit.check(page, "my games, page 2")
    audit.assert_clean()


def test_rematch_and_the_rating_and_stats(audit: Audit, live: Any) -> None:
    ctx = live.ctx
    game_id, toks, emails = make_game(ctx)
    finish(ctx, game_id, toks)
    page = audit.visit(f"/play/{toks[0]}", "seat: finished, with Play again")
    submit(page, "#rematch button[type=submit]")
    assert "/play/" in page.url and page.locator(".notice-ok").is_visible()
    audit.check(page, "seat: the rematch, just started")
    audit.visit(f"/play/{toks[1]}", "seat: finished, the rematch has started")
    audit.visit(f"/games/{game_id}", "public game, finished, the rematch has started")
    page = audit.open("/login")
    page.locator("#email").fill(emails[0])
    submit(page, "main form button[type=submit]")
    page = audit.open(f"/signin/{_sign_in_token(ctx, emails[0])}")
    submit(page, "main form button[type=submit]")
    audit.check(page, "my games: rating and stats off")
    submit(page, "#ratings button[type=submit]")
    assert page.locator("[data-stat=games]").is_visible()
    audit.check(page, "my games: rating and stats")
    audit.assert_clean()


def test_mailbox_and_every_kind_of_mail(audit: Audit, live: Any) -> None:
    ctx = live.ctx
    game_id, toks, emails = make_game(ctx)  # invitations, then the first turn mail
    mover, view = to_move(ctx, toks)
    digester = next(t for t in toks if t != mover)
    games.set_mail(ctx, digester, "digest")
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    with session_scope(ctx.engine) as session:
        due = as_utc(session.exec(select(Game.deadline).where(Game.public_id == game_id)).one())
    assert due is not None
    # The clock's work, at the times it would do it: a reminder, the autopilot, a digest.
    day = (due + timedelta(days=1)).replace(hour=int(ctx.config["DIGEST_HOUR"]), minute=5)
    for at, work in [(due - timedelta(hours=1), clock.send_reminders),
                     (due + timedelta(seconds=1), clock.expire_deadlines), (day, clock.send_digests)]:
        with clock_at(ctx, at):
            work(ctx)
    finish(ctx, game_id, toks)
    games.replace_seat_link(ctx, toks[0])  # a "link" mail
    signin.request_login(ctx, emails[0])

    with session_scope(ctx.engine) as session:
        mails = {kind: mail_id for mail_id, kind in session.exec(
            select(CaughtMail.id, CaughtMail.kind).order_by(col(CaughtMail.id)))}
    assert MAIL_KINDS <= set(mails), sorted(mails)
    audit.visit("/mailbox/", "mailbox")
    audit.visit(f"/mailbox/?game={game_id}&kind=turn", "mailbox: filtered")
    audit.visit(f"/mailbox/{mails['turn']}", "mailbox: one mail")
    for kind in sorted(MAIL_KINDS):
        audit.visit(f"/mailbox/{mails[kind]}/html", f"mail HTML: {kind}")
    audit.assert_clean()


# -- reading the caught mail --------------------------------------------------------


def _sign_in_token(ctx: Any, address: str) -> str:
    """The token in the newest sign-in mail to ``address``."""
    mails = caught(ctx, address, "login")
    assert mails, f"no sign-in mail to {address}"
    m = re.search(r"/signin/([^\s/]+)", mails[-1].get_body(preferencelist=("plain",)).get_content())
    assert m, "no sign-in link in the mail"
    return m.group(1)


@pytest.mark.parametrize("language", ["hu", "cs", "pt"])
def test_pages_in_every_language(audit: Audit, live: Any, language: str) -> None:
    """Hungarian words run longest, Czech and Portuguese have their own: the
    pages still fit the phone and pass axe."""
    ctx = live.ctx
    tag = {"pt": "pt-PT"}.get(language, language)
    people = [{**p, "language": language, "time_zone": "Europe/Budapest"} for p in players()]
    game_id = games.start_game(ctx, games.parse_players(people))
    toks = seat_tokens(ctx, game_id)
    page = audit.visit(f"/play/{toks[0]}", f"{language} seat: invited")
    assert page.locator("html").get_attribute("lang") == tag
    for t in toks:
        games.accept(ctx, t)
    toks = seat_tokens(ctx, game_id)
    mover, view = to_move(ctx, toks)
    page = audit.visit(f"/play/{mover}", f"{language} seat: your turn")
    # Pick a move on the board: the hint and the confirm bar speak Hungarian too.
    source = view["legal_moves"][0].split("-")[0]
    page.locator(f"#board [data-territory='{source}']").first.click()
    audit.check(page, f"{language} seat: a territory picked")
    other = next(t for t in toks if t != mover)
    audit.visit(f"/play/{other}", f"{language} seat: not your turn")
    finish(ctx, game_id, toks)
    audit.visit(f"/play/{toks[0]}", f"{language} seat: finished")
    for path, label in (("/", "home"), ("/login", "sign-in"), (f"/games/{game_id}", "public game")):
        page = audit.open(path)
        page.select_option("#page-language", language)
        submit(page, ".language-switch button")
        assert page.locator("html").get_attribute("lang") == tag
        label = f"{language} {label}"
        audit.check(page, label)
    audit.assert_clean()


@pytest.mark.parametrize("language", ["en", "hu"])
def test_the_computer_on_the_pages(audit: Audit, live: Any, language: str) -> None:
    """The "Play against the computer" form, computer seats on a seat page, the
    hand-over forms and a seat the computer plays: at phone width, in English
    and in the longest language."""
    ctx = live.ctx
    page = audit.open("/")
    if language != "en":
        page.select_option("#page-language", language)
        submit(page, ".language-switch button")
    page.locator("#solo-name").fill("Ann")
    page.locator("#solo-email").fill("not an address")
    submit(page, ".solo-card button[type=submit]")
    assert page.locator("#solo-error").is_visible()
    audit.check(page, f"{language} home: the computer form with an error")
    page.locator("#who1").select_option("hard")
    audit.check(page, f"{language} home: a row given to the computer")

    ann, bob = [{**p, "language": language} for p in players(2)]
    game_id = games.start_game(ctx, games.parse_players([ann, bob, {"bot": "hard"}]), confirmed=True)
    toks = seat_tokens(ctx, game_id)
    for t in toks:
        games.accept(ctx, t)
    mover, _ = to_move(ctx, toks)
    page = audit.visit(f"/play/{mover}", f"{language} seat: a computer at the table")
    assert page.locator(".badge-computer").count() == 1
    seats = [games.seat_view(ctx, t)["seat"] for t in toks]
    other = next(n for t, n in zip(toks, seats)
                 if t != mover and games.public_game(ctx, game_id)["players"][n]["bot"] is None)
    with session_scope(ctx.engine) as session:
        away = session.exec(select(Seat).where(Seat.game_id == db_id(session, game_id),
                                               Seat.position == other)).one()
        away.autopilot_streak = 3
        session.add(away)
    page = audit.visit(f"/play/{mover}", f"{language} seat: an away player to hand over")
    assert page.locator("form.computer-form[data-hand]:not([data-hand=own])").count() == 1
    submit(page, "form.computer-form[data-hand=own] button[type=submit]")
    assert page.locator("#play-error").is_visible()  # the box was not ticked
    audit.check(page, f"{language} seat: hand-over not confirmed")
    page.locator("#computer-confirm").check()
    submit(page, "form.computer-form[data-hand=own] button[type=submit]")
    assert page.locator("[data-computer-seat]").is_visible()
    audit.check(page, f"{language} seat: the computer plays it")
    audit.assert_clean()


def test_the_watch_page_and_the_replay(audit: Audit, live: Any) -> None:
    """The watch page as a move arrives, and the replay at the start, after a
    step (its scoring explained) and at the end."""
    ctx = live.ctx
    game_id, toks, _ = make_game(ctx)
    page = audit.visit(f"/games/{game_id}", "watch page")
    mover, view = to_move(ctx, toks)
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_function("() => document.getElementById('watch-note').textContent !== ''")
    audit.check(page, "watch page: a move was made")
    play_to_end(ctx, toks)
    history = games.public_game(ctx, game_id)["history"]
    audit.visit(f"/games/{game_id}", "watch page: finished, with the replay link")
    page = audit.visit(f"/games/{game_id}/replay", "replay: the set-up")
    founding = next(h["ply"] for h in history if h["villages"])
    page.locator("#replay-ply").fill(str(founding))
    page.wait_for_function("p => document.getElementById('replay-step').dataset.ply === p", arg=str(founding))
    assert page.locator(".village-scoring").count() >= 1
    audit.check(page, "replay: a village explained")
    audit.visit(f"/games/{game_id}/replay?ply={len(history)}", "replay: the end")
    audit.visit(f"/games/{game_id}/replay?ply=999", "replay: no such position", status=404)
    audit.assert_clean()


def test_the_high_contrast_board(audit: Audit, live: Any) -> None:
    """A seat that chose the high-contrast board: its page while playing and at the
    end, the style form and its notice."""
    ctx = live.ctx
    game_id, toks, _ = make_game(ctx)
    mover, view = to_move(ctx, toks)
    page = audit.open(f"/play/{mover}")
    page.locator("input[name=style][value=contrast]").check()
    submit(page, "form.style-form button[type=submit]")
    assert page.locator(".notice-ok").is_visible()
    assert page.locator("svg.clans-board").get_attribute("data-board-style") == "contrast"
    assert page.locator("svg.clans-board pattern").count() == 3
    audit.check(page, "seat: high-contrast board, your turn, with a notice")
    finish(ctx, game_id, toks)
    page = audit.visit(f"/play/{mover}", "seat: high-contrast board, finished")
    assert page.locator("form.style-form").is_visible()
    audit.assert_clean()


def _waiting_on(ctx: Any, person: dict[str, str], count: int) -> list[str]:
    """``count`` two-player games with ``person`` to move; their seat tokens."""
    mine = []
    for _ in range(count):
        other = players(2)[1]
        game_id = games.start_game(ctx, games.parse_players([person, other]))
        for t in seat_tokens(ctx, game_id):
            games.accept(ctx, t)
        toks = sorted(seat_tokens(ctx, game_id), key=lambda t: games.seat_view(ctx, t)["you"] != person["name"])
        if not games.seat_view(ctx, toks[0])["your_turn"]:
            view = games.seat_view(ctx, toks[1])
            games.submit_move(ctx, toks[1], view["legal_moves"][0], None, view["ply"])
        mine.append(toks[0])
    return mine


def test_all_your_games_at_once_the_daily_mail_and_the_calendar(audit: Audit, live: Any) -> None:
    from pbem.games import daily
    from pbem.workers import daily_mail

    ctx = live.ctx
    me = {"name": "Mia", "email": "mia@example.org", "time_zone": "Europe/Budapest"}
    mine = _waiting_on(ctx, me, 2)
    page = audit.visit(f"/play/{mine[0]}", "seat: add to calendar")
    submit(page, "#calendar button[type=submit]")
    assert page.locator("#calendar [data-calendar=webcal]").is_visible()
    audit.check(page, "seat: the calendar's links")
    page = audit.open("/login")
    page.locator("#email").fill(me["email"])
    submit(page, "main form button[type=submit]")
    page = audit.open(f"/signin/{_sign_in_token(ctx, me['email'])}")
    submit(page, "main form button[type=submit]")
    assert page.locator("#waiting [data-waiting]").count() == 2
    audit.check(page, "my games: waiting on you, daily mail, calendar")
    submit(page, "#calendar button[type=submit]")
    page.locator("#daily input[name=on][value='1']").check()
    page.locator("#daily-hour").select_option("8")
    submit(page, "#daily button[type=submit]")
    audit.check(page, "my games: daily mail on, the calendar's links")
    submit(page, "#waiting [data-next-game]")
    assert "/play/" in page.url and page.locator("#next-game").is_visible()
    audit.check(page, "seat: next game")
    # The daily mail, and its page that switches it off.
    tomorrow = datetime.now(ZoneInfo("Europe/Budapest")) + timedelta(days=1)
    with clock_at(ctx, tomorrow.replace(hour=8, minute=5)):
        assert daily_mail.send_daily(ctx)
    [mail] = caught(ctx, me["email"], "daily")
    with session_scope(ctx.engine) as session:
        mail_id = session.exec(select(CaughtMail.id).where(CaughtMail.kind == "daily")
                               .order_by(col(CaughtMail.id).desc())).first()
    audit.visit(f"/mailbox/{mail_id}/html", "mail HTML: daily")
    stop = mail["List-Unsubscribe"].strip("<>")
    page = audit.visit(stop[stop.index("/unsubscribe/"):], "stop the daily mail?")
    submit(page, "main form button[type=submit]")
    assert not daily.setting_of(ctx, me["email"]).on
    audit.check(page, "daily mail stopped")


@pytest.fixture
def unlimited(live: Any) -> Iterator[None]:
    """The live server's rate limits out of the way: the other tests of the run
    start games from the same client address (this one's starts would be 429)."""
    kept, config = live.ctx.limit, {n: live.app.config[n] for n in ("LIMIT_NEW_GAMES", "LIMIT_PRACTICE")}
    live.ctx.limit = lambda name, keys: None
    live.app.config.update({n: "1000 per minute" for n in config})
    yield
    live.ctx.limit = kept
    live.app.config.update(config)


@pytest.mark.parametrize("language", ["en", "hu"])
def test_practice_from_here(audit: Audit, live: Any, language: str, unlimited: None) -> None:
    """The replay's practice form for a signed-in player, the practice game it
    starts, and practice from a running game's seat page."""
    ctx = live.ctx
    people = [{**p, "language": language, "time_zone": "Europe/Budapest"} for p in players()]
    game_id = games.start_game(ctx, games.parse_players(people))
    for t in seat_tokens(ctx, game_id):
        games.accept(ctx, t)
    toks = seat_tokens(ctx, game_id)
    play_to_end(ctx, toks)
    email = people[0]["email"]
    page = audit.open("/login")
    page.select_option("#page-language", language)
    submit(page, ".language-switch button")
    page.locator("#email").fill(email)
    submit(page, "main form button[type=submit]")
    page = audit.open(f"/signin/{_sign_in_token(ctx, email)}")
    submit(page, "main form button[type=submit]")
    page = audit.visit(f"/games/{game_id}/replay?ply=3", f"{language} replay: practise from here")
    assert page.locator("#practice-start").is_visible()
    page.locator("#practice-seat").select_option("1")
    submit(page, "#practice-start")
    assert page.locator("#practice-note").is_visible()
    audit.check(page, f"{language} seat: a practice game from a replay")

    running, others, _ = make_game(ctx)
    page = audit.open(f"/play/{others[0]}")
    submit(page, "#practice-start")
    assert page.locator("#practice-note").is_visible() and page.locator("#practice-start").is_visible()
    audit.check(page, f"{language} seat: a practice game from a running game")
    audit.assert_clean()
