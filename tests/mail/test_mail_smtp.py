"""Every kind of mail through a real SMTP server (aiosmtpd): structure, headers,
the inline picture, and links that work when followed."""

from __future__ import annotations

import io
import re
from datetime import timedelta
from typing import Any

from PIL import Image
from sqlmodel import col, select

from pbem.workers import clock
from pbem.games import unsubscribing
from pbem.core.db import session_scope
from pbem.core.models import Outbox, Seat
from tests.support.clock import frozen_clock
from tests.support.config import BASE_URL
from tests.support.games import PLAYERS, db_id, new_game, play, seat_tokens, to_move
from tests.support.messages import parts
from tests.support.smtp import Received
from pbem.people import signin
from pbem.core import links
from pbem import games

SEAT_LINK = re.compile(re.escape(BASE_URL) + r"/play/([A-Za-z0-9_-]+)")
SIGNIN_LINK = re.compile(re.escape(BASE_URL) + r"/signin/([A-Za-z0-9_-]+)")
EMAILS = {p["name"]: p["email"] for p in PLAYERS}


def outbox_rows(ctx: Any) -> list[Outbox]:
    with session_scope(ctx.engine) as session:
        return list(session.exec(select(Outbox).order_by(col(Outbox.id))))


def check_message(got: Received, ctx: Any, *, board: bool) -> dict[str, Any]:
    """What every message must be; returns its parts."""
    msg = got.message
    kind = got.kind
    assert msg.get_content_type() == "multipart/alternative", kind
    p = parts(msg)
    assert p["text"] and p["html"], kind
    # Message-ID is the outbox row's, fixed for every attempt.
    rows = {r.message_id: r for r in outbox_rows(ctx)}
    row = rows[str(msg["Message-ID"])]
    assert row.kind == kind and row.recipient == got.to and row.status == "sent"
    assert msg["To"] == got.to and msg["Subject"] and msg["Date"]
    assert msg["Auto-Submitted"] == "auto-generated"
    html = p["html"]
    assert "<svg" not in html.lower() and "<script" not in html.lower()
    assert "<style" not in html.lower() and 'style="' in html  # the CSS was inlined
    for src in re.findall(r'<img[^>]*\bsrc="([^"]*)"', html):
        assert src.startswith("cid:"), f"{kind}: remote or inline image {src[:40]}"
    if board:
        # The whole board, and in the mails asking for a move close-ups of it.
        assert "board" in p["images"], kind
        assert all(k == "board" or k.startswith("close-up-") for k in p["images"]), kind
        for cid, (ctype, png) in p["images"].items():
            assert ctype == "image/png" and png[:8] == b"\x89PNG\r\n\x1a\n" and f'src="cid:{cid}"' in html
        ctype, png = p["images"]["board"]
        assert ctype == "image/png" and png[:8] == b"\x89PNG\r\n\x1a\n"
        assert Image.open(io.BytesIO(png)).size[0] == 1200
        assert 'src="cid:board"' in html
        related = [part for part in msg.walk() if part.get_content_type() == "multipart/related"]
        assert len(related) == 1 and {q.get_content_type() for q in related[0].iter_parts()} == {
            "text/html", "image/png"}
    else:
        # No image part referred to (a game id may end in "cid" before a colon in the text).
        assert not p["images"] and 'src="cid:' not in html, kind
    if kind == "login":
        assert msg["X-PBEM-Game"] is None and msg["List-Unsubscribe"] is None
        assert SIGNIN_LINK.search(p["text"]) and SIGNIN_LINK.search(html)
    else:
        assert msg["X-PBEM-Game"] and db_id(ctx, msg["X-PBEM-Game"]) == row.game_id
        token = SEAT_LINK.search(p["text"]).group(1)  # type: ignore[union-attr]
        assert f"{BASE_URL}/play/{token}" in html
        with session_scope(ctx.engine) as session:
            seat = session.get(Seat, row.seat_id)
            assert seat is not None and links.seat_token(ctx, seat) == token
        # A token that can only stop mail, never the seat's (issue 27).
        assert seat.id is not None
        assert msg["List-Unsubscribe"] == \
            f"<{BASE_URL}/unsubscribe/{unsubscribing.token_for(ctx.secret_key, msg['X-PBEM-Game'], seat.id)}>"
        assert token not in msg["List-Unsubscribe"]
        assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        p["token"] = token
    return p


