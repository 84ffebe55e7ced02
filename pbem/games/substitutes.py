"""Substitutes: a seat at a table that began in the lobby (a game with a
``lobby_table`` row, quick-match games included), whose player the autopilot
has moved for three times running (``views.absent``), is offered in the lobby.

A volunteer (:func:`volunteer`) gets an invitation (kind ``substitute``)
whose link is the one seat of a holding game that never starts
(``pbem.core.match_tables.SubstituteOffer``), as a quick-match request's is.
Accepting it (``games.accept``) while the seat is still away (:func:`take`)
moves that link into the away seat, with the volunteer's name, address and
language (the clan stays): the volunteer plays on from there.  The away player
is told by mail (kind ``substituted``, with no link to the seat) and their old
link opens nothing (``401``).  If the away player moved again first, the offer
lapses (``409 substitute-not-needed``)."""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta
from typing import Any, TypedDict

from sqlalchemy import exists, update
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from ..core import errors, tokens
from ..core.context import Context
from ..core.db import session_scope
from ..core.events import Event
from ..core.lobby_tables import LobbyTable
from ..core.match_tables import SubstituteOffer
from ..core.models import Game, GameStatus, MailChoice, Seat
from ..core.outbox import OutboxKind, enqueue
from ..people import blocks
from ..people.players import mailbox
from ..words import N_
from . import lobby

log = logging.getLogger(__name__)

#: The autopilot's moves in a row that make a seat away (``views.absent``).
AWAY_STREAK = 3
#: Substitute seats the lobby lists at most.
LISTED = 20


class SubstituteView(TypedDict):
    id: str
    seat: int
    name: str
    seats: int
    turn_hours: int
    language: str
    ply: int
    players: list[lobby.SeatedPlayer]


def _offered(since: datetime) -> Any:
    """A live offer for the away seat: its holding game still invited, made
    within ``LOBBY_HOLD_HOURS`` (as a join holds an open seat; after that the
    seat is offered again, and whoever accepts first takes it)."""
    holding = aliased(Game)
    return (select(SubstituteOffer.id).join(holding, col(holding.id) == col(SubstituteOffer.holding_game_id))
            .where(col(SubstituteOffer.seat_id) == col(Seat.id), col(holding.status) == GameStatus.INVITED,
                   col(SubstituteOffer.created_at) >= since))


def _away(ctx: Context) -> Any:
    since = ctx.now() - timedelta(hours=int(ctx.config["LOBBY_HOLD_HOURS"]))
    return (select(Seat, Game, LobbyTable).join(Game, col(Game.id) == col(Seat.game_id))
            .join(LobbyTable, col(LobbyTable.game_id) == col(Game.id))
            .where(col(Game.status) == GameStatus.ACTIVE, col(Seat.autopilot_streak) >= AWAY_STREAK,
                   col(Seat.bot).is_(None), col(Seat.email) != "", ~exists(_offered(since))))


def substitutes(ctx: Context) -> list[SubstituteView]:
    """The away seats offered to volunteers, the longest-running games first."""
    with session_scope(ctx.engine) as session:
        rows = session.exec(_away(ctx).order_by(col(Game.started_at), col(Seat.id)).limit(LISTED)).all()
        out: list[SubstituteView] = []
        for seat, game, table in rows:
            others = list(session.exec(select(Seat).where(col(Seat.game_id) == game.id, col(Seat.id) != seat.id)
                                       .order_by(col(Seat.position))))
            out.append({"id": game.public_id, "seat": seat.position, "name": seat.name, "seats": table.seats,
                        "turn_hours": game.turn_hours, "language": table.language, "ply": game.ply,
                        "players": lobby.strangers(session, game, others, seat)})
        return out


