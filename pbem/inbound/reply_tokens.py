"""Reply tokens and the addresses that carry them, and finding the turn a
reply answers.

A turn mail's ``Reply-To`` is ``move+TOKEN@{INBOUND_DOMAIN}``: a reply token
tied to one seat and one ply, derived (HMAC) from the secret key and a random
salt like a seat's token, of which only the salt and the SHA-256 are stored.
The turn mail's Message-ID is a random value of its own (it travels in every
forwarded header, so it carries no token); a reply whose client dropped the
``+tag`` still finds its turn through ``In-Reply-To``/``References`` (the
outbox row of that Message-ID, or, in mail sent before, the token the
Message-ID carried then), but a turn found only there moves nothing without
``INBOUND_TRUST``: anyone who saw the headers could write it, so the seat is
asked to confirm (``confirm:headers``).

Tokens are lower case: mail systems that fold the case of a local part (some
do, though they should not) still deliver a working address.  A token is 43
characters of ``[a-z0-9_-]`` made from 256 bits of HMAC over a salt of 128
random bits."""

from __future__ import annotations

import re
from email.message import Message
from email.utils import getaddresses
from typing import Any

from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from ..core import events, tokens
from ..core.context import Context
from ..core.models import Inbound, Outbox, ReplyToken, Seat, table_of
from ..core.outbox import OutboxKind
from . import addresses
from .addresses import AddressKind
from .received import MESSAGE_ID, header, headers

#: What reply tokens are derived for (a seat's token is derived for another).
PURPOSE = "reply"
#: The local part of a reply address: ``move+TOKEN``.
PREFIX = "move+"
#: The mails that carry a reply address (a seat's token) and keep a fingerprint of
#: what they said: those whose records in ``pbem.mail.kinds`` say ``carries_token``.
REMEMBERED_KINDS = frozenset({OutboxKind.TURN, OutboxKind.REMINDER, OutboxKind.REPLY_REFUSED, OutboxKind.TALK})

_TOKEN = r"[a-z0-9_-]{43}"
_RECIPIENT_TOKEN = re.compile(rf"(?:move|talk)\+({_TOKEN})", re.IGNORECASE)
#: The Message-IDs of mail sent before issue 27 carried the token: ``<TOKEN.turn.ID@host>``.
_ID_TOKEN = re.compile(rf"<({_TOKEN})\.[a-z-]{{1,20}}(?:\.[0-9]{{1,12}})?@[^<>\s]+>", re.IGNORECASE)
#: How many Message-IDs of ``In-Reply-To``/``References`` are looked at (the newest).
MAX_REFERENCES = 20


# -- the token --------------------------------------------------------------------


def inbound_domain(ctx: Context) -> str:
    """The domain of reply addresses (the receiver's: :func:`pbem.inbound.addresses.domain`)."""
    return addresses.domain(ctx.config)


def _derive(ctx: Context, salt: str) -> str:
    return tokens.derive(ctx.secret_key, PURPOSE, salt).lower()


def _upsert(dialect: str) -> Any:
    """Make the row unless it is there, and give its salt either way: the update
    on a conflict changes nothing, but makes RETURNING name the row that was
    there (DO NOTHING returns nothing), so a turn's token costs one statement."""
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    table = table_of(ReplyToken)
    statement = insert(table)
    return statement.on_conflict_do_update(
        index_elements=[table.c.seat_id, table.c.ply], set_={"seat_id": statement.excluded.seat_id},
    ).returning(table.c.token_salt)


_UPSERT = {dialect: _upsert(dialect) for dialect in ("postgresql", "sqlite")}


def reply_token(ctx: Context, session: Session, seat: Seat, ply: int) -> str:
    """The reply token of a seat's turn at ``ply``, made the first time it is
    asked for (in the caller's transaction; two workers asking at once get the
    same one)."""
    salt = tokens.new_salt()
    conn = session.connection()
    stored = conn.execute(_UPSERT[conn.dialect.name], dict(
        game_id=seat.game_id, seat_id=seat.id, ply=ply, token_salt=salt,
        token_hash=tokens.digest(_derive(ctx, salt)), created_at=ctx.now(), used_at=None)).scalar_one()
    return _derive(ctx, stored)


