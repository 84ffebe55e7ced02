"""No mail shows another player's clan before the end, for every kind.

The test is one of non-interference: build a player's message, then deal the
other players different secret clans (in the seats and in the rules' state) and
build it again.  If anything in the message (text, HTML, picture) depended on
the others' clans, the two would differ."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from pbem import games
from pbem.people import signin
from pbem.core.db import session_scope
from pbem.mail.compose import compose
from pbem.core.models import Game, Outbox, Seat
from pbem.core.outbox import enqueue
from pbem.rules.tables import CLANS
from tests.support.clock import frozen_clock
from tests.support.games import db_id, redeal_others, new_game, play, to_move
from tests.support.messages import parts

SECRET_KINDS = ["invite", "turn", "reminder", "deadline", "digest"]


def token_at(ctx: Any, toks: list[str], position: int) -> str:
    (token,) = [t for t in toks if games.seat_view(ctx, t)["seat"] == position]
    return token


def _seat(session: Any, game_id: int, position: int) -> Seat:
    return session.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == position)).one()


def _compose(ctx: Any, game_id: int, position: int, kind: str, event: str) -> dict[str, Any]:
    with session_scope(ctx.engine) as session:
        seat = _seat(session, db_id(session, game_id), position)
        row = session.exec(select(Outbox).where(Outbox.seat_id == seat.id, Outbox.kind == kind,
                                                Outbox.event == event)).first()
        if row is None:
            new_id = enqueue(session, kind=kind, event=event, recipient=seat.email, base_url=ctx.base_url,
                             now=ctx.now(), game_id=db_id(session, game_id), seat_id=seat.id)
            row = session.get(Outbox, new_id)
        assert row is not None
        mail = compose(ctx, session, row)
        assert mail is not None, f"{kind} for seat {position} was not composed"
        message = mail.to_message()
        p = parts(message)
        return {"subject": str(message["Subject"]), "text": p["text"], "html": p["html"],
                "images": p["images"]}




@pytest.mark.parametrize("kind", SECRET_KINDS)
def test_mail_does_not_depend_on_other_clans(ctx: Any, kind: str) -> None:
    now = frozen_clock(ctx)
    if kind == "invite":
        game_id, toks = new_game(ctx, start=False)
        position, event = 1, "invite"
    else:
        game_id, toks = new_game(ctx)
        play(ctx, toks, 4)
        t, view = to_move(ctx, toks)
        position = view["seat"]
        event = {"turn": f"ply:{view['ply']}", "reminder": f"remind:{view['ply']}:0",
                 "digest": "digest:test"}.get(kind, "")
        if kind == "deadline":
            # The autopilot moved for someone else; the mail to `position` is the test.
            now.advance(hours=view["turn_hours"] + 1)
            assert games.autopilot_move(ctx, db_id(ctx, game_id), view["ply"]) is not None
            event = f"autopilot:{view['ply']}"
            position = (position + 1) % 3
        if kind == "digest":
            games.set_mail(ctx, token_at(ctx, toks, position), "digest")
    before = _compose(ctx, game_id, position, kind, event)
    own = games.seat_view(ctx, token_at(ctx, toks, position))["clan"]
    redeal_others(ctx, game_id, position)
    after = _compose(ctx, game_id, position, kind, event)
    assert before == after
    if own is not None:
        # The player's own clan is there (their secret, in their own mail) ...
        assert own in before["text"] and own in before["html"]
        assert f"secret clan: {own}" in before["text"] or kind == "deadline"
    # ... and no sentence names a player's clan.
    for name in ("Ann", "Bob", "Cid"):
        for clan in CLANS:
            for text in (before["text"], before["html"]):
                assert f"{name}, clan {clan}" not in text and f"{name} ({clan})" not in text


def test_login_mail_says_nothing_of_games(ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    signin.request_login(ctx, "ann@example.org")
    with session_scope(ctx.engine) as session:
        row = session.exec(select(Outbox).where(Outbox.kind == "login")).one()
        mail = compose(ctx, session, row)
    assert mail is not None
    message = mail.to_message()
    p = parts(message)
    for clan in CLANS:
        assert clan not in p["text"] and clan not in p["html"]
    assert message["X-PBEM-Game"] is None


def test_game_over_reveals_every_clan(ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    while games.public_game(ctx, game_id)["status"] == "active":
        play(ctx, toks, 1)
    final = games.public_game(ctx, game_id)
    for position in range(3):
        got = _compose(ctx, game_id, position, "game-over", "over")
        for p in final["players"]:
            assert f"{p['name']}{' (you)' if p['seat'] == position else ''}, clan {p['clan']}: " \
                   f"{p['final_score']}" in got["text"]
            assert p["clan"] in got["html"] and p["name"] in got["html"]
        assert all(w in got["subject"] for w in final["winners"])

