"""The operator's toolbox (``pbem admin …``): plain service functions, one
transaction each, that answer an operator's everyday requests without SQL.

Each is safe to run twice: a second run finds the work done and says so
(``changed`` is false) rather than doing it again or failing.  An unknown game
or outbox row is :class:`pbem.core.errors.NotFound`; a change the game's state does
not allow is :class:`pbem.core.errors.Conflict`.

What a game shows here comes from :func:`pbem.games.views.game_view` for nobody
in particular, the public view: no clan of a running game, even to the operator."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Sequence

import sqlalchemy
from sqlalchemy import delete, func, or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ..core import errors, tokens
from ..games import webhook_events
from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core.events import Event
from ..core.daily_tables import CalendarFeed, DailyMail
from ..core.models import (RUNNING, CaughtMail, Game, GameStatus, Inbound, Login, MailChoice, MoveRecord, Outbox,
                           OutboxStatus, Rating, Seat, Suppression, Webhook)
from ..core.outbox import OutboxKind, enqueue
from ..core.seat_extras_tables import SeatNote
from ..people.players import BadAddress, address_hash, clean_address, mailbox_hash
from ..people import blocks, profiles, reachability
from .. import games

log = logging.getLogger(__name__)

#: The name an erased person's seats take (numbered when a game has two).
FORMER_PLAYER = "former player"
#: The level at which the computer plays on for an erased person in a running game.
FORGOTTEN_SEAT_LEVEL = "medium"


class Which(StrEnum):
    """The games :func:`list_games` lists (besides all)."""

    ACTIVE = GameStatus.ACTIVE.value
    #: Active, but nothing happened for too long (:func:`is_stuck`).
    STUCK = "stuck"
    FINISHED = GameStatus.FINISHED.value


@dataclass(frozen=True)
class GameRow:
    public_id: str
    status: str
    players: int
    ply: int
    turn_hours: int
    created_at: datetime
    deadline: datetime | None
    #: The latest of its start, its last move and its last mail sent.
    last_activity: datetime
    stuck: bool


@dataclass(frozen=True)
class Done:
    """What a change did: ``changed`` is false when there was nothing left to do."""

    changed: bool
    message: str
    details: dict[str, Any] = field(default_factory=dict)


# -- reading ------------------------------------------------------------------


def _last_move() -> Any:
    return (select(func.max(MoveRecord.created_at)).where(col(MoveRecord.game_id) == col(Game.id))
            .scalar_subquery())


def _last_mail() -> Any:
    return select(func.max(Outbox.sent_at)).where(col(Outbox.game_id) == col(Game.id)).scalar_subquery()


def _players() -> Any:
    return select(func.count(col(Seat.id))).where(col(Seat.game_id) == col(Game.id)).scalar_subquery()


def is_stuck(status: str, turn_hours: int, deadline: datetime | None, last_activity: datetime,
             now: datetime) -> bool:
    """A running game in which nothing happened (no move, no mail sent) for
    longer than its turn time although its deadline has passed (or it has
    none): the clock should have moved for the absent player long ago.  A
    player on holiday has a later deadline, so their game is not stuck."""
    if status != GameStatus.ACTIVE:
        return False
    overdue = deadline is None or deadline <= now
    return overdue and now - last_activity > timedelta(hours=turn_hours)


def list_games(ctx: Context, which: Which | None = None, limit: int = 100) -> list[GameRow]:
    """Games, newest first: all, or only ``active``, ``stuck`` or ``finished`` ones."""
    now = ctx.now()
    query = sqlalchemy.select(col(Game.public_id), col(Game.status), _players(), col(Game.ply),
                              col(Game.turn_hours), col(Game.created_at), col(Game.started_at),
                              col(Game.deadline), _last_move(), _last_mail())
    if which in (Which.ACTIVE, Which.STUCK):
        query = query.where(col(Game.status) == GameStatus.ACTIVE)
    elif which == Which.FINISHED:
        query = query.where(col(Game.status) == GameStatus.FINISHED)
    query = query.order_by(col(Game.id).desc())
    if which != Which.STUCK:
        query = query.limit(limit)
    found: list[GameRow] = []
    with session_scope(ctx.engine) as session:
        for public_id, status, players, ply, turn_hours, created, started, deadline, moved, mailed in \
                session.connection().execute(query).all():
            times = [as_utc(t) for t in (created, started, moved, mailed) if t is not None]
            last = max(t for t in times if t is not None)
            row = GameRow(public_id, status, int(players or 0), ply, turn_hours, as_utc(created),
                          as_utc(deadline), last, is_stuck(status, turn_hours, as_utc(deadline), last, now))
            if which != "stuck" or row.stuck:
                found.append(row)
    return found[:limit]


def _game(session: Session, public_id: object) -> tuple[Game, list[Seat]]:
    if not tokens.is_public_id(public_id):
        raise errors.NotFound("no game %(game)s: a game's id is the 14 letters and digits in its links",
                              game=str(public_id)[:40])
    found = session.exec(select(Game.id).where(Game.public_id == public_id)).first()
    game, seats = games.game_and_seats(session, found)
    if game is None:
        raise errors.NotFound("no game %(game)s", game=str(public_id))
    return game, seats


def _outbox_line(row: Outbox, game: str | None) -> dict[str, Any]:
    return {"id": row.id, "game": game, "kind": row.kind, "status": row.status, "attempts": row.attempts,
            "recipient": row.recipient, "event": row.event, "created_at": as_utc(row.created_at),
            "next_attempt_at": as_utc(row.next_attempt_at), "sent_at": as_utc(row.sent_at),
            "last_error": row.last_error, "message_id": row.message_id}


def game_detail(ctx: Context, public_id: object) -> dict[str, Any]:
    """A game for its operator: its state and deadline, its seats (name,
    address, settings, and a clan only where the public view shows one, i.e.
    once the game is over) and its outbox rows."""
    with session_scope(ctx.engine) as session:
        game, seats = _game(session, public_id)
        view = games.game_view(ctx, game, seats, None)
        rows = session.exec(select(Outbox).where(Outbox.game_id == game.id).order_by(col(Outbox.id))).all()
        moved = session.exec(select(func.max(MoveRecord.created_at)).where(MoveRecord.game_id == game.id)).first()
        mailed = session.exec(select(func.max(Outbox.sent_at)).where(Outbox.game_id == game.id)).first()
        times = [as_utc(t) for t in (game.created_at, game.started_at, moved, mailed) if t is not None]
        last = max(t for t in times if t is not None)
        public_players = {p["seat"]: p for p in view["players"]}
        return {
            "game": game.public_id, "status": game.status, "ply": game.ply, "turn_hours": game.turn_hours,
            "created_at": as_utc(game.created_at), "started_at": as_utc(game.started_at),
            "finished_at": as_utc(game.finished_at), "deadline": as_utc(game.deadline),
            "turn_seat": game.turn_seat, "last_activity": last,
            "stuck": is_stuck(game.status, game.turn_hours, as_utc(game.deadline), last, ctx.now()),
            "seats": [{
                "position": s.position, "name": s.name, "email": s.email, "bot": s.bot,
                "accepted": s.accepted_at is not None, "mail": s.mail, "language": s.language,
                "paused_until": as_utc(s.paused_until), "autopilot_streak": s.autopilot_streak,
                # The public view's clan: None until the game is over.
                "clan": public_players[s.position]["clan"] if s.position in public_players else None,
            } for s in seats],
            "outbox": [_outbox_line(r, game.public_id) for r in rows],
        }


def outbox_rows(ctx: Context, status: OutboxStatus | None = None, kind: str | None = None,
                limit: int = 100) -> tuple[list[dict[str, Any]], dict[tuple[str, str], int]]:
    """The newest outbox rows (``pending`` or ``failed`` only, one ``kind`` only),
    and the count of every row by (kind, status)."""
    query = select(Outbox, Game.public_id).join(Game, col(Game.id) == col(Outbox.game_id), isouter=True)
    counts_query = select(Outbox.kind, Outbox.status, func.count(col(Outbox.id))).group_by(
        col(Outbox.kind), col(Outbox.status))
    if status is not None:
        query = query.where(Outbox.status == status)
    if kind is not None:
        query = query.where(Outbox.kind == kind)
        counts_query = counts_query.where(Outbox.kind == kind)
    with session_scope(ctx.engine) as session:
        rows = [_outbox_line(row, game) for row, game in
                session.exec(query.order_by(col(Outbox.id).desc()).limit(limit)).all()]
        counts = {(k, s): int(n) for k, s, n in session.exec(counts_query).all()}
    return rows, counts


# -- changing -----------------------------------------------------------------


def resend(ctx: Context, row_id: int) -> Done:
    """A new attempt at one outbox row, with the same Message-ID (a client that
    has the first copy shows one): pending, due now, a full set of tries, then
    handed to the workers.  The world is checked again when it goes, as for any
    row: a turn that is over is skipped, not sent.  A row already waiting to
    go is left as it is."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        row = session.get(Outbox, row_id)
        if row is None:
            raise errors.NotFound("no outbox row %(row)s (rows delivered long ago are deleted after "
                                  "PBEM_RETENTION_DAYS)", row=row_id)
        due = as_utc(row.next_attempt_at)
        if row.status == OutboxStatus.PENDING and row.attempts == 0 and due is not None and due <= now:
            return Done(False, f"outbox row {row_id} ({row.kind}) is already waiting to go; nothing changed")
        was = row.status
        session.exec(update(Outbox).where(col(Outbox.id) == row_id)
                     .values(status=OutboxStatus.PENDING, next_attempt_at=now, attempts=0, last_error=None))
    log.info("outbox %s (%s, was %s) handed out again by the operator", row_id, row.kind, was)
    ctx.relay([row_id])
    with session_scope(ctx.engine) as session:
        after = session.get(Outbox, row_id)
        status = after.status if after is not None else "gone"
    return Done(True, f"outbox row {row_id} ({row.kind}, was {was}) handed out again with Message-ID "
                      f"{row.message_id}; now {status}", {"status": status, "message_id": row.message_id})


