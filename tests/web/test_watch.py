"""The public page as a watch link: it carries the game's version, and the
version address answers 304 to the version a watcher has, from one query and
without building the view; the seat page offers the link to share."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest

from pbem import games
from tests.support.config import BASE_URL
from tests.support.games import finish, new_game, play, to_move
from tests.support.web import snapshot


def _page_version(page: str) -> str:
    m = re.search(r'<div id="watch"[^>]*data-version="([0-9a-f]+)"', page)
    assert m, "the page carries no version"
    return m.group(1)


def _poll(client: Any, game_id: str, etag: str | None = None) -> Any:
    headers = {"If-None-Match": etag} if etag else {}
    return client.get(f"/games/{game_id}/version", headers=headers)


def test_the_page_and_its_version_agree_and_a_move_changes_it(client, ctx):
    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 2)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    version = _page_version(page)
    answer = _poll(client, game_id)
    assert answer.status_code == 200
    assert answer.get_json() == {"game": game_id, "status": "active", "ply": 2, "version": version}
    assert answer.headers["ETag"] == f'"{version}"'
    assert answer.headers["Cache-Control"] == "no-cache"

    same = _poll(client, game_id, f'"{version}"')
    assert same.status_code == 304 and same.get_data() == b""
    assert same.headers["ETag"] == f'"{version}"'

    play(ctx, toks, 1)
    moved = _poll(client, game_id, f'"{version}"')
    assert moved.status_code == 200
    assert moved.get_json()["ply"] == 3 and moved.get_json()["version"] != version
    assert _page_version(client.get(f"/games/{game_id}").get_data(as_text=True)) == moved.get_json()["version"]


def test_the_version_changes_with_whatever_the_page_shows(client, ctx):
    game_id, toks = new_game(ctx, 3, start=False)
    versions = [_poll(client, game_id).get_json()["version"]]

    def changed() -> None:
        now = _poll(client, game_id).get_json()["version"]
        assert now not in versions
        assert _page_version(client.get(f"/games/{game_id}").get_data(as_text=True)) == now
        versions.append(now)

    games.accept(ctx, toks[1])  # one more "accepted" badge
    changed()
    games.accept(ctx, toks[2])  # the game starts
    changed()
    mover, view = to_move(ctx, toks)
    ctx.config["VACATION_DAYS"] = 7  # the bank pauses spend from
    games.pause_clock(ctx, mover, 2)  # "on holiday until …" and a later deadline
    changed()
    # The pause ends by itself: the badge goes, and so does the version.
    kept = ctx.now
    ctx.now = lambda: kept() + timedelta(days=3)
    try:
        changed()
    finally:
        ctx.now = kept
    finish(ctx, game_id, toks)
    # The last change a watcher sees: the finished page polls no more.
    answer = _poll(client, game_id).get_json()
    assert answer["status"] == "finished" and answer["version"] not in versions


def test_not_modified_costs_one_query_and_no_view(client, ctx, statements):
    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 3)
    version = _poll(client, game_id).get_json()["version"]
    statements.clear()
    assert _poll(client, game_id, f'"{version}"').status_code == 304
    assert len(statements) == 1, statements
    # It reads neither the position nor any seat's private columns.
    assert "state" not in statements[0] and "email" not in statements[0] and "token" not in statements[0]
    statements.clear()
    assert client.get(f"/games/{game_id}").status_code == 200
    assert len(statements) >= 1


def test_polling_changes_nothing_and_an_unknown_game_is_404(client, ctx):
    game_id, toks = new_game(ctx, 3)
    before = snapshot(ctx)
    for _ in range(3):
        _poll(client, game_id)
        client.head(f"/games/{game_id}/version")
    assert snapshot(ctx) == before
    assert _poll(client, "no-such-game").status_code == 404
    assert _poll(client, "A" * 14).status_code == 404


def test_the_watch_page_says_how_it_refreshes_and_works_without_script(client, ctx):
    game_id, toks = new_game(ctx, 3)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert re.search(r'<p class="watch-note" id="watch-note" role="status" aria-live="polite"', page)
    assert 'data-moved="A move was made."' in page
    # Without script: a sentence and a link that reloads the page.
    assert re.search(rf'<span class="watch-refresh-text">To see new moves, refresh this page.</span>\s*'
                     rf'<a href="/games/{game_id}">Refresh</a>', page)
    assert f'data-poll="/games/{game_id}/version"' in page
    # No inline script (the CSP allows none): the watcher is a file of its own.
    scripts = re.findall(r"<script([^>]*)>", page)
    assert scripts and all("src=" in s or 'type="application/json"' in s for s in scripts), scripts
    assert '/static/watch.js' in page
    # A finished game's page no longer polls, and offers the replay.
    finish(ctx, game_id, toks)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "data-poll=" not in page and "watch.js" not in page and 'id="watch-note"' not in page
    assert f'href="/games/{game_id}/replay"' in page


def test_the_seat_page_offers_the_watch_link_and_then_the_replay(client, ctx):
    game_id, toks = new_game(ctx, 3)
    page = client.get(f"/play/{toks[0]}").get_data(as_text=True)
    link = f"{BASE_URL}/games/{game_id}"
    # The address may wrap before its slashes (<wbr> there), never inside the game's id.
    assert re.search(rf'<section class="card watch-card"[^>]*>.*?Share this link to let friends watch.*?'
                     rf'<a href="{link}">{link}</a>', page.replace("<wbr>", ""), re.S)
    assert f"<wbr>/{game_id}</a>" in page
    assert "/replay" not in page  # a running game has no replay to offer
    finish(ctx, game_id, toks)
    page = client.get(f"/play/{toks[0]}").get_data(as_text=True)
    assert f'href="/games/{game_id}/replay"' in page and f'<a href="{link}">' in page
