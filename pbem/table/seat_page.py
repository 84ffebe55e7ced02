"""What a seat's page shows, read in one transaction from one look-up of its token:
the seat's view of the game, the page's version (``watching``), the table talk,
the rematch of a finished game, the game's webhooks and the seat's pre-moves.

The page used to ask each of them by the token, each in its own transaction,
each hashing the token and loading the game and its seats again; here they
share the rows one look-up loaded, and the version is the version of what the
page shows (its newest table message is the one the page lists)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.context import Context
from ..core.db import session_scope
from ..core.models import GameStatus
from ..rules.views import SeatView
from ..core.models import GameStatus
from pbem.games.calendar import seat_feed_in
from pbem.games.lookup import seat_and_game
from pbem.games.premoves import own_premoves
from pbem.games.notes import Notes, read_notes
from pbem.games.nudges import NudgeOffer, nudge_offer
from pbem.games.practice import Origin, origin_of
from pbem.games.views import game_view
from .rematch import Rematch, seat_rematch
from .talk import Table, table_of
from .watching import seat_version
from .webhooks import Webhooks, listing


@dataclass(frozen=True)
class SeatPage:
    """Everything a seat's page shows of its game besides the page's own words."""

    view: SeatView
    #: What the page's script polls for (``watching.seat_watch``).
    version: str
    table: Table
    #: The rematch of a finished game, with this player's seat in it (``None``: none yet).
    rematch: Rematch | None
    webhooks: Webhooks
    #: Whom this seat may nudge, and from when (``None``: nobody now).
    nudge: NudgeOffer | None
    #: The seat's own private notes.
    notes: Notes
    #: The seat's own pre-moves while the game is played (``None`` otherwise).
    premoves: dict[str, Any] | None = None
    #: The seat's calendar feed links, once made (``games.calendar``).
    calendar: dict[str, str] | None = None
    #: Where a practice game came from (``None``: not a practice game).
    practice: Origin | None = None


def seat_page(ctx: Context, token: object) -> SeatPage:
    """The page of the seat a token opens (``Unauthorized`` for a link that opens none)."""
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        view = game_view(ctx, game, seats, seat)
        table = table_of(session, seat, game, seats)
        # The newest message of the game, as the page's poll counts it (shown or
        # not: a blocked player's message is left out of the list).
        last_talk = table.newest
        return SeatPage(view=view, version=seat_version(ctx, game, seats, seat, view["status"], last_talk),
                        table=table, rematch=seat_rematch(ctx, session, game, seat),
                        webhooks=listing(session, seat, seats),
                        premoves=own_premoves(session, seat) if game.status == GameStatus.ACTIVE else None,
                        nudge=nudge_offer(ctx, session, game, seats, seat), notes=read_notes(session, seat),
                        # Offered while the game runs: a finished game has no deadline.
                        calendar=seat_feed_in(ctx, session, seat) if game.status == GameStatus.ACTIVE else None,
                        practice=origin_of(session, game))
