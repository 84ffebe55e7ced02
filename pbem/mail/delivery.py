"""Delivering one outbox row: claim it, check the world still wants it, build
it, send it, and mark it sent only once the server has accepted it.  What the
message says (and whether it is still wanted) is :mod:`pbem.mail.compose`."""

from __future__ import annotations

import logging
import random
import time
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select

from ..inbound import sent_mail
from ..inbound.bounces import return_path
from ..core.config import DEFAULTS
from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core import metrics
from ..table import push, webhooks
from ..core.models import DeliveryOutcome, Outbox, OutboxStatus, table_of
from ..core.outbox import OutboxKind
from ..core.queries import about_game
from . import push_http, webhook_http
from .compose import Postponed, compose
from .transport import PermanentFailure, Transport
from .push_posts import PushPost, compose_push
from .webhook_posts import Post, compose_post

log = logging.getLogger(__name__)

#: How long a claimed row is left alone before a sweep may try it again, by
#: default (PBEM_MAIL_LEASE_SECONDS).
LEASE = timedelta(seconds=DEFAULTS["MAIL_LEASE_SECONDS"])
#: A new row is the relay's for this long: beat's sweep hands on only older ones.
#: A row still queued behind a backlog of mail would otherwise be handed out
#: again at every sweep by every beat, and the copies lengthen the backlog
#: (bench hosts: two beats every second).  Retries and expired leases are due
#: at their own time, as before.
SWEEP_GRACE = timedelta(minutes=1)
MAX_ATTEMPTS = 12
#: A webhook's post is tried for longer than a mail: through the day of
#: failures after which the webhook is switched off (the backoff tops at an hour).
WEBHOOK_MAX_ATTEMPTS = 36
#: Pauses between tries to record a message as sent (seconds; well inside the
#: lease and the task's time limit).
MARK_SENT_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)


_OUTBOX = table_of(Outbox)
# Built once: every message runs them.
_CLAIM = (
    update(_OUTBOX)
    .where(_OUTBOX.c.id == bindparam("row_id"), _OUTBOX.c.status == OutboxStatus.PENDING,
           _OUTBOX.c.next_attempt_at <= bindparam("now"))
    .values(next_attempt_at=bindparam("lease_until"), attempts=_OUTBOX.c.attempts + 1)
    .returning(*_OUTBOX.c)
)
_UPDATE_ROW = update(_OUTBOX).where(_OUTBOX.c.id == bindparam("row_id"))


def lease(ctx: Context) -> timedelta:
    """How long a worker's claim on a row lasts here (PBEM_MAIL_LEASE_SECONDS)."""
    return timedelta(seconds=float(ctx.config.get("MAIL_LEASE_SECONDS", LEASE.total_seconds())))


def _claim(session: Session, outbox_id: int, now: datetime, lease: timedelta) -> Outbox | None:
    """Lease the row unless another worker holds it or it is done: the row with
    this attempt counted, or ``None``."""
    got = session.connection().execute(
        _CLAIM, {"row_id": outbox_id, "now": now, "lease_until": now + lease}).first()
    return None if got is None else Outbox(**got._mapping)


def deliver(ctx: Context, outbox_id: int, transport: Transport) -> DeliveryOutcome:
    """Deliver one message; returns what became of it: ``sent``, ``skipped``
    (the world moved on), ``busy`` (someone else has it), ``retry`` (a passing
    failure, tried again later), ``postponed`` (its reader is on their page:
    tried again once they have left, see :class:`~pbem.mail.compose.Postponed`)
    or ``failed`` (refused for good).

    The claim and the reading that builds the message share one transaction,
    committed before the message goes: the lease is taken whenever it is sent."""
    seen: dict[str, str] = {}
    outcome = _deliver(ctx, outbox_id, transport, seen)
    if "kind" in seen and outcome != DeliveryOutcome.BUSY:
        metrics.mail(seen["kind"], outcome)
    return outcome


