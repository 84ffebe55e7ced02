"""In a real browser: two strangers find Ann's table on the lobby page, join it
with its form, accept the invitation their mail brings on their seat page, and
the game they started is played to its end; nobody's page shows another
person's address.  (The same over the API, a worker and SMTP:
tests/e2e/test_lobby_strangers.py.)"""

from __future__ import annotations

import re
from typing import Any

from pbem import games
from tests.support.games import play_to_end, seat_tokens
from tests.support.messages import caught

ANN = {"name": "Annamária", "email": "ann.lobby@example.org", "language": "hu"}
STRANGERS = [("Bea", "bea.lobby@example.net"), ("Cyril", "cyril.lobby@example.com")]


def _submit(page: Any, selector: str) -> None:
    with page.expect_navigation():
        page.locator(selector).click()


def test_two_strangers_join_from_the_lobby_page_and_play_to_the_end(live: Any, browser: Any) -> None:
    ctx = live.ctx
    table = games.start_game(ctx, games.parse_players([ANN, {"open": True}, {"open": True}]), 24)
    games.accept(ctx, seat_tokens(ctx, table)[0])
    addresses = [ANN["email"]] + [email for _, email in STRANGERS]
    seats: dict[str, Any] = {}
    for name, email in STRANGERS:
        context = browser.new_context(locale="en-GB")
        page = context.new_page()
        page.goto(f"{live.base}/lobby")
        assert page.locator(f"#table-{table}").is_visible()
        assert not any(a in page.content() for a in addresses), "the lobby shows an address"
        page.locator(f"#table-{table} summary").click()
        page.locator(f"#name-{table}").fill(name)
        page.locator(f"#email-{table}").fill(email)
        _submit(page, f"#table-{table} button[type=submit]")
        [invitation] = caught(ctx, email, "table-invite")
        text = invitation.get_body(preferencelist=("plain",)).get_content()
        assert not any(a in text for a in addresses if a != email), "the invitation shows another's address"
        link = re.search(r"https?://\S+/play/[A-Za-z0-9_-]+", text)
        assert link, text
        page.goto(link.group(0))
        _submit(page, "form[action$='/accept'] button[type=submit]")
        seats[email] = page
    # Every seat accepted: the game began as any game does, and is played to its end.
    tokens = seat_tokens(ctx, table)
    assert games.seat_view(ctx, tokens[0])["status"] == "active"
    assert play_to_end(ctx, tokens) > 0
    views = {v["you"]: v for v in (games.seat_view(ctx, t) for t in tokens)}
    for (name, email), page in zip(STRANGERS, seats.values()):
        page.reload()
        content = page.content()
        assert views[name]["status"] == "finished" and name in content
        assert all(p["name"] in content for p in views[name]["players"])
        assert not any(a in content for a in addresses if a != email), "a seat page shows another's address"
        page.context.close()
