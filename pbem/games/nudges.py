"""Nudges: a player who has waited on the same mover for ``NUDGE_AFTER_HOURS``
may send them a short "Anna is waiting for your move" mail, once a day per game
(and a push, where the mover has a push subscription).

A nudge goes only to a person whose address may be mailed and who takes turn
mail; never to a seat the computer plays, nor to a mover who is away (their
clock paused for a vacation) until they are back.  Everything refused changes
nothing.  The mail and the push check again as they go
(``pbem.mail.kinds.NudgeMail``, ``pbem.mail.push_posts``): a mover who moved
meanwhile is not nudged."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from math import ceil
from typing import Sequence, TypedDict

from sqlalchemy import bindparam, exists, func
from sqlmodel import Session, col, select

from ..core import errors, events
from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core.events import Event
from ..core.models import Bounce, Game, GameStatus, MailChoice, MoveRecord, Seat, Suppression
from ..core.outbox import OutboxKind, Outgoing, enqueue
from ..core.seat_extras_tables import Nudge
from ..people.players import address_hash, suppression_hashes
from ..words import N_
from . import push_turn
from .lookup import refuse_computer_seat, seat_and_game

log = logging.getLogger(__name__)

#: How often one seat may nudge in one game.
NUDGE_EVERY = timedelta(hours=24)


class NudgeSent(TypedDict):
    """What the API answers to a nudge that went."""

    game: str
    #: The name of the player nudged.
    nudged: str
    #: ISO 8601, UTC: when this seat may nudge again in this game.
    next_nudge_at: str


@dataclass(frozen=True)
class NudgeOffer:
    """What a seat's page says about nudging: whom, and from when."""

    #: The player to move, who may be nudged.
    mover: str
    #: When this seat may nudge them (at or before now: it may now).
    at: datetime
    #: Until when the mover is away (their clock paused for a vacation), if
    #: they are now: no nudge goes to them before then.
    away_until: datetime | None = None

    def allowed(self, now: datetime) -> bool:
        return self.at <= now

    def away(self, now: datetime) -> bool:
        return self.away_until is not None and self.away_until > now


def turn_started(session: Session, game: Game) -> datetime | None:
    """When the current turn began: the last move, or the start of the game."""
    if game.ply == 0:
        return as_utc(game.started_at)
    last = session.exec(select(MoveRecord.created_at).where(
        MoveRecord.game_id == game.id, MoveRecord.ply == game.ply - 1)).first()
    return as_utc(last) if last is not None else as_utc(game.started_at)


# What a nudge depends on, in one statement (the seat page asks it on every
# view while someone else is to move): this seat's last nudge in the game, when
# the turn began, and whether the mover's address may be mailed.
_FACTS = select(
    select(func.max(col(Nudge.created_at))).where(
        col(Nudge.game_id) == bindparam("game_id"), col(Nudge.seat_id) == bindparam("seat_id")).scalar_subquery(),
    select(MoveRecord.created_at).where(
        col(MoveRecord.game_id) == bindparam("game_id"), col(MoveRecord.ply) == bindparam("last_ply")
    ).scalar_subquery(),
    exists().where(col(Suppression.address_hash).in_(bindparam("hashes", expanding=True))),
    exists().where(col(Bounce.address_hash) == bindparam("digest"), col(Bounce.bouncing_at).is_not(None)),
)


@dataclass(frozen=True)
class _Facts:
    last_nudge: datetime | None
    turn_started: datetime | None
    mailable: bool


def _facts(session: Session, game: Game, seat: Seat, mover: Seat) -> _Facts:
    last, moved, suppressed, bouncing = session.exec(_FACTS, params={
        "game_id": game.id, "seat_id": seat.id, "last_ply": game.ply - 1,
        "hashes": suppression_hashes(mover.email), "digest": address_hash(mover.email)}).one()
    started = as_utc(moved) if moved is not None and game.ply > 0 else as_utc(game.started_at)
    return _Facts(last_nudge=as_utc(last), turn_started=started,
                  mailable=bool(mover.email) and mover.mail != MailChoice.NONE and not suppressed and not bouncing)