def volunteer(ctx: Context, public_id: object, person: lobby.Joiner) -> str:
    """Offer to take over the away seat of the lobby game ``public_id``; mails the
    invitation.  Refused, changing nothing: ``404`` (no such lobby game),
    ``409 no-substitute-seat`` (no seat there waits for a substitute),
    ``409 already-seated``, ``409 blocked``, ``422 invalid-name`` / ``cannot-invite``."""
    now = ctx.now()
    box = mailbox(person.email)
    with session_scope(ctx.engine) as session:
        game = session.exec(select(Game).where(col(Game.public_id) == str(public_id)[:40])).first() \
            if tokens.is_public_id(public_id) else None
        if game is None or session.exec(select(LobbyTable.id).where(col(LobbyTable.game_id) == game.id)).first() is None:
            raise errors.NotFound(N_("there is no table %(game)s in the lobby"), game=str(public_id)[:40])
        found = session.exec(_away(ctx).where(col(Game.id) == game.id).order_by(col(Seat.position))).first()
        if found is None:
            raise errors.Conflict(N_("no seat at this table waits for a substitute"), code="no-substitute-seat")
        away = found[0]
        seats = list(session.exec(select(Seat).where(col(Seat.game_id) == game.id)))
        if any(s.email and mailbox(s.email) == box for s in seats):
            raise errors.Conflict(N_("you have a seat at this table already"), code="already-seated")
        if any(s.name.lower() == person.name.lower() for s in seats if s.id != away.id):
            raise errors.Invalid(N_("someone at this table is called %(name)s already: choose another name"),
                                 name=person.name, code="invalid-name", field="name")
        lobby.refuse_suppressed(session, person.email)
        if blocks.any_blocked(session, person.email, [s.email for s in seats if s.email and s.id != away.id]):
            raise errors.Conflict(N_("you cannot join this table"), code="blocked")
        ctx.limit("LIMIT_JOINS", [person.email])
        holding = Game(public_id=tokens.public_id(), turn_hours=game.turn_hours, created_at=now,
                       seed=secrets.randbits(31))
        session.add(holding)
        session.flush()
        assert holding.id is not None and away.id is not None and game.id is not None
        salt = tokens.new_salt()
        seat = Seat(game_id=holding.id, position=0, name=person.name, email=person.email, token_salt=salt,
                    token_hash=tokens.digest(tokens.derive(ctx.secret_key, "seat", salt)),
                    vacation_days_left=0, language=person.language, time_zone=person.time_zone,
                    mail=MailChoice.EVERY)
        session.add(seat)
        session.flush()
        assert seat.id is not None
        offer = SubstituteOffer(seat_id=away.id, game_id=game.id, holding_game_id=holding.id,
                                holding_seat_id=seat.id, created_at=now)
        session.add(offer)
        outbox = [enqueue(session, kind=OutboxKind.SUBSTITUTE_INVITE, event=Event.INVITE, recipient=person.email,
                          base_url=ctx.base_url, now=now, game_id=holding.id, seat_id=seat.id)]
        log.info("game %s: ***@%s offers to take over seat %d", game.public_id, box.rpartition("@")[2],
                 away.position)
        public = game.public_id
    ctx.relay(outbox)
    return public


def offer_of(session: Session, holding: Game) -> SubstituteOffer | None:
    return session.exec(select(SubstituteOffer).where(col(SubstituteOffer.holding_game_id) == holding.id)).first()


def take(ctx: Context, session: Session, offer: SubstituteOffer, volunteer_seat: Seat,
         now: datetime) -> tuple[list[int | None], Game, list[Seat], Seat]:
    """The volunteer accepts: their link moves into the away seat, if it is
    still away; the away player is told.  The game, its seats and the seat."""
    holding_id = offer.holding_game_id
    # The offer is used (or lapses) either way: its holding game never starts.
    session.exec(update(Game).where(col(Game.id) == holding_id).values(status=GameStatus.EXPIRED)
                 .execution_options(synchronize_session=False))
    game = session.get(Game, offer.game_id)
    away = session.get(Seat, offer.seat_id)
    assert game is not None and away is not None
    if game.status != GameStatus.ACTIVE or away.autopilot_streak < AWAY_STREAK or away.bot is not None:
        raise errors.Conflict(N_("this seat does not need a substitute any more: its player is back or the game "
                                 "is over"), code="substitute-not-needed")
    taken = session.exec(update(SubstituteOffer).where(col(SubstituteOffer.id) == offer.id,
                                                       col(SubstituteOffer.taken_at).is_(None))
                         .values(taken_at=now).execution_options(synchronize_session=False))
    if taken.rowcount != 1:
        raise errors.Conflict(N_("this seat does not need a substitute any more: its player is back or the game "
                                 "is over"), code="substitute-not-needed")
    salt, digest = volunteer_seat.token_salt, volunteer_seat.token_hash
    old = (away.name, away.email, away.language, away.time_zone)
    # The holding seat keeps the away player's name and address (the mail that
    # tells them goes from it) and a link nobody holds.
    volunteer_seat.token_hash = tokens.digest(secrets.token_urlsafe(32))
    name, email, language, zone = volunteer_seat.name, volunteer_seat.email, volunteer_seat.language, \
        volunteer_seat.time_zone
    volunteer_seat.name, volunteer_seat.email, volunteer_seat.language, volunteer_seat.time_zone = old
    session.add(volunteer_seat)
    session.flush()
    away.name, away.email, away.language, away.time_zone = name, email, language, zone
    away.token_salt, away.token_hash = salt, digest
    away.autopilot_streak, away.mail = 0, MailChoice.EVERY
    session.add(away)
    session.flush()
    outbox: list[int | None] = [enqueue(session, kind=OutboxKind.SUBSTITUTED, event=Event.INVITE, recipient=old[1],
                                        base_url=ctx.base_url, now=now, game_id=holding_id,
                                        seat_id=volunteer_seat.id)]
    log.info("game %s: seat %d passed to a substitute", game.public_id, away.position)
    seats = list(session.exec(select(Seat).where(col(Seat.game_id) == game.id).order_by(col(Seat.position))))
    return outbox, game, seats, away


def offered_game(session: Session, holding_game_id: int) -> tuple[Game, Seat] | None:
    """The game and away seat an offer's holding game is for (its mails name them)."""
    offer = session.exec(select(SubstituteOffer).where(col(SubstituteOffer.holding_game_id) == holding_game_id)).first()
    if offer is None:
        return None
    game, seat = session.get(Game, offer.game_id), session.get(Seat, offer.seat_id)
    return (game, seat) if game is not None and seat is not None else None

