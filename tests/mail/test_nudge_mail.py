"""The nudge mail: "Anna is waiting for your move", through a real SMTP server,
once per nudge, with the seat link and one-click unsubscribe, in its reader's
language (all four), and dropped when the mover moved before it went."""

from __future__ import annotations

import re
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.core.db import session_scope
from pbem.core.models import Outbox, OutboxStatus
from pbem.core.outbox import OutboxKind
from pbem.mail.compose import compose
from pbem.words.language import TAGS
from tests.support.clock import frozen_clock
from tests.support.config import BASE_URL
from tests.support.games import new_game, seat_tokens, to_move
from tests.support.messages import parts
from tests.support.text import english_left
from pbem import games

FOUR = [
    {"name": "Anna", "email": "anna@example.org", "language": "hu", "time_zone": "Europe/Budapest"},
    {"name": "Petr", "email": "petr@example.org", "language": "cs", "time_zone": "Europe/Prague"},
    {"name": "Rita", "email": "rita@example.org", "language": "pt", "time_zone": "Europe/Lisbon"},
    {"name": "Tom", "email": "tom@example.org", "language": "en"},
]


def _waiting(ctx: Any, toks: list[str]) -> tuple[str, str]:
    mover, _ = to_move(ctx, toks)
    return mover, next(t for t in toks if t != mover)


def test_one_nudge_is_one_mail_to_the_mover_with_their_link(sctx: Any, smtp: Any) -> None:
    ctx = sctx
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    mover, other = _waiting(ctx, toks)
    nudger = games.seat_view(ctx, other)["you"]
    now.advance(hours=24)
    games.nudge(ctx, other)
    (got,) = smtp.collector.wait_for(1, kind="nudge")
    with session_scope(ctx.engine) as session:
        seat = games.seat_and_game(session, mover)[0]
        assert got.to == seat.email
    message = got.message
    assert message["Subject"] == f"{nudger} is waiting for your move in Clans game {game_id}"
    assert message["X-PBEM-Kind"] == "nudge" and message["X-PBEM-Game"] == game_id
    assert re.fullmatch(rf"<{re.escape(BASE_URL)}/unsubscribe/{game_id}\.[\w-]+>", message["List-Unsubscribe"])
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    text = parts(message)
    assert f"{BASE_URL}/play/{mover}" in text["text"] and f"{BASE_URL}/play/{mover}" in text["html"]
    assert nudger in text["text"] and "Your secret clan" not in text["text"]
    # Sent once: the row is done, and nothing more goes for it.
    with session_scope(ctx.engine) as session:
        (row,) = session.exec(select(Outbox).where(Outbox.kind == OutboxKind.NUDGE)).all()
        assert row.status == OutboxStatus.SENT
    assert len(smtp.collector.messages(kind="nudge")) == 1


def test_a_nudge_waiting_when_the_mover_moves_is_dropped(ctx: Any) -> None:
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    mover, other = _waiting(ctx, toks)
    now.advance(hours=24)
    games.nudge(ctx, other)
    view = games.seat_view(ctx, mover)
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    with session_scope(ctx.engine) as session:
        (row,) = session.exec(select(Outbox).where(Outbox.kind == OutboxKind.NUDGE)).all()
        assert compose(ctx, session, row) is None


@pytest.mark.parametrize("language", ["en", "hu", "cs", "pt"])
def test_the_nudge_speaks_its_readers_language(ctx: Any, language: str) -> None:
    now = frozen_clock(ctx)
    players = [dict(p, language=language) if i == 0 else p for i, p in enumerate(FOUR)]
    game_id = games.start_game(ctx, games.parse_players(players))
    toks = seat_tokens(ctx, game_id)
    for t in toks:
        games.accept(ctx, t)
    mover, other = _waiting(ctx, toks)
    now.advance(hours=30)
    games.nudge(ctx, other)

    def build(as_language: str) -> Any:
        with session_scope(ctx.engine) as session:
            row = session.exec(select(Outbox).where(Outbox.kind == OutboxKind.NUDGE).order_by(col(Outbox.id))).one()
            seat = games.seat_and_game(session, mover)[0]
            kept = seat.language
            seat.language = as_language
            session.add(seat)
            session.flush()
            message = compose(ctx, session, row)
            seat.language = kept
            assert message is not None
            return message.to_message()

    # Whoever moves first, the reader speaks the language under test.
    message = build(language)
    assert message["Content-Language"] == TAGS[language]
    got = parts(message)
    assert re.search(rf'<html[^>]* lang="{TAGS[language]}"', got["html"])
    nudger = games.seat_view(ctx, other)["you"]
    assert nudger in str(message["Subject"]) and nudger in got["html"]
    if language != "en":
        english = build("en")
        assert str(english["Subject"]) != str(message["Subject"])
        assert english_left(parts(english)["text"], got["text"]) == []
        assert english_left(parts(english)["html"], got["html"]) == []