def _refusal(ctx: Context, session: Session, game: Game, seats: Sequence[Seat],
             seat: Seat) -> tuple[errors.ServiceError | None, Seat | None, datetime | None]:
    """Why this seat may not nudge now (``None``: it may), the mover, and when it
    may (for a refusal that passes with time)."""
    if seat.bot is not None:
        return errors.Conflict(N_("the computer plays this seat now"), code="computer-seat"), None, None
    if game.status != GameStatus.ACTIVE or game.turn_seat is None:
        return errors.Conflict(N_("you can nudge only while the game is being played"),
                               code="not-started" if game.status == GameStatus.INVITED else "game-over"), None, None
    if game.turn_seat == seat.position:
        return errors.Conflict(N_("it is your own turn: nobody is waiting on you to nudge"),
                               code="your-turn"), None, None
    mover = next(s for s in seats if s.position == game.turn_seat)
    if mover.bot is not None:
        return errors.Conflict(N_("the computer plays %(name)s’s seat: it needs no nudge"), name=mover.name,
                               code="computer-turn"), mover, None
    facts = _facts(session, game, seat, mover)
    if not facts.mailable:
        # One code whatever the reason: nobody learns that a player asked never to be mailed.
        return errors.Conflict(N_("%(name)s cannot be reached by email, so they cannot be nudged"),
                               name=mover.name, code="cannot-nudge"), mover, None
    started = facts.turn_started or ctx.now()
    last = facts.last_nudge
    at = started + timedelta(hours=float(ctx.config["NUDGE_AFTER_HOURS"]))
    if last is not None:
        at = max(at, last + NUDGE_EVERY)
    now = ctx.now()
    away = as_utc(mover.paused_until)
    if away is not None and away > now:
        # Paused for a vacation: their clock waits for them, and so do nudges.
        return errors.Conflict(N_("%(name)s is away until %(when)s; you can nudge them after that"),
                               name=mover.name, when=away.isoformat(timespec="minutes"),
                               code="mover-away"), mover, max(at, away)
    if at > now:
        return errors.RateLimited(N_("too soon to nudge %(name)s: you may from %(when)s"), name=mover.name,
                                  when=at.isoformat(timespec="minutes"), code="nudge-too-soon",
                                  retry_after=ceil((at - now).total_seconds())), mover, at
    return None, mover, at


def nudge_offer(ctx: Context, session: Session, game: Game, seats: Sequence[Seat], seat: Seat) -> NudgeOffer | None:
    """What the seat page offers: the mover and when they may be nudged (and
    until when they are away, if they are), or ``None`` where no nudge can ever
    go now (own turn, a computer, no mail)."""
    refusal, mover, at = _refusal(ctx, session, game, seats, seat)
    if mover is None or at is None:
        return None
    away = as_utc(mover.paused_until) if refusal is not None and refusal.code == "mover-away" else None
    return NudgeOffer(mover=mover.name, at=at, away_until=away)


def nudge(ctx: Context, token: object) -> NudgeSent:
    """Nudge the player to move from the seat this token opens: one outbox row
    to them (``nudge:ID``), and a push beside it where they have a push
    subscription; or the refusal, with nothing changed."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        refuse_computer_seat(seat)
        # Two clicks at once: the seat's row is held until this one is written,
        # so the second finds its nudge (SQLite has one writer at a time anyway).
        session.exec(select(Seat.id).where(Seat.id == seat.id).with_for_update()).first()
        refusal, mover, _ = _refusal(ctx, session, game, seats, seat)
        if refusal is not None:
            raise refusal
        assert mover is not None and game.id is not None and seat.id is not None and mover.id is not None
        made = Nudge(game_id=game.id, seat_id=seat.id, mover_id=mover.id, ply=game.ply, created_at=now)
        session.add(made)
        session.flush()
        event = events.key(Event.NUDGE, made.id)
        rows = Outgoing([enqueue(session, kind=OutboxKind.NUDGE, event=event, recipient=mover.email,
                                 base_url=ctx.base_url, now=now, game_id=game.id, seat_id=mover.id)])
        if push_turn.subscribed(session, game, mover):
            # Beside the mail, as a turn is pushed: what it says is built as it
            # goes, and not at all if they moved meanwhile (pbem.mail.push_posts).
            pushed = enqueue(session, kind=OutboxKind.PUSH, event=event, recipient=push_turn.recipient(mover.id),
                             base_url=ctx.base_url, now=now, game_id=game.id, seat_id=mover.id)
            rows = Outgoing([*rows, pushed], posts=[pushed])
        sent: NudgeSent = {"game": game.public_id, "nudged": mover.name,
                           "next_nudge_at": (now + NUDGE_EVERY).isoformat()}
    # Mail one player makes another get: said in the log, by seat and game only.
    log.info("seat %d of game %s nudged seat %d to move", seat.position, sent["game"], mover.position,
             extra={"game": sent["game"]})
    ctx.relay(rows)
    return sent


def nudge_of(session: Session, event: str) -> Nudge | None:
    """The nudge a ``nudge:ID`` row sends."""
    found = events.id_of(event)
    return None if found is None else session.get(Nudge, found)