def test_every_kind_through_smtp(smtp_app: Any, sctx: Any, smtp: Any) -> None:
    ctx = sctx
    now = frozen_clock(ctx)
    client = smtp_app.test_client()
    box = smtp.collector

    # invite: to every player, no board yet; the seat link opens the game.
    game_id, toks = new_game(ctx, start=False)
    invites = box.wait_for(3, kind="invite")
    assert sorted(r.to for r in invites) == sorted(p["email"] for p in PLAYERS)
    for got in invites:
        p = check_message(got, ctx, board=False)
        assert ("Confirm your game" if got.to == PLAYERS[0]["email"] else "Ann invites you") in got.message["Subject"]
        assert client.get(f"/play/{p['token']}").status_code == 200
        assert client.get("/api/v1/seat", headers={"Authorization": f"Bearer {p['token']}"}).json[
            "game"] == game_id

    # turn: exactly one, to the player to move, with their own clan.
    for t in toks:
        games.accept(ctx, t)
    t, view = to_move(ctx, toks)
    (turn,) = box.wait_for(1, kind="turn")
    p = check_message(turn, ctx, board=True)
    assert p["token"] == t and turn.to == EMAILS[view["you"]]
    assert f"Your secret clan: {view['clan']}" in p["text"]
    assert view["clan"] in p["html"]
    page = client.get(f"/play/{p['token']}")
    assert page.status_code == 200
    play(ctx, toks, 3)
    assert len(box.messages(kind="turn")) == 4
    t, view = to_move(ctx, toks)
    last = box.messages(kind="turn")[-1]
    text = parts(last.message)["text"]
    assert "Since your last turn:" in text and "Clan scores:" in text and "The board" in text
    for h in view["history"][-2:]:
        assert f"{h['player']} moved" in text

    # reminder: near the deadline, to the player to move.
    now.advance(hours=view["turn_hours"] - 1)
    clock.tick(ctx)
    (reminder,) = box.wait_for(1, kind="reminder")
    p = check_message(reminder, ctx, board=True)
    assert p["token"] == t and "left for your move" in reminder.message["Subject"]

    # deadline: the autopilot moves; everyone is told; the next player gets their turn.
    now.advance(hours=2)
    clock.tick(ctx)
    deadlines = box.wait_for(3, kind="deadline")
    assert sorted(r.to for r in deadlines) == sorted(p["email"] for p in PLAYERS)
    for got in deadlines:
        p = check_message(got, ctx, board=True)
        assert "autopilot" in p["text"]
    assert len(box.messages(kind="turn")) == 5

    # digest: for a player who chose it, once a day.
    games.set_mail(ctx, toks[0], "digest")
    now.at = now.at.replace(hour=3) + timedelta(days=1)
    play(ctx, toks, 2)
    now.advance(hours=6)
    clock.tick(ctx)
    (digest,) = box.wait_for(1, kind="digest")
    p = check_message(digest, ctx, board=True)
    assert digest.to == EMAILS[games.seat_view(ctx, toks[0])["you"]]
    assert "Since your last digest:" in p["text"]

    # login: a sign-in link that opens its page.
    signin.request_login(ctx, PLAYERS[1]["email"])
    (login,) = box.wait_for(1, kind="login")
    p = check_message(login, ctx, board=False)
    link = SIGNIN_LINK.search(p["text"]).group(0)  # type: ignore[union-attr]
    assert client.get(link.removeprefix(BASE_URL)).status_code == 200

    # game over: to everyone, every clan revealed, final scores and winners.
    games.set_mail(ctx, toks[0], "every")
    while games.public_game(ctx, game_id)["status"] == "active":
        play(ctx, toks, 1)
    overs = box.wait_for(3, kind="game-over")
    final = games.public_game(ctx, game_id)
    for got in overs:
        p = check_message(got, ctx, board=True)
        for player in final["players"]:
            assert f"{player['name']}" in p["text"] and f"clan {player['clan']}: {player['final_score']}" \
                in p["text"].replace(" (you)", "")
            assert player["clan"] in p["html"]
        for w in final["winners"]:
            assert w in got.message["Subject"]

    # Every message went once: one per outbox row, all sent.
    rows = outbox_rows(ctx)
    assert all(r.status == "sent" for r in rows)
    ids = [str(r.message["Message-ID"]) for r in box.messages()]
    assert sorted(ids) == sorted(r.message_id for r in rows)


def test_unsubscribe_link_from_a_mail(smtp_app: Any, sctx: Any, smtp: Any) -> None:
    """The List-Unsubscribe link of a received mail: GET changes nothing, the
    one-click POST (no cookies, no CSRF token) turns that player's turn mail off."""
    ctx = sctx
    game_id, toks = new_game(ctx)
    (turn,) = smtp.collector.wait_for(1, kind="turn")
    url = str(turn.message["List-Unsubscribe"]).strip("<>")
    path = url.removeprefix(BASE_URL)
    token = path.rsplit("/", 1)[1]
    client = smtp_app.test_client()
    page = client.get(path)
    assert page.status_code == 200 and b"<form" in page.data
    assert unsubscribing.view(ctx, token)["mail"] == "every"
    fresh = smtp_app.test_client()  # a mail client: no session, no CSRF token
    done = fresh.post(path, data="List-Unsubscribe=One-Click",
                      content_type="application/x-www-form-urlencoded")
    assert done.status_code == 200
    assert unsubscribing.view(ctx, token)["mail"] == "none"
    # No more turn mail to that player; the others still get theirs.
    before = len(smtp.collector.messages(to=turn.to, kind="turn"))
    t, view = to_move(ctx, toks)
    games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
    for _ in range(3):
        t, view = to_move(ctx, toks)
        games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
    assert len(smtp.collector.messages(to=turn.to, kind="turn")) == before
    assert len(smtp.collector.messages(kind="turn")) >= 3
    assert seat_tokens(ctx, game_id)  # the game goes on
