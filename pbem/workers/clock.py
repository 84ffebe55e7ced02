"""The service's clock: everything that happens because time passed.

Deadlines live in the database (``Game.deadline``); nothing waits in a broker
for hours.  Each function here scans the database once, acts on what is due
and is safe to run any number of times, from any number of processes at once
(every change is guarded, every message is unique per cause):

- :func:`expire_deadlines` — the autopilot moves for a player whose time is up;
- :func:`send_reminders` — a reminder before a deadline, once per deadline;
- :func:`send_digests` — the daily digest for players who chose it;
- :func:`sweep_outbox` — hands on (or delivers) outbox rows left pending: the
  broker was down, a worker died, a lease expired, a retry fell due;
- :func:`sweep_inbound` — hands on (or handles) received mail left pending:
  the broker or the worker was down when it came, or its handling failed;
- :func:`prune` — retention: games nobody accepted expire, old sign-ins,
  delivered mail and caught mail are deleted.

:func:`tick` runs them all once, in-process (the demo calls it every few
seconds); Celery beat runs the same functions as tasks (``pbem.workers.tasks``).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterable

import sqlalchemy
from sqlalchemy import Table, and_, delete, func, or_, tuple_, update
from sqlalchemy.sql import ColumnElement
from sqlmodel import col, select

from pbem import games
from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..inbound import handling
from ..mail.delivery import SWEEP_GRACE, deliver, due, lease
from ..mail.transport import transport_for
from ..people import vacation
from ..core import events
from ..core.events import Event
from ..core.models import (CaughtMail, Game, GameStatus, HalfTurnMark, Inbound, InboundStatus, Login, MailChoice,
                           Outbox, OutboxStatus, ReplyToken, Seat, table_of)
from ..core.outbox import OutboxKind, enqueue, insert_rows, row_values
from ..core.queries import about_game, digest_news
from .daily_mail import send_daily

log = logging.getLogger(__name__)


def reminder_lead(turn_hours: int, reminder_hours: float) -> timedelta:
    """How long before a deadline its reminder goes: ``REMINDER_HOURS``, but
    never more than half the turn (a 24-hour turn is not reminded at once)."""
    return timedelta(hours=min(float(reminder_hours), turn_hours / 2))


def expire_deadlines(ctx: Context) -> list[int]:
    """Let the autopilot move in every game whose deadline has passed; returns
    the ids of the games it moved in."""
    now = ctx.now()
    game, seat = table_of(Game), table_of(Seat)
    with session_scope(ctx.engine) as session:
        # With each game its mover's address: a lapsed deadline spends a day of the
        # mover's vacation first, and their banks are read here all at once, not
        # one by one in each game's transaction.
        due = session.connection().execute(
            select(game.c.id, game.c.ply, game.c.vacation_off, seat.c.email)
            .outerjoin(seat, and_(seat.c.game_id == game.c.id, seat.c.position == game.c.turn_seat))
            .where(game.c.status == GameStatus.ACTIVE, game.c.deadline.is_not(None), game.c.deadline <= now)
            .order_by(game.c.deadline)
        ).all()
        banks = vacation.banks(session, [email for _, _, off, email in due if not off and email])
    moved = []
    for game_id, ply, _, _ in due:
        try:
            if games.autopilot_move(ctx, game_id, ply, banks) is not None:
                moved.append(game_id)
        except Exception:  # noqa: BLE001 - one broken game must not stop the clock for the others
            log.exception("autopilot failed in game %s at move %s", game_id, ply,
                          extra=about_game(ctx.engine, game_id))
    return moved


#: Reminders claimed and written per transaction: one claim, one look-up of the
#: seats and one insert for all of them (a minute brings a few dozen at 100,000
#: games; a backlog after the clock was down is split, each batch's locks held briefly).
REMIND_BATCH = 200


def send_reminders(ctx: Context) -> list[int]:
    """Remind each player to move whose deadline is near, once per deadline
    (``Game.reminded_for`` holds the deadline reminded for; a new deadline
    re-arms it).  Returns the outbox ids written."""
    now = ctx.now()
    hours = float(ctx.config["REMINDER_HOURS"])
    horizon = now + timedelta(hours=hours)
    with session_scope(ctx.engine) as session:
        # Only the columns the decision needs (not the snapshot), and only deadlines
        # not reminded yet: this runs every minute.  The deadline as long as it was
        # not reminded (null once it was) and its half-turn mark are what
        # ix_game_reminder_due indexes: written as the index's expressions, the
        # scan reads the few games due a reminder instead of every running game,
        # or every game of short turns whose deadline is within the next
        # REMINDER_HOURS (bench "clock").  The lead below decides; the mark only
        # leaves out games it would leave out.
        unreminded = func.nullif(col(Game.deadline), col(Game.reminded_for))
        games = session.connection().execute(
            sqlalchemy.select(col(Game.id), col(Game.ply), col(Game.turn_seat), col(Game.turn_hours),
                              col(Game.deadline))
            .where(col(Game.status) == GameStatus.ACTIVE, unreminded > now, unreminded <= horizon,
                   HalfTurnMark() <= now.astimezone(timezone.utc).replace(tzinfo=None))
        ).all()
        candidates: list[tuple[int, int, int | None, datetime]] = []
        for game_id, ply, turn_seat, turn_hours, when in games:
            deadline = as_utc(when)
            assert game_id is not None and deadline is not None
            if now < deadline - reminder_lead(turn_hours, hours):
                continue
            candidates.append((game_id, ply, turn_seat, deadline))
    written: list[int] = []
    for start in range(0, len(candidates), REMIND_BATCH):
        ids = _remind(ctx, candidates[start:start + REMIND_BATCH], now)
        ctx.relay(ids)
        written += ids
    return written


def _remind(ctx: Context, due: list[tuple[int, int, int | None, datetime]], now: datetime) -> list[int]:
    """Claim these reminders (game, ply, seat to move, deadline) and write the
    mail of those claimed, in one transaction; the outbox ids written."""
    game, seat = table_of(Game), table_of(Seat)
    with session_scope(ctx.engine) as session:
        conn = session.connection()
        # Only one clock may claim a reminder; a move or a pause since the scan
        # changes ply or deadline and the claim leaves that game out.  The rows
        # are locked in id order, so two clocks claiming overlapping batches
        # wait for each other instead of deadlocking.
        claimable = (
            select(game.c.id)
            .where(tuple_(game.c.id, game.c.ply, game.c.deadline).in_([(g, p, d) for g, p, _, d in due]),
                   game.c.status == GameStatus.ACTIVE,
                   or_(game.c.reminded_for.is_(None), game.c.reminded_for != game.c.deadline))
            .order_by(game.c.id).with_for_update()
        )
        claimed = set(conn.execute(
            update(game).where(game.c.id.in_(claimable)).values(reminded_for=game.c.deadline).returning(game.c.id)
        ).scalars())
        if not claimed:
            return []
        turn = {g: (p, s, d) for g, p, s, d in due if g in claimed}
        movers = conn.execute(
            select(seat.c.id, seat.c.game_id, seat.c.email, seat.c.mail)
            .where(tuple_(seat.c.game_id, seat.c.position).in_([(g, s) for g, (_, s, _) in turn.items()]))
        ).all()
        rows = []
        for seat_id, game_id, email, mail in movers:
            if mail == MailChoice.NONE or not email:  # mail off, or the computer's seat: nobody to remind
                continue
            ply, _, deadline = turn[game_id]
            rows.append(row_values(kind=OutboxKind.REMINDER, event=events.key(Event.REMIND, ply,
                                                                                int(deadline.timestamp())),
                                   recipient=email, base_url=ctx.base_url, now=now, game_id=game_id,
                                   seat_id=seat_id))
        return insert_rows(session, rows)


def digest_day(now: datetime) -> str:
    return now.date().isoformat()


def send_digests(ctx: Context) -> list[int]:
    """Once a day (after ``DIGEST_HOUR`` UTC), a digest to every player who chose
    ``mail = digest``, for each game in which something happened since their
    last digest.  At most one per player, game and day, however often it runs."""
    now = ctx.now()
    if now.hour < int(ctx.config["DIGEST_HOUR"]):
        return []
    day = digest_day(now)
    written: list[int] = []
    # The job runs every hour: seats that have today's digest already are left out
    # here (the outbox's unique key answers this), not looked at one by one.
    done_today = select(Outbox.id).where(
        col(Outbox.game_id) == col(Seat.game_id), Outbox.event == events.key(Event.DIGEST, day),
        col(Outbox.recipient) == col(Seat.email), Outbox.kind == OutboxKind.DIGEST)
    with session_scope(ctx.engine) as session:
        rows = session.exec(
            select(Seat, Game).join(Game, col(Game.id) == col(Seat.game_id))
            .where(Seat.mail == MailChoice.DIGEST, Game.status == GameStatus.ACTIVE, ~done_today.exists())
        ).all()
        for seat, game in rows:
            if session.exec(digest_news(session, seat, game).limit(1)).first() is None:
                continue
            row = enqueue(session, kind=OutboxKind.DIGEST, event=events.key(Event.DIGEST, day), recipient=seat.email,
                          base_url=ctx.base_url, now=now, game_id=game.id, seat_id=seat.id)
            if row is not None:
                written.append(row)
    ctx.relay(written)
    return written


def sweep_outbox(ctx: Context, *, handoff: Callable[[Iterable[int]], None] | None = None,
                 transport: Any = None) -> list[int]:
    """Every pending row whose time has come: handed to ``handoff`` (the relay
    to the workers, for beat), or delivered here and now (``tick``).  The claim
    with a lease in :func:`pbem.mail.delivery.deliver` keeps a row that a worker
    is sending from going twice.  Handing off, rows younger than
    :data:`~pbem.mail.delivery.SWEEP_GRACE` (or a lease, if shorter: a lost
    row is found within about a lease either way) are left to the relay."""
    grace = min(SWEEP_GRACE, lease(ctx)) if handoff is not None else timedelta(0)
    ids = due(ctx, grace=grace)
    if not ids:
        return []
    if handoff is not None:
        handoff(ids)
        return ids
    transport = transport or transport_for(ctx.config, ctx.engine)
    for outbox_id in ids:
        try:
            deliver(ctx, outbox_id, transport)
        except Exception:  # noqa: BLE001 - the row keeps its lease and is tried again later
            log.exception("sweep: outbox %s", outbox_id)
    return ids


def sweep_inbound(ctx: Context, *, handoff: Callable[[Iterable[int]], None] | None = None) -> list[int]:
    """Every received message still pending a minute after it came (or whose
    next try is due): handed to ``handoff`` (the relay to the workers, for
    beat), or handled here and now (``tick``).  The claim in
    :func:`pbem.inbound.handling.handle` keeps one from being handled twice."""
    ids = handling.due(ctx)
    if not ids:
        return []
    if handoff is not None:
        handoff(ids)
        return ids
    for inbound_id in ids:
        try:
            handling.handle(ctx, inbound_id)
        except Exception:  # noqa: BLE001 - the database blinked: the row is still pending
            log.exception("sweep: inbound %s", inbound_id)
    return ids


#: Rows :func:`prune` deletes per transaction: each batch holds its locks briefly.
PRUNE_BATCH = 500
#: Outbox statuses that are final (a row in one never goes back to pending).
DONE = (OutboxStatus.SENT, OutboxStatus.SKIPPED, OutboxStatus.FAILED)


def prune(ctx: Context, *, batch: int = PRUNE_BATCH) -> dict[str, int]:
    """Retention; returns how many games expired and how many rows of each
    table were deleted.

    - A game still ``invited`` ``INVITE_DAYS`` after it was created and after
      its last acceptance expires;
      its pending invitations are then skipped by delivery, not sent.
    - Done outbox rows (sent, skipped, failed) older than ``RETENTION_DAYS``
      go; pending rows never do.  A sent digest of a game still being played
      stays: the next digest reports the moves since it.
    - Sign-ins used or expired, created more than ``RETENTION_DAYS`` ago, go,
      except a browser session still live (used, not ended, used within
      ``SESSION_DAYS``) and any that an outbox row still names (the foreign
      key; such a row is pending, and the sign-in goes once it is done), and
      the newest sign-in of all (so that SQLite never reuses an id).
    - Caught mail (the demo's mailbox) older than ``RETENTION_DAYS`` goes.
    - Received mail (replies, bounces) handled more than ``RETENTION_DAYS`` ago
      goes, unless its answer is still waiting to be sent (the answer is
      worded from it).
    - Reply addresses (``move+TOKEN@``, ``talk+TOKEN@``) of games over
      (finished, cancelled, expired), made and last used more than
      ``RETENTION_DAYS`` ago, go: a reply that late is refused by the mail
      server instead of answered.  They are most of what a finished game
      keeps (one per turn: bench "cost").

    Every statement is guarded by its own condition, so several processes may
    prune at once and running it again changes nothing more."""
    now = ctx.now()
    cutoff = now - timedelta(days=int(ctx.config["RETENTION_DAYS"]))
    session_since = now - timedelta(days=int(ctx.config["SESSION_DAYS"]))
    game, outbox, login = table_of(Game), table_of(Outbox), table_of(Login)
    invite_cutoff = now - timedelta(days=int(ctx.config["INVITE_DAYS"]))
    seat = table_of(Seat)
    # Counted from the last acceptance too: the creator's confirmation sends the
    # others their invitations, and they get the full INVITE_DAYS to answer.
    accepted_lately = select(seat.c.id).where(seat.c.game_id == game.c.id, seat.c.accepted_at >= invite_cutoff)
    with ctx.engine.begin() as conn:
        expired = conn.execute(
            update(game).where(game.c.status == GameStatus.INVITED, game.c.created_at < invite_cutoff,
                               ~accepted_lately.exists())
            .values(status=GameStatus.EXPIRED)
        ).rowcount
    # The outbox first: sign-ins whose mail is deleted here are free to go below.
    active_games = select(game.c.id).where(game.c.status == GameStatus.ACTIVE)
    mail = _delete_batches(ctx, outbox, and_(
        outbox.c.status.in_(DONE), func.coalesce(outbox.c.sent_at, outbox.c.created_at) < cutoff,
        ~and_(outbox.c.kind == OutboxKind.DIGEST, outbox.c.status == OutboxStatus.SENT,
              outbox.c.game_id.in_(active_games)),
    ), batch)
    live = and_(login.c.used_at.is_not(None), login.c.ended_at.is_(None), login.c.used_at > session_since)
    logins = _delete_batches(ctx, login, and_(
        login.c.created_at < cutoff, or_(login.c.used_at.is_not(None), login.c.expires_at <= now), ~live,
        login.c.id.not_in(select(outbox.c.login_id).where(outbox.c.login_id.is_not(None))),
        # SQLite hands the highest id out again once its row is gone: keeping the
        # newest sign-in means no new one ever gets the id of one deleted (which
        # a session cookie may still name).
        login.c.id < select(func.max(login.c.id)).scalar_subquery(),
    ), batch)
    caught = table_of(CaughtMail)
    caught_mail = _delete_batches(ctx, caught, caught.c.created_at < cutoff, batch)
    inbound = table_of(Inbound)
    answer_waits = select(outbox.c.id).where(
        outbox.c.status == OutboxStatus.PENDING, outbox.c.event == events.key_sql(Event.INBOUND, inbound.c.id))
    received = _delete_batches(ctx, inbound, and_(
        inbound.c.status == InboundStatus.DONE, inbound.c.handled_at < cutoff, ~answer_waits.exists()), batch)
    reply = table_of(ReplyToken)
    # A running game keeps all of its own: table talk's reply address is the token
    # of the turn its mail was written at, and answers to it post for the game's life.
    running = select(game.c.id).where(game.c.id == reply.c.game_id, game.c.status == GameStatus.ACTIVE)
    replies = _delete_batches(ctx, reply, and_(
        func.coalesce(reply.c.used_at, reply.c.created_at) < cutoff, ~running.exists()), batch)
    return {"games_expired": int(expired), "logins_deleted": logins, "outbox_deleted": mail,
            "caught_mail_deleted": caught_mail, "inbound_deleted": received, "reply_tokens_deleted": replies}


def _delete_batches(ctx: Context, table: Table, condition: ColumnElement[bool], batch: int) -> int:
    """Delete the rows that meet ``condition``, ``batch`` at a time in id order,
    each batch in a transaction of its own; returns how many went.  A row that
    another pruner holds is skipped (PostgreSQL; SQLite has one writer anyway)."""
    deleted, after = 0, 0
    while True:
        chosen = (select(table.c.id).where(table.c.id > after, condition).order_by(table.c.id).limit(batch)
                  .with_for_update(skip_locked=True))
        with ctx.engine.begin() as conn:
            ids = conn.execute(delete(table).where(table.c.id.in_(chosen)).returning(table.c.id)).scalars().all()
        deleted += len(ids)
        if len(ids) < batch:
            return deleted
        after = max(ids)


def tick(ctx: Context, *, transport: Any = None) -> dict[str, int]:
    """All periodic work, once, in this process: deadlines, reminders, digests,
    retention (before the sweep, so that no invitation of a game expiring now
    goes), received mail left pending, then the outbox sweep.  Returns how much of each it did."""
    moved = expire_deadlines(ctx)
    reminded = send_reminders(ctx)
    digests = send_digests(ctx)
    daily = send_daily(ctx)
    pruned = prune(ctx)
    # Received mail first: the answers it writes go out in the same tick.
    received = sweep_inbound(ctx)
    swept = sweep_outbox(ctx, transport=transport)
    return {"autopilot": len(moved), "reminders": len(reminded), "digests": len(digests), "daily": len(daily),
            "swept": len(swept),
            "inbound": len(received), **pruned}