def _deliver(ctx: Context, outbox_id: int, transport: Transport, seen: dict[str, str]) -> DeliveryOutcome:
    attempts: int | None = None
    game_row: int | None = None
    fingerprint: bytes | None = None
    leased = False
    # A webhook's row is a post (pbem.mail.webhook_posts), sent over HTTP.
    post: Post | None = None
    # A push's row is a post too (pbem.mail.push_posts), to a browser's push service.
    pushed: PushPost | None = None
    most = MAX_ATTEMPTS
    try:
        with session_scope(ctx.engine) as session:
            row = _claim(session, outbox_id, ctx.now(), lease(ctx))
            if row is None:
                return DeliveryOutcome.BUSY
            seen["kind"] = row.kind
            game_row = row.game_id
            attempts = row.attempts
            # Building the message is inside the try too: a database that went away
            # (or a message that cannot be built) is retried, and given up on after
            # MAX_ATTEMPTS like a server that keeps refusing.
            if row.kind == OutboxKind.WEBHOOK:
                most = WEBHOOK_MAX_ATTEMPTS
                post = compose_post(ctx, session, row)
                message = None
            elif row.kind == OutboxKind.PUSH:
                pushed = compose_push(ctx, session, row)
                message = None
            else:
                try:
                    message = compose(ctx, session, row)
                except Postponed as later:
                    # Not an attempt: the claim's count is given back.
                    _mark(session.connection(), outbox_id, next_attempt_at=later.until,
                          attempts=_OUTBOX.c.attempts - 1)
                    return DeliveryOutcome.POSTPONED
            if message is None and post is None and pushed is None:
                _mark(session.connection(), outbox_id, status=OutboxStatus.SKIPPED)
                return DeliveryOutcome.SKIPPED
        leased = True
        if post is not None:
            webhook_http.send(post, ctx.config)
        elif pushed is not None:
            push_http.send(pushed, ctx.config)
        else:
            assert message is not None
            # A mail with a reply address is kept as a fingerprint of what it
            # says, written with the mark that it went: a reply posts none of it
            # to the table (pbem.inbound.sent_mail).
            if message.get("Reply-To") is not None:
                fingerprint = sent_mail.fingerprint(ctx, message.subject, message.text_content(),
                                                    message.html_content())
            # VERP: a bounce names the row it is about (pbem.inbound.bounces reads it).
            transport.send(message, return_path=return_path(ctx.config, outbox_id))
    except PermanentFailure as e:
        _finish(ctx, outbox_id, OutboxStatus.FAILED, str(e)[:500])
        log.warning("outbox %s refused for good: %s", outbox_id, e, extra=about_game(ctx.engine, game_row))
        if post is not None:
            # The setter is told a category only, never what the receiver said.
            webhooks.failed(ctx, post.webhook_id, webhook_http.category(e))
        if pushed is not None and isinstance(e, push_http.PushGone):
            # The browser withdrew it, or it expired: forget it (the mail takes over).
            push.gone(ctx, pushed.seat_id, pushed.endpoint)
        return DeliveryOutcome.FAILED
    except Exception as e:  # noqa: BLE001 - any other failure is worth another try
        if attempts is None:
            raise  # not even claimed (the database is down): the task retries
        # A webhook failing for a day is switched off: its post goes no more.
        off = post is not None and webhooks.failed(ctx, post.webhook_id, webhook_http.category(e))
        status = OutboxStatus.FAILED if attempts >= most or off else OutboxStatus.PENDING
        # Failing before the commit undid the claim: count the attempt here.
        _finish(ctx, outbox_id, status, f"{e.__class__.__name__}: {e}"[:500],
                retry_at=ctx.now() + backoff(attempts), count_attempt=not leased)
        log.warning("outbox %s not delivered (attempt %s): %s", outbox_id, attempts, e,
                    extra=about_game(ctx.engine, game_row))
        return DeliveryOutcome.RETRY if status == OutboxStatus.PENDING else DeliveryOutcome.FAILED
    _mark_sent(ctx, outbox_id, fingerprint)
    if post is not None:
        webhooks.delivered(ctx, post.webhook_id)
    return DeliveryOutcome.SENT


def _mark_sent(ctx: Context, outbox_id: int, fingerprint: bytes | None) -> None:
    """The server has the message: record it (with its fingerprint, if it has a
    reply address), trying again through a short database outage (a restart, a
    fail-over).  Given up, the row would stay leased and the sweep would send the
    message a second time once the lease is over."""
    for delay in (*MARK_SENT_DELAYS, None):
        try:
            _finish(ctx, outbox_id, OutboxStatus.SENT, None, fingerprint=fingerprint)
            return
        except OperationalError as e:
            if delay is None:
                raise
            log.warning("outbox %s sent, but not yet marked (%s); trying again in %s s", outbox_id, e, delay)
            time.sleep(delay)


def backoff(attempts: int) -> timedelta:
    """Exponential with jitter: about 30 s, 1 min, 2 min, ... capped at an hour."""
    base = min(3600.0, 30.0 * 2 ** max(attempts - 1, 0))
    return timedelta(seconds=base * random.uniform(0.75, 1.25))


def _mark(conn: Connection, outbox_id: int, **values: Any) -> None:
    conn.execute(_UPDATE_ROW.values(**values), {"row_id": outbox_id})


def _finish(ctx: Context, outbox_id: int, status: OutboxStatus, error: str | None,
            retry_at: datetime | None = None, *, count_attempt: bool = False,
            fingerprint: bytes | None = None) -> None:
    values: dict[str, Any] = {"status": status, "last_error": error}
    if fingerprint is not None:
        values["fingerprint"] = fingerprint
    if status == OutboxStatus.SENT:
        values["sent_at"] = ctx.now()
    if retry_at is not None:
        values["next_attempt_at"] = retry_at
    if count_attempt:
        values["attempts"] = _OUTBOX.c.attempts + 1
    # One statement: a transaction on the engine, without an ORM session around it.
    with ctx.engine.begin() as conn:
        _mark(conn, outbox_id, **values)


def due(ctx: Context, limit: int = 200, *, grace: timedelta = timedelta(0)) -> list[int]:
    """Pending rows whose time has come (for the sweep), written more than
    ``grace`` ago."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        rows = session.exec(
            select(Outbox.id).where(Outbox.status == OutboxStatus.PENDING, col(Outbox.next_attempt_at) <= now,
                                    col(Outbox.created_at) <= now - grace)
            .order_by(col(Outbox.id)).limit(limit)
        ).all()
        return [r for r in rows if r is not None]


def next_attempt(ctx: Context, outbox_id: int) -> datetime | None:
    """When a pending row is to be tried again (``None`` once it is done)."""
    with session_scope(ctx.engine) as session:
        row = session.get(Outbox, outbox_id)
        if row is None or row.status != OutboxStatus.PENDING:
            return None
        return as_utc(row.next_attempt_at)
