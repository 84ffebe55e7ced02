"""Quick-match games and away seats made through the service, for tests that
need one without reading mail (the browser tests)."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from pbem import games
from pbem.core import links
from pbem.core.db import session_scope
from pbem.core.match_tables import MatchRequest
from pbem.core.models import Seat
from pbem.games.lobby import Joiner
from pbem.games.quick_match import Wish


def quick_game(ctx: Any, names: tuple[str, ...] = ("Ann", "Bea", "Cy"), domain: str = "example.org") -> list[str]:
    """A started quick-match game of ``names``; their seat tokens, in that order."""
    tokens = []
    for name in names:
        games.quick_match.request(ctx, Wish(Joiner(name, f"{name.lower()}@{domain}"), (len(names),), 24))
        with session_scope(ctx.engine) as session:
            seat = session.exec(select(Seat).join(MatchRequest, col(MatchRequest.seat_id) == col(Seat.id))
                                .order_by(col(MatchRequest.id).desc())).first()
            assert seat is not None
            tokens.append(links.seat_token(ctx, seat))
    for token in tokens:
        games.accept(ctx, token)
    return tokens


def make_away(ctx: Any, token: str) -> None:
    """The autopilot moved for this seat three times running (as games.autopilot counts)."""
    with session_scope(ctx.engine) as session:
        seat = games.seat_and_game(session, token)[0]
        seat.autopilot_streak = 3
        session.add(seat)
