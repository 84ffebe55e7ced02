"""Watching a game: the public page as a watch link that refreshes itself.

A watcher's browser asks for the game's *version* every so often; it changes
whenever anything the public page shows changes (a move, an acceptance, the
deadline, a pause, a seat handed to the computer), and the page is fetched again
only then.  Asking costs one small query of the game's and seats' columns: no
position is parsed and no view built, so that an open tab costs next to nothing.

The version is made from public facts only (never the position, so never a
clan): the page and the polling address give away nothing the page itself does
not show.

A player's own seat page follows its game the same way (:func:`seat_watch`):
its version adds what that seat's page shows besides the public facts (its
status, its own settings, the table talk), and its poll answers only what the
seat's view says (whose turn it is, never a clan).

**Presence.**  While a seat page is open, and its player is there (the tab is
shown and they used it lately), its script says so with a POST every third of
``PBEM_PRESENCE_SECONDS`` (:func:`mark_present`, which sets ``Seat.seen_at``).
A GET never does: mail scanners open links, and a scanned link must not swallow
a turn mail.  A turn mail (or reminder) for a present player waits
(:func:`present_until`): it is tried again once they have been gone that long,
and goes then if it is still their turn."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Iterable, NoReturn, Sequence

from sqlalchemy import bindparam, func, select as select_columns, update
from sqlmodel import col

from ..core import errors, tokens
from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core.models import Game, GameStatus, Seat, TableMessage, table_of
from ..rules.views import View
from pbem.games.lookup import game_and_seats, game_by_public_id
from pbem.games.views import game_view, seat_status
from ..words import N_

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
    facts = [status, ply, due.isoformat() if due is not None and status == GameStatus.ACTIVE else None]
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


# -- a player's own page ----------------------------------------------------------

#: Every seat of the game a seat token opens, with the game's columns, in seat
#: order, and the game's newest table message: one query, no position.
_SEAT_FACTS = (select_columns(col(Game.status), col(Game.ply), col(Game.deadline), col(Game.turn_seat),
                              col(Seat.token_hash), col(Seat.position), col(Seat.accepted_at),
                              col(Seat.paused_until), col(Seat.autopilot_streak), col(Seat.bot), col(Seat.mail),
                              col(Seat.language), col(Seat.time_zone), col(Seat.board_style),
                              col(Seat.talk_mail), col(Seat.vacation_days_left),
                              select_columns(func.max(col(TableMessage.id)))
                              .where(col(TableMessage.game_id) == col(Game.id)).scalar_subquery())
               .join(Seat, col(Seat.game_id) == col(Game.id))
               .where(col(Game.id) == select_columns(col(Seat.game_id))
                      .where(col(Seat.token_hash) == bindparam("digest")).scalar_subquery())
               .order_by(col(Seat.position)))
_SEAT = table_of(Seat)
_SEEN = update(_SEAT).where(_SEAT.c.token_hash == bindparam("digest")).values(seen_at=bindparam("now"))


@dataclass(frozen=True)
class SeatWatch:
    """What a seat page's poll answers: the seat's status, the ply, whether it is
    the seat's turn, and the version of what its page shows."""

    status: str
    ply: int
    your_turn: bool
    version: str


def _seat_version(public: str, status: str, own: Any, last_talk: object) -> str:
    """A seat page's version: the public page's, the seat's status and the seat's
    own settings the page shows, and the newest table message.  ``own`` is the
    seat (a row of ``_SEAT_FACTS`` or a :class:`Seat`)."""
    facts = [public, status, own.position, own.mail, own.language, own.time_zone, own.board_style,
             bool(own.talk_mail), own.vacation_days_left, last_talk]
    return hashlib.sha256(json.dumps(facts).encode()).hexdigest()[:24]


def _refuse_token() -> NoReturn:
    # The seat link's own refusal (``games.seat_and_game``'s).
    raise errors.Unauthorized(N_("this seat link is not valid: check that you copied the whole link"))


def seat_watch(ctx: Context, token: object) -> SeatWatch:
    """A seat page's version (what its poll asks), in one query."""
    if not tokens.well_formed(token):
        _refuse_token()
    with session_scope(ctx.engine) as session:
        rows = session.connection().execute(_SEAT_FACTS, {"digest": tokens.digest(str(token))}).all()
    digest = tokens.digest(str(token))
    own = next((r for r in rows if r.token_hash == digest), None)
    if own is None:
        _refuse_token()
    status, ply, deadline, turn_seat = rows[0][0], rows[0][1], rows[0][2], rows[0][3]
    public = version(status, ply, deadline, [(r.accepted_at, r.paused_until, r.autopilot_streak, r.bot)
                                              for r in rows], ctx.now())
    shown = seat_status(status, own.accepted_at is not None)
    return SeatWatch(status=shown, ply=ply,
                     your_turn=status == GameStatus.ACTIVE and turn_seat == own.position and own.bot is None,
                     version=_seat_version(public, shown, own, rows[0][-1]))


def seat_version(ctx: Context, game: Game, seats: Sequence[Seat], seat: Seat, status: str,
                 last_talk: int | None) -> str:
    """The version of a seat's page from what the caller loaded for it, in one
    transaction with the page (``pbem.table.seat_page``): the seat's ``status``
    as its view says it, and the id of the game's newest table message."""
    public = version(game.status, game.ply, game.deadline, _seat_facts(seats), ctx.now())
    return _seat_version(public, status, seat, last_talk)


def mark_present(ctx: Context, token: object) -> None:
    """The player is on their seat page (its script's heartbeat, a POST): their
    turn mail waits while they are (:func:`present_until`)."""
    if not tokens.well_formed(token):
        _refuse_token()
    with session_scope(ctx.engine) as session:
        done = session.connection().execute(_SEEN, {"digest": tokens.digest(str(token)), "now": ctx.now()})
        if done.rowcount != 1:
            _refuse_token()


def presence(ctx: Context) -> timedelta:
    """How long a player counts as present after their page last said so."""
    return timedelta(seconds=float(ctx.config.get("PRESENCE_SECONDS", 90.0)))


def present_until(ctx: Context, seat: Seat) -> datetime | None:
    """Until when the seat's player counts as present on their page (``None``:
    they are not now)."""
    seen = as_utc(seat.seen_at)
    if seen is None:
        return None
    until = seen + presence(ctx)
    return until if until > ctx.now() else None
