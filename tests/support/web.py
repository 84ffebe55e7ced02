"""Helpers for the page tests: the form token of a page or session, asking for a
sign-in link and reading it from the mail, what the markup ties to players; a
snapshot of the database to show that a request changed nothing."""

from __future__ import annotations

import html
import re
from typing import Any

from sqlalchemy import text

from tests.support.config import TABLES
from tests.support.messages import caught

_CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_from(page: str) -> str:
    m = _CSRF.search(page)
    assert m, "the page has no form token"
    return html.unescape(m.group(1))


def csrf_token(client: Any, url: str = "/") -> str:
    """The form token of the client's session, read from a page's hidden input."""
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return csrf_from(response.get_data(as_text=True))


def ask_for_link(client: Any, ctx: Any, email: str = "ann@example.org") -> str:
    """Ask for a sign-in link on the sign-in page; the page that answers."""
    token = csrf_token(client, "/login")
    response = client.post("/login", data={"csrf_token": token, "email": email})
    assert response.status_code == 200
    return response.get_data(as_text=True)


def sign_in(client: Any, ctx: Any, email: str = "ann@example.org") -> None:
    """Sign the client in as ``email`` (it must have a game): ask for the link,
    read it from the mail, press the button."""
    ask_for_link(client, ctx, email)
    path = link_in(caught(ctx, recipient=email, kind="login")[-1])
    response = client.post(path, data={"csrf_token": csrf_from(client.get(path).get_data(as_text=True))})
    assert response.status_code == 303, response.status_code


def link_in(message: Any) -> str:
    """The path of the sign-in link in a sign-in mail."""
    text = message.get_body(preferencelist=("plain",)).get_content()
    m = re.search(r"https://clans\.example(/signin/\S+)", text)
    assert m, text
    return m.group(1)


def snapshot(ctx: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, to show that a request changed nothing."""
    out = {}
    with ctx.engine.connect() as conn:
        for table in TABLES:
            rows = conn.execute(text(f"SELECT * FROM {table} ORDER BY id")).all()
            out[table] = [tuple(r) for r in rows]
    return out


def clan_marks(page: str) -> dict[str, list[str]]:
    """What the page's markup ties to players: the viewer's own clan element and
    the revealed clans (only after the end)."""
    return {
        "yours": re.findall(r'data-your-clan="([^"]*)"', page),
        "players": re.findall(r'data-player-clan="([^"]*)"', page),
    }
