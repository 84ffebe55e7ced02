"""Every player's clock and the reader's vacation days in the turn mail, in each
of the four languages (text and HTML)."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from pbem import games
from pbem.core import events
from pbem.core.db import session_scope
from pbem.core.events import Event
from pbem.core.outbox import OutboxKind
from pbem.core.models import Outbox, Seat
from pbem.mail.compose import compose
from tests.support.clock import frozen_clock
from tests.support.games import seat_tokens
from tests.support.messages import parts

FOUR = [
    {"name": "Anna", "email": "anna@example.org", "language": "hu", "time_zone": "Europe/Budapest"},
    {"name": "Petr", "email": "petr@example.org", "language": "cs", "time_zone": "Europe/Prague"},
    {"name": "Rita", "email": "rita@example.org", "language": "pt", "time_zone": "Europe/Lisbon"},
    {"name": "Tom", "email": "tom@example.org", "language": "en"},
]
#: A bank of 34 hours, and the clocks' and vacation's sentences, as each language writes them.
WORDS = {
    "en": ("1 day 10 hours", "Time in each clock:", "You have 14 vacation days", "clock: 2 days"),
    "hu": ("1 nap 10 óra", "Idő az órákon:", "14 szabadságnapod van", "óra: 2 nap"),
    "cs": ("1 den 10 hodin", "Čas na hodinách:", "Máš 14 dní dovolené", "hodiny: 2 dny"),
    "pt": ("1 dia e 10 horas", "Tempo em cada relógio:", "Tens 14 dias de férias", "relógio: 2 dias"),
}


def _turn_mail(ctx: Any, ply: int, language: str) -> dict[str, Any]:
    """The turn mail of move ``ply``, written as if its reader spoke ``language``."""
    with session_scope(ctx.engine) as session:
        row = session.exec(select(Outbox).where(Outbox.kind == OutboxKind.TURN, Outbox.event == events.key(Event.PLY, ply))
                           .order_by(col(Outbox.id))).one()
        seat = session.get(Seat, row.seat_id)
        assert seat is not None
        seat.language = language
        session.add(seat)
        session.flush()
        message = compose(ctx, session, row)
        assert message is not None
        session.rollback()
        return parts(message.to_message())


def test_the_turn_mail_shows_every_clock_and_the_vacation_left_in_four_languages(ctx: Any) -> None:
    ctx.config["VACATION_DAYS"] = 14
    now = frozen_clock(ctx)
    game_id = games.start_game(ctx, games.parse_players(FOUR),
                               options=games.parse_time_options({"days": 2, "increment_hours": 5, "max_days": 3}))
    toks = seat_tokens(ctx, game_id)
    for t in toks:
        games.accept(ctx, t)
    views = [games.seat_view(ctx, t) for t in toks]
    token, view = next((t, v) for t, v in zip(toks, views) if v["your_turn"])
    now.advance(hours=19)
    games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])  # 48 - 19 + 5 = 34 hours left
    for language, (bank, clocks, vacation, clock_tag) in WORDS.items():
        mail = _turn_mail(ctx, 1, language)
        text, html = mail["text"], mail["html"]
        assert clocks in text and f"{view['you']} {bank}" in text, (language, text)
        assert vacation in text and vacation in html, (language, text)
        assert bank in html and clock_tag in html, (language, html)
