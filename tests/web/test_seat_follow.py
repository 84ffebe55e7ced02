"""A player's own page follows its game (issue 28): it carries its version, and
the version address answers 304 while nothing changed, from what the seat's
view says and nothing else.  While the page's script says the player is there
(a POST, never a GET of the link: mail scanners open links), their turn mail
waits; it goes once they have left, if it is still their turn."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.workers import clock
from pbem.core.db import as_utc, session_scope
from pbem.core.models import Outbox, Seat
from pbem.core.tokens import digest
from tests.support.clock import frozen_clock
from tests.support.games import PLAYERS, email_of, new_game, seat_tokens, to_move
from tests.support.messages import caught_count
from tests.support.web import csrf_token, snapshot
from pbem import games

ANN = PLAYERS[0]


def _page(client: Any, token: str) -> str:
    response = client.get(f"/play/{token}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def _page_version(page: str) -> str:
    m = re.search(r'<div id="seat"[^>]*data-version="([0-9a-f]+)"', page)
    assert m, "the page carries no version"
    return m.group(1)


def _poll(client: Any, token: str, etag: str | None = None) -> Any:
    return client.get(f"/play/{token}/version", headers={"If-None-Match": etag} if etag else {})


def _here(client: Any, token: str) -> Any:
    """What the page's script sends while its player is there."""
    return client.post(f"/play/{token}/here", data={"csrf_token": csrf_token(client, f"/play/{token}")})


def _seen_at(ctx: Any, token: str) -> Any:
    with session_scope(ctx.engine) as session:
        return as_utc(session.exec(select(Seat.seen_at).where(Seat.token_hash == digest(token))).one())


def _turn_rows(ctx: Any, recipient: str) -> list[tuple[str, str]]:
    """The turn mails written for ``recipient``: (event, status), oldest first."""
    with session_scope(ctx.engine) as session:
        return [(r.event, r.status) for r in session.exec(
            select(Outbox).where(Outbox.kind == "turn", Outbox.recipient == recipient).order_by(col(Outbox.id)))]


def _next_up(ctx: Any, toks: list[str]) -> tuple[str, dict[str, Any], str, dict[str, Any]]:
    """The seat to move and its view, and the seat that moves after it and its view."""
    mover, view = to_move(ctx, toks)
    after = (view["seat"] + 1) % len(toks)
    token = next(t for t in toks if games.seat_view(ctx, t)["seat"] == after)
    return mover, view, token, games.seat_view(ctx, token)


# -- the version ---------------------------------------------------------------