def _tell_cancelled(ctx: Context, session: Session, game: Game, seats: Sequence[Seat], now: datetime,
                    started: bool) -> list[int | None]:
    """Mark the game cancelled, drop its mail still waiting to go, and write the
    notice to each person who has heard of it: every player of a started game;
    of one still gathering its players, those who accepted or were sent their
    invitation."""
    session.exec(update(Outbox).where(col(Outbox.game_id) == game.id, col(Outbox.status) == OutboxStatus.PENDING)
                 .values(status=OutboxStatus.SKIPPED, last_error="game cancelled"))
    invited = set(session.exec(select(Outbox.seat_id).where(
        Outbox.game_id == game.id, Outbox.kind == OutboxKind.INVITE, Outbox.status == OutboxStatus.SENT)).all())
    game.status = GameStatus.CANCELLED
    game.finished_at = now
    game.deadline = None
    session.add(game)
    session.flush()
    return [enqueue(session, kind=OutboxKind.CANCELLED, event=Event.CANCELLED, recipient=s.email, base_url=ctx.base_url,
                    now=now, game_id=game.id, seat_id=s.id)
            for s in seats if s.bot is None and s.email
            and (started or s.accepted_at is not None or s.id in invited)]


def cancel(ctx: Context, public_id: object) -> Done:
    """Cancel a running game (invited or active); its players are told by mail."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        game, seats = _game(session, public_id)
        if game.status == GameStatus.CANCELLED:
            return Done(False, f"game {game.public_id} is cancelled already; nothing changed")
        if game.status not in RUNNING:
            raise errors.Conflict("game %(game)s is %(status)s: only a running game can be cancelled",
                                  game=game.public_id, status=game.status)
        outbox = _tell_cancelled(ctx, session, game, seats, now, started=game.status == GameStatus.ACTIVE
                                 or game.started_at is not None)
    log.info("game %s cancelled by the operator", game.public_id, extra={"game": game.public_id})
    ctx.relay(outbox)
    told = sum(1 for i in outbox if i is not None)
    return Done(True, f"game {game.public_id} cancelled; {told} player(s) told by mail", {"told": told})


#: The most hours one ``extend`` may add (as much as a turn may last).
MAX_EXTEND_HOURS = games.MAX_TURN_HOURS


def extend(ctx: Context, public_id: object, hours: int) -> Done:
    """Give the player to move ``hours`` more: the running deadline moves by
    that much (from now, if it has passed already: a game left stuck is not
    moved for at once), and its reminder comes again before the new one.
    Each run adds ``hours``; the answer names the old and the new deadline."""
    if isinstance(hours, bool) or not isinstance(hours, int) or not 1 <= hours <= MAX_EXTEND_HOURS:
        raise errors.Invalid("hours must be a whole number from 1 to %(max)d", max=MAX_EXTEND_HOURS)
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        game, seats = _game(session, public_id)
        current = as_utc(game.deadline)
        if game.status != GameStatus.ACTIVE or current is None:
            raise errors.Conflict("game %(game)s is %(status)s: only a running game has a deadline to move",
                                  game=game.public_id, status=game.status)
        new = max(current, now) + timedelta(hours=hours)
        # Guarded like a move: a move stored meanwhile set a deadline of its own.
        moved = session.exec(update(Game).where(col(Game.id) == game.id, col(Game.ply) == game.ply)
                             .values(deadline=new, reminded_for=None)).rowcount
    if moved != 1:
        raise errors.Conflict("game %(game)s moved on while its deadline was being changed: run it again",
                              game=game.public_id)
    who = seats[game.turn_seat].name if game.turn_seat is not None else "?"
    log.info("deadline of game %s moved by %s hours by the operator", game.public_id, hours,
             extra={"game": game.public_id})
    return Done(True, f"game {game.public_id}: {who}'s deadline for move {game.ply + 1} moved from "
                      f"{current.isoformat(timespec='minutes')} to {new.isoformat(timespec='minutes')}",
                {"from": current, "to": new})


def _normal(address: str) -> str:
    try:
        return clean_address(address)
    except BadAddress:
        return address.strip().lower()  # stored before today's checks, perhaps: look it up as written


def _former_name(seats: Sequence[Seat], seat: Seat) -> str:
    taken = {s.name for s in seats if s.id != seat.id}
    n = 1
    while True:
        name = FORMER_PLAYER if n == 1 else f"{FORMER_PLAYER} {n}"
        if name not in taken:
            return name
        n += 1


def _rename_in_state(game: Game, position: int, name: str) -> None:
    """The record's names come from the snapshot: it gets the new name too, so
    the game's record stays valid (distinct names) and tells no one's name."""
    if not game.state:
        return
    state = json.loads(game.state)
    players = list(state.get("players") or [])
    if 0 <= position < len(players):
        players[position] = name
        state["players"] = players
        game.state = json.dumps(state)


def _inbound_quoting(session: Session, address: str, batch: int = 200) -> list[int]:
    """The received messages whose raw bytes hold the address, in any case (a
    bounce quoting it, a forwarded mail): looked for here, a batch at a time,
    as no SQL both databases share searches bytes without regard to case."""
    needle = address.lower().encode()
    found: list[int] = []
    after = 0
    while True:
        rows = session.exec(select(Inbound.id, Inbound.raw).where(col(Inbound.id) > after)
                            .order_by(col(Inbound.id)).limit(batch)).all()
        for inbound_id, raw in rows:
            if inbound_id is not None and needle in bytes(raw).lower():
                found.append(inbound_id)
        if len(rows) < batch:
            return found
        after = int(rows[-1][0] or 0)


def forget(ctx: Context, raw_address: str) -> Done:
    """Erase a person: their address from every seat (with its Discord id),
    sign-in, outbox row (mail still waiting is dropped with it), received
    message (sent by them, or quoting their address: a bounce) and caught mail;
    the webhooks their seats set (with the posts still waiting for them) and
    their rating; their name becomes "former player" in every game, so records
    stay valid.  In a game being played the computer plays on for them (or,
    were they the last person there, the game is cancelled); a game still
    gathering its players is cancelled, and those invited are told.  The
    address's hash goes on the suppression list, so no later game can name it
    and nothing is mailed to it."""
    address = _normal(raw_address)
    if not address or "@" not in address:
        raise errors.Invalid("%(address)s is not an email address", address=repr(raw_address[:80]))
    now = ctx.now()
    counts = {"seats": 0, "games_cancelled": 0, "seats_to_computer": 0, "outbox": 0, "logins": 0,
              "inbound": 0, "caught_mail": 0, "webhooks": 0, "rating": 0, "notes": 0, "daily_mail": 0,
              "calendars": 0, "profile": 0, "blocks": 0}
    outbox: list[int | None] = []
    seat_ids: list[int] = []
    computer_turns: list[tuple[int, int]] = []
    suppressed = True
    with session_scope(ctx.engine) as session:
        game_ids = sorted(set(session.exec(select(Seat.game_id).where(Seat.email == address)).all()))
        for game_id in game_ids:
            game, seats = games.game_and_seats(session, game_id)
            assert game is not None
            handed: set[int] = set()
            for seat in [s for s in seats if s.email == address]:
                name = _former_name(seats, seat)
                seat.name = name
                seat.email = ""
                seat.mail = MailChoice.NONE
                seat.talk_mail = False
                seat.discord_id = None
                # The old link opens nothing more: a new token nobody has.
                seat.token_salt = tokens.new_salt()
                seat.token_hash = tokens.digest(tokens.derive(ctx.secret_key, "seat", seat.token_salt))
                _rename_in_state(game, seat.position, name)
                if seat.id is not None:
                    seat_ids.append(seat.id)
                counts["seats"] += 1
                if game.status == GameStatus.ACTIVE and seat.bot is None:
                    seat.bot, seat.bot_from = FORGOTTEN_SEAT_LEVEL, game.ply
                    handed.add(seat.position)
                    counts["seats_to_computer"] += 1
                session.add(seat)
            session.add(game)
            session.flush()
            people = [s for s in seats if s.bot is None and s.email]
            if game.status == GameStatus.INVITED or (game.status == GameStatus.ACTIVE and not people):
                outbox += _tell_cancelled(ctx, session, game, seats, now, started=game.started_at is not None)
                counts["games_cancelled"] += 1
            elif game.status == GameStatus.ACTIVE and game.turn_seat in handed and game.id is not None:
                # Their turn: the computer's time is its pause and a short grace.
                session.exec(update(Game).where(col(Game.id) == game.id, col(Game.ply) == game.ply).values(
                    deadline=now + timedelta(seconds=float(ctx.config["BOT_DELAY"])) + games.COMPUTER_GRACE,
                    reminded_for=None))
                computer_turns.append((game.id, game.ply))
        mine = or_(col(Outbox.recipient) == address, col(Outbox.login_id).in_(
            select(Login.id).where(Login.email == address)))
        counts["outbox"] = session.exec(delete(Outbox).where(mine)).rowcount
        # A webhook's address opens someone's chat channel: theirs go, and the posts still waiting for them.
        hooks = list(session.exec(select(Webhook.id).where(col(Webhook.seat_id).in_(seat_ids))).all())
        if hooks:
            counts["outbox"] += session.exec(delete(Outbox).where(
                col(Outbox.kind) == OutboxKind.WEBHOOK, col(Outbox.status) == OutboxStatus.PENDING,
                col(Outbox.recipient).in_([webhook_events.recipient(h) for h in hooks]))).rowcount
            counts["webhooks"] = session.exec(delete(Webhook).where(col(Webhook.id).in_(hooks))).rowcount
        # Their private notes are theirs alone: gone with the seat's person.
        counts["notes"] = session.exec(delete(SeatNote).where(col(SeatNote.seat_id).in_(seat_ids))).rowcount
        counts["logins"] = session.exec(delete(Login).where(col(Login.email) == address)).rowcount
        counts["inbound"] = session.exec(delete(Inbound).where(or_(
            func.lower(col(Inbound.sender)) == address, col(Inbound.id).in_(_inbound_quoting(session, address))))
        ).rowcount
        counts["caught_mail"] = session.exec(delete(CaughtMail).where(or_(
            col(CaughtMail.recipient) == address, col(CaughtMail.raw).contains(address, autoescape=True)))).rowcount
        counts["rating"] = session.exec(delete(Rating).where(col(Rating.address_hash) == address_hash(address))
                                        ).rowcount
        # Their own settings and calendar feeds (the person's and their seats').
        counts["daily_mail"] = session.exec(delete(DailyMail).where(col(DailyMail.email) == address)).rowcount
        counts["calendars"] = session.exec(delete(CalendarFeed).where(or_(
            col(CalendarFeed.email) == address, col(CalendarFeed.seat_id).in_(seat_ids)))).rowcount
        # Their public profile and their blocks, made by them or of them (they keep the address).
        counts["profile"] = profiles.forget(session, address)
        counts["blocks"] = blocks.forget(session, address)
        suppressed = reachability.is_suppressed(session, address)
        if not suppressed:
            try:
                with session.begin_nested():  # two runs at once: the second finds the row
                    session.add(Suppression(address_hash=mailbox_hash(address), created_at=now))
            except IntegrityError:
                pass
    ctx.relay(outbox)
    for turn in computer_turns:
        ctx.computer(*turn)
    erased = {k: int(v) for k, v in counts.items()}
    changed = any(erased.values()) or not suppressed
    # The log names no address: only what was done.
    log.info("an address was erased by the operator: %s", ", ".join(f"{k} {v}" for k, v in erased.items()))
    if not changed:
        return Done(False, "nothing left to erase for that address; it stays on the suppression list", erased)
    return Done(True, "erased: " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in erased.items())
                + "; the address is on the suppression list", erased)
