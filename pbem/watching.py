"""Watching a game: the public page as a watch link that refreshes itself.

A watcher's browser asks for the game's *version* every so often; it changes
whenever anything the public page shows changes (a move, an acceptance, the
deadline, a pause, a seat handed to the computer), and the page is fetched again
only then.  Asking costs one small query of the game's and seats' columns: no
position is parsed and no view built, so that an open tab costs next to nothing.

The version is made from public facts only (never the position, so never a
clan): the page and the polling address give away nothing the page itself does
not show."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Sequence

from sqlalchemy import bindparam, select as select_columns
from sqlmodel import col

from . import errors, tokens
from .context import Context
from .db import as_utc, session_scope
from .models import Game, Seat
from .rules.views import View
from .services import game_and_seats, game_by_public_id, game_view
from .words import N_

#: The columns a version is made of, in seat order: one query, no position.
# (SQLAlchemy's select: SQLModel's types only a few columns.)
_FACTS = (select_columns(col(Game.status), col(Game.ply), col(Game.deadline), col(Seat.accepted_at),
                         col(Seat.paused_until), col(Seat.autopilot_streak), col(Seat.bot))
          .join(Seat, col(Seat.game_id) == col(Game.id))
          .where(col(Game.public_id) == bindparam("public_id"))
          .order_by(col(Seat.position)))

#: A seat's part of a version: accepted_at, paused_until, autopilot_streak, bot.
SeatFacts = tuple[datetime | None, datetime | None, int, str | None]


@dataclass(frozen=True)
class Watch:
    """What a watcher's poll answers: the game's status, ply and version."""

    game: str
    status: str
    ply: int
    version: str


def version(status: str, ply: int, deadline: datetime | None, seats: Iterable[SeatFacts],
            now: datetime) -> str:
    """The version of what a game's public page shows, from the game's and its
    seats' columns.  What the view derives from them is derived the same way here
    (a pause only while it lasts, "away" only for a person), so that a version
    changes exactly when the page would."""
    due = as_utc(deadline)
    facts = [status, ply, due.isoformat() if due is not None and status == "active" else None]
    for accepted_at, paused_until, streak, bot in seats:
        paused = as_utc(paused_until)
        facts.append([accepted_at is not None, paused.isoformat() if paused and paused > now else None,
                      streak >= 3 and bot is None, bot])
    return hashlib.sha256(json.dumps(facts).encode()).hexdigest()[:24]


def _no_game(public_id: object) -> errors.NotFound:
    return errors.NotFound(N_("there is no game %(game)s"), game=str(public_id)[:40])


def watch(ctx: Context, public_id: object) -> Watch:
    """The game's version (what a poll asks), in one query."""
    if not tokens.is_public_id(public_id):
        raise _no_game(public_id)
    with session_scope(ctx.engine) as session:
        rows = session.connection().execute(_FACTS, {"public_id": public_id}).all()
    if not rows:
        raise _no_game(public_id)
    status, ply = rows[0][0], rows[0][1]
    return Watch(game=str(public_id), status=status, ply=ply,
                 version=version(status, ply, rows[0][2], [(r[3], r[4], r[5], r[6]) for r in rows], ctx.now()))


def _seat_facts(seats: Sequence[Seat]) -> list[SeatFacts]:
    return [(s.accepted_at, s.paused_until, s.autopilot_streak, s.bot) for s in seats]


def watched_game(ctx: Context, public_id: object) -> tuple[View, str]:
    """The public view of a game and its version, read in one transaction, so
    that the page's version is the version of what the page shows."""
    with session_scope(ctx.engine) as session:
        game = game_by_public_id(session, public_id)
        _, seats = game_and_seats(session, game.id)
        view = game_view(ctx, game, seats, None)
        return view, version(game.status, game.ply, game.deadline, _seat_facts(seats), ctx.now())