def test_the_seat_page_and_its_version_agree_and_a_move_changes_it(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    mover, view, waiting, _ = _next_up(ctx, toks)
    page = _page(client, waiting)
    version = _page_version(page)
    assert f'data-poll="/play/{waiting}/version"' in page and f'data-here="/play/{waiting}/here"' in page
    answer = _poll(client, waiting)
    assert answer.status_code == 200
    # What the seat's view says, and no more: no clan, no position.
    assert answer.get_json() == {"status": "active", "ply": 0, "your_turn": False, "version": version}
    assert answer.headers["ETag"] == f'"{version}"'
    assert answer.headers["Cache-Control"] == "private, no-store"
    same = _poll(client, waiting, f'"{version}"')
    assert same.status_code == 304 and same.get_data() == b""
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    moved = _poll(client, waiting, f'"{version}"')
    assert moved.status_code == 200
    assert moved.get_json()["your_turn"] is True and moved.get_json()["ply"] == 1
    assert _page_version(_page(client, waiting)) == moved.get_json()["version"] != version
    # The mover's page: no longer their turn.
    assert _poll(client, mover).get_json()["your_turn"] is False


def test_the_version_follows_the_talk_and_the_seats_own_settings(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    versions = [_poll(client, toks[0]).get_json()["version"]]

    def changed() -> None:
        now = _poll(client, toks[0]).get_json()["version"]
        assert now not in versions
        assert _page_version(_page(client, toks[0])) == now
        versions.append(now)

    from pbem.table import talk

    talk.talk(ctx, toks[1], "Hello table")  # another player writes
    changed()
    games.set_mail(ctx, toks[0], "digest")
    changed()
    games.set_board_style(ctx, toks[0], "contrast")
    changed()
    # Another seat's own settings are not on this page: its version stays.
    games.set_mail(ctx, toks[1], "none")
    assert _poll(client, toks[0]).get_json()["version"] == versions[-1]


def test_the_seat_version_is_one_query_and_polling_changes_nothing(client: Any, ctx: Any,
                                                                 statements: list[str]) -> None:
    game_id, toks = new_game(ctx)
    version = _poll(client, toks[0]).get_json()["version"]
    before = snapshot(ctx)
    statements.clear()
    assert _poll(client, toks[0], f'"{version}"').status_code == 304
    assert len(statements) == 1, statements
    assert client.head(f"/play/{toks[0]}/version").status_code == 200
    assert snapshot(ctx) == before
    assert _seen_at(ctx, toks[0]) is None  # a poll is not presence
    assert _poll(client, "not-a-seat-token").status_code == 401
    assert _poll(client, toks[0][:-2] + "xx").status_code == 401


def test_an_invited_seat_polls_its_own_status(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, start=False)
    assert _poll(client, toks[0]).get_json()["status"] == "waiting"
    assert _poll(client, toks[1]).get_json()["status"] == "invited"
    version = _poll(client, toks[0]).get_json()["version"]
    games.accept(ctx, toks[1])  # the page lists who has accepted
    assert _poll(client, toks[0], f'"{version}"').status_code == 200


# -- presence --------------------------------------------------------------------


def test_presence_is_the_pages_post_with_its_form_token(client: Any, ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    _page(client, toks[0])  # opening the link (a mail scanner does) is not presence
    assert _seen_at(ctx, toks[0]) is None
    before = snapshot(ctx)
    assert client.post(f"/play/{toks[0]}/here").status_code == 400  # no form token: refused
    assert snapshot(ctx) == before
    assert _here(client, toks[0]).status_code == 204
    assert _seen_at(ctx, toks[0]) == now.at
    assert _seen_at(ctx, toks[1]) is None
    token = csrf_token(client, f"/play/{toks[0]}")
    assert client.post("/play/not-a-seat-token/here", data={"csrf_token": token}).status_code == 401
    assert client.get(f"/play/{toks[0]}/here").status_code == 405


def test_a_turn_mail_waits_while_its_player_is_on_the_page_and_goes_when_they_leave(client: Any,
                                                                                    ctx: Any) -> None:
    now = frozen_clock(ctx)
    presence = timedelta(seconds=ctx.config["PRESENCE_SECONDS"])
    game_id, toks = new_game(ctx)
    mover, view, waiting, waiting_view = _next_up(ctx, toks)
    address = email_of(waiting_view)
    sent_before = caught_count(ctx, address, "turn")
    assert _here(client, waiting).status_code == 204
    now.advance(seconds=20)
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    # Their page shows their turn: the mail waits (pending, not skipped).
    assert _turn_rows(ctx, address)[-1] == ("ply:1", "pending")
    assert caught_count(ctx, address, "turn") == sent_before
    # Still there a minute later (the page keeps saying so): still no mail.
    now.advance(seconds=60)
    assert _here(client, waiting).status_code == 204
    now.advance(seconds=30)
    clock.tick(ctx)
    assert caught_count(ctx, address, "turn") == sent_before
    # They left (no word from the page): once their presence lapses, the sweep sends it.
    now.advance(seconds=presence.total_seconds() - 30 + 1)
    clock.tick(ctx)
    assert _turn_rows(ctx, address)[-1] == ("ply:1", "sent")
    assert caught_count(ctx, address, "turn") == sent_before + 1


def test_a_turn_played_from_the_page_is_never_mailed(client: Any, ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    mover, view, waiting, waiting_view = _next_up(ctx, toks)
    address = email_of(waiting_view)
    sent_before = caught_count(ctx, address, "turn")
    assert _here(client, waiting).status_code == 204
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    now.advance(seconds=10)
    again = games.seat_view(ctx, waiting)
    games.submit_move(ctx, waiting, again["legal_moves"][0], None, again["ply"])
    now.advance(hours=1)
    clock.tick(ctx)
    assert _turn_rows(ctx, address)[-1] == ("ply:1", "skipped")
    assert caught_count(ctx, address, "turn") == sent_before


def test_a_scanned_link_does_not_swallow_a_turn_mail(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    mover, view, waiting, waiting_view = _next_up(ctx, toks)
    address = email_of(waiting_view)
    sent_before = caught_count(ctx, address, "turn")
    # A scanner opens the link, the page and its version address: GETs all.
    _page(client, waiting)
    _poll(client, waiting)
    client.head(f"/play/{waiting}")
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    assert _turn_rows(ctx, address)[-1] == ("ply:1", "sent")
    assert caught_count(ctx, address, "turn") == sent_before + 1


def test_playing_the_computer_on_the_page_sends_no_turn_mail_but_the_result_once(client: Any,
                                                                               ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id = games.start_game(ctx, games.parse_players([ANN, {"bot": "medium"}, {"bot": "easy"}]))
    (ann,) = [t for t in seat_tokens(ctx, game_id) if games.seat_view(ctx, t)["you"] == "Ann"]
    assert _here(client, ann).status_code == 204  # on the page before accepting
    games.accept(ctx, ann)
    for _ in range(200):
        view = games.seat_view(ctx, ann)
        if view["finished"]:
            break
        assert _here(client, ann).status_code == 204  # the page says so every half minute
        now.advance(seconds=20)
        games.submit_move(ctx, ann, view["legal_moves"][0], None, view["ply"])
    assert games.seat_view(ctx, ann)["finished"]
    # The result is the game's record: it goes once, present or not.
    assert caught_count(ctx, ANN["email"], "game-over") == 1
    now.advance(hours=1)
    clock.tick(ctx)
    rows = _turn_rows(ctx, ANN["email"])
    assert rows and {status for _, status in rows} == {"skipped"}
    assert caught_count(ctx, ANN["email"], "turn") == 0