def reply_address(ctx: Context, token: str) -> str:
    """The ``Reply-To`` address of a token: ``move+TOKEN@domain``."""
    return addresses.address(AddressKind.MOVE, token, inbound_domain(ctx))


def talk_address(ctx: Context, token: str) -> str:
    """The ``Reply-To`` of a table-talk mail: ``talk+TOKEN@domain`` (the token
    names the seat; an answer there is posted to the table, never played)."""
    return addresses.address(AddressKind.TALK, token, inbound_domain(ctx))


def _by_token(session: Session, token: str) -> ReplyToken | None:
    token = token.lower()
    if not tokens.well_formed(token):
        return None
    return session.exec(select(ReplyToken).where(ReplyToken.token_hash == tokens.digest(token))).first()


def find_turn(session: Session, recipient_local: str | None, in_reply_to: str | None = None,
              references: str | None = None) -> ReplyToken | None:
    """The turn a reply answers: by its recipient, ``move+TOKEN`` (the local
    part, or the whole address), else by the newest Message-ID of
    ``In-Reply-To``, then ``References``, that is one of ours (see
    :func:`find_turn_by_ids`)."""
    local = (recipient_local or "").strip().strip("<>").rpartition("@")[0] or (recipient_local or "").strip()
    found = _RECIPIENT_TOKEN.fullmatch(local)
    if found:
        row = _by_token(session, found.group(1))
        if row is not None:
            return row
    return find_turn_by_ids(session, in_reply_to, references)


def find_turn_by_ids(session: Session, in_reply_to: str | None, references: str | None) -> ReplyToken | None:
    """The turn of the newest Message-ID of ``In-Reply-To``, then
    ``References``, that names a mail of ours with a reply address (its outbox
    row), or, in mail sent before Message-IDs had a value of their own, that
    carries a token."""
    ids = MESSAGE_ID.findall(in_reply_to or "")
    ids += list(reversed(MESSAGE_ID.findall(references or "")))
    for message_id in ids[:MAX_REFERENCES]:
        old = _ID_TOKEN.fullmatch(message_id)
        row = _by_token(session, old.group(1)) if old else _by_message_id(session, message_id)
        if row is not None:
            return row
    return None


def _by_message_id(session: Session, message_id: str) -> ReplyToken | None:
    """The turn whose reply address the outbox row of ``message_id`` carried:
    a turn mail's or reminder's ply, else (a refusal, table talk) the seat's
    newest token when it was sent."""
    sent = session.exec(select(Outbox).where(Outbox.message_id == message_id)).first()
    if sent is None or sent.seat_id is None or sent.kind not in REMEMBERED_KINDS:
        return None
    query = select(ReplyToken).where(ReplyToken.seat_id == sent.seat_id)
    if sent.kind in (OutboxKind.TURN, OutboxKind.REMINDER):
        ply = events.ply_of(sent.event)
        if ply is None:
            return None
        query = query.where(ReplyToken.ply == ply)
    elif sent.sent_at is not None:
        query = query.where(col(ReplyToken.created_at) <= sent.sent_at)
    return session.exec(query.order_by(col(ReplyToken.id).desc())).first()


def is_reply_address(session: Session, address: str) -> bool:
    """Whether ``address`` is one of our reply addresses (for the receiver's
    RCPT check).  Spent and stale ones count: a reply that comes too late is
    answered kindly by mail rather than bounced by the sender's server."""
    return find_turn(session, address) is not None


def turn_of(session: Session, inbound: Inbound, message: Message) -> tuple[ReplyToken | None, bool]:
    """The turn of a stored message: its envelope recipient, then the reply
    addresses it was written to, then the Message-IDs it answers; and whether
    it was found only by those Message-IDs (headers anyone who saw the mail
    could copy into a forged one)."""
    candidates = [inbound.recipient]
    for name in ("To", "Cc", "Delivered-To", "X-Original-To"):
        candidates += [address for _, address in getaddresses(headers(message, name))]
    for address in candidates[:20]:
        row = find_turn(session, address)
        if row is not None:
            return row, False
    row = find_turn_by_ids(session, header(message, "In-Reply-To"), header(message, "References"))
    return row, row is not None
