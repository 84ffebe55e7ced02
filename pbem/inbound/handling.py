"""Handling a received message (an :class:`pbem.core.models.Inbound` row): claim it,
act on it by the address it came to, record what became of it.

The Celery task ``pbem.inbound.handle`` runs :func:`handle` for each message
the receiver stored; the sweep (:func:`due`, run by beat and by the demo's tick)
hands on any still pending a minute later, so nothing is lost when the broker
or the worker was down.

While a row is ``pending``, ``handled_at`` is the time before which nobody may
take it: the lease of whoever is handling it, or the time of the next try after
a failure.  Once ``done`` it is when that happened, and ``outcome`` says what it
did (``on_*`` return it).

Before a message is parsed, two cheap checks: its MIME structure is within
the bounds of :mod:`pbem.inbound.structure` (the receiver refuses one that is
not, but a row may have been stored before; outcome ``refused:structure:<why>``),
and it is addressed to something that exists — the token or the return path's
row of its address, or for a tag-less ``move@``/``talk@`` a token in the
addresses or Message-IDs of its header (read alone, the receiver bounds its
size); else ``ignored-unknown``.  A message whose handling runs out of time
(``time_limit``, the task's soft time limit) is not tried again: outcome
``failed:time-limit``."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import getaddresses

from sqlalchemy import bindparam, or_, update
from sqlmodel import Session, col, select

from ..core.context import Context
from ..core.logs import shown_address
from ..core.db import session_scope
from . import bounces, replies, reply_tokens
from ..core import metrics
from ..core.models import Inbound, InboundStatus, table_of
from . import addresses, outcomes, structure
from .addresses import AddressKind
from .outcomes import Outcome
from .store import known_tag

log = logging.getLogger(__name__)

#: How long a claimed message is left alone before the sweep may hand it on again.
LEASE = timedelta(minutes=5)
#: How long the sweep leaves a new message to the task the receiver handed it to.
GRACE = timedelta(minutes=1)
#: Tries before a message that keeps failing is given up on (outcome ``failed``).
MAX_ATTEMPTS = 6

_INBOUND = table_of(Inbound)
_CLAIM = (
    update(_INBOUND)
    .where(_INBOUND.c.id == bindparam("row_id"), _INBOUND.c.status == InboundStatus.PENDING,
           or_(_INBOUND.c.handled_at.is_(None), _INBOUND.c.handled_at <= bindparam("now")))
    .values(handled_at=bindparam("lease_until"), attempts=_INBOUND.c.attempts + 1)
    .returning(*_INBOUND.c)
)


def handle(ctx: Context, inbound_id: int, *, time_limit: tuple[type[BaseException], ...] = ()) -> str:
    """Handle one received message, at most once: its outcome, or what kept it
    from being handled now (``busy``: someone else has it, or its next try is
    not due; ``done``: handled before; ``missing``; ``retry``: it failed and is
    tried again later; ``failed``: it kept failing and was given up on).

    The claim is a transaction of its own; the handler then runs in a fresh one
    that also marks the row done, so that what the handler writes with its
    session and the mark commit together, and a failure leaves the row pending."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        got = session.connection().execute(
            _CLAIM, {"row_id": inbound_id, "now": now, "lease_until": now + LEASE}).first()
        if got is None:
            status = session.exec(select(Inbound.status).where(Inbound.id == inbound_id)).first()
            return Outcome.MISSING if status is None else Outcome.DONE if status == InboundStatus.DONE else Outcome.BUSY
    row = Inbound(**got._mapping)
    try:
        with session_scope(ctx.engine) as session:
            outcome = (_before_parsing(ctx, row) or dispatch(ctx, session, row))[:outcomes.MAX_OUTCOME]
            _finish(session, inbound_id, outcome, ctx.now())
    except time_limit:
        log.error("inbound %s: handling ran out of time; given up (not tried again)", inbound_id)
        outcome = outcomes.outcome(Outcome.FAILED, outcomes.TIME_LIMIT)
        _give_up(ctx, inbound_id, outcome)
        metrics.inbound(Outcome.FAILED)
        return outcome
    except Exception:  # noqa: BLE001 - one bad message must not stop the others; the log says why
        log.exception("inbound %s: handling failed (attempt %s of %s)", inbound_id, row.attempts, MAX_ATTEMPTS)
        later = _later(ctx, inbound_id, row.attempts, now)
        metrics.inbound(outcomes.word_of(later))
        return later
    log.info("inbound %s to %s: %s", inbound_id, shown_address(row.recipient), outcome)
    metrics.inbound(outcomes.word_of(outcome))
    return outcome


def _finish(session: Session, inbound_id: int, outcome: str, now: datetime) -> None:
    session.connection().execute(
        update(_INBOUND).where(_INBOUND.c.id == inbound_id, _INBOUND.c.status == InboundStatus.PENDING)
        .values(status=InboundStatus.DONE, outcome=outcome, handled_at=now))


def _give_up(ctx: Context, inbound_id: int, outcome: str) -> None:
    try:
        with session_scope(ctx.engine) as session:
            _finish(session, inbound_id, outcome, ctx.now())
    except Exception:  # noqa: BLE001 - the lease stands in for it
        log.exception("inbound %s: could not record that it was given up", inbound_id)


#: The fields of a message's own header where the address of a turn may be found.
_ADDRESS_FIELDS = ("To", "Cc", "Delivered-To", "X-Original-To")
#: At most this many addresses of them are looked up.
MAX_ADDRESSES = 20


def _before_parsing(ctx: Context, row: Inbound) -> str | None:
    """The outcome of a message that is not to be parsed at all (see the module's
    text), or ``None``."""
    found = structure.problem(row.raw)
    if found is not None:
        log.warning("inbound %s: not read, its structure is too complex (%s)", row.id, found)
        return outcomes.outcome(Outcome.REFUSED, outcomes.STRUCTURE, found)
    recipient = addresses.parse_local(row.recipient.rpartition("@")[0])
    if recipient is None:
        return None  # dispatch says so
    if recipient.tag is not None:
        return None if known_tag(ctx, recipient) else Outcome.IGNORED_UNKNOWN
    # Only the message's own header: the receiver refused one over 32 KB.
    header = BytesHeaderParser(policy=compat32).parsebytes(row.raw, headersonly=True)
    candidates: list[str] = []
    for name in _ADDRESS_FIELDS:
        candidates += [a for _, a in getaddresses([str(v) for v in header.get_all(name) or []]) if a]
    with session_scope(ctx.engine) as session:
        for address in candidates[:MAX_ADDRESSES]:
            if reply_tokens.find_turn(session, address) is not None:
                return None
        if reply_tokens.find_turn(session, None, str(header.get("In-Reply-To") or ""),
                                  str(header.get("References") or "")) is not None:
            return None
    return Outcome.IGNORED_UNKNOWN


def _later(ctx: Context, inbound_id: int, attempts: int, now: datetime) -> str:
    """After a failed try: the next one after a pause that doubles each time
    (or give up); the sweep makes it.  If even this cannot be written, the
    claim's lease brings the row back."""
    try:
        with session_scope(ctx.engine) as session:
            if attempts >= MAX_ATTEMPTS:
                _finish(session, inbound_id, Outcome.FAILED, now)
                log.error("inbound %s: given up after %s attempts", inbound_id, attempts)
                return Outcome.FAILED
            session.connection().execute(
                update(_INBOUND).where(_INBOUND.c.id == inbound_id, _INBOUND.c.status == InboundStatus.PENDING)
                .values(handled_at=now + min(GRACE * 2 ** attempts, timedelta(hours=2))))
    except Exception:  # noqa: BLE001 - the lease stands in for it
        log.exception("inbound %s: could not record the failed attempt", inbound_id)
    return Outcome.RETRY


def due(ctx: Context, *, limit: int = 500) -> list[int]:
    """The messages still pending that the sweep should hand on: received more
    than :data:`GRACE` ago (before that the receiver's own hand-off has them)
    and not leased or waiting for a later try."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        ids = session.exec(
            select(col(Inbound.id)).where(
                Inbound.status == InboundStatus.PENDING, col(Inbound.received_at) <= now - GRACE,
                or_(col(Inbound.handled_at).is_(None), col(Inbound.handled_at) <= now))
            .order_by(col(Inbound.id)).limit(limit)
        ).all()
    return [i for i in ids if i is not None]


def dispatch(ctx: Context, session: Session, row: Inbound) -> str:
    """Act on a message by the address it came to; its outcome."""
    found = addresses.parse_local(row.recipient.rpartition("@")[0])
    if found is None:
        # Accepted at RCPT, so only a changed configuration gets here.
        return Outcome.UNKNOWN_RECIPIENT
    if found.kind == AddressKind.BOUNCE:
        return on_bounce(ctx, session, row)
    if found.kind == AddressKind.TALK:
        return on_talk(ctx, session, row)
    return on_reply(ctx, session, row)


# Each handler below runs inside the
# transaction that marks the row done (``session``): what it writes there
# commits with that mark, and if it raises nothing of it is kept and the row is
# tried again later.  On SQLite a service call that opens a transaction of its
# own must come before the first use of ``session`` (one writer at a time).
# Each returns a short outcome (at most 64 characters) stored on the row.


def on_reply(ctx: Context, session: Session, row: Inbound) -> str:
    """A reply to a turn mail (``move+TOKEN@``, or ``move@`` with the tag
    dropped: the turn is found through ``In-Reply-To``/``References``):
    :func:`pbem.inbound.replies.handle_reply` plays it as the page would and answers
    (its own transactions, which also mark the message done, before
    ``session`` is used)."""
    assert row.id is not None  # a stored row
    return replies.handle_reply(ctx, row.id)


def on_talk(ctx: Context, session: Session, row: Inbound) -> str:
    """A reply to a table-talk mail (``talk+TOKEN@``, or ``talk@``): its text is
    posted to the table (:func:`pbem.inbound.replies.handle_talk`, as above)."""
    assert row.id is not None  # a stored row
    return replies.handle_talk(ctx, row.id)


def on_bounce(ctx: Context, session: Session, row: Inbound) -> str:
    """Mail to the return path of outbox row ``ID`` (``bounce+ID@``): the
    delivery report counts against the row's recipient (:mod:`pbem.inbound.bounces`,
    which records it and marks the message done in one transaction of its own,
    before ``session`` is used)."""
    assert row.id is not None  # a stored row
    return bounces.handle_bounce(ctx, row.id)
