"""What the receiver asks of the database: is this a live address of the
service, and keep this message.  The SMTP/LMTP adapter
(:mod:`pbem.inbound.receiver`) is the only caller; both functions block, so it
runs them off its event loop."""

from __future__ import annotations

import hashlib
from email.parser import BytesHeaderParser
from email.policy import compat32
from functools import lru_cache
from typing import Any

from sqlalchemy import exists, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from ..core.context import Context
from ..core.db import session_scope
from .bounces import outbox_id_of_tag
from ..core.models import Inbound, InboundStatus, Outbox, ReplyToken, table_of
from ..core.tokens import digest
from . import addresses
from .addresses import AddressKind

#: The longest address kept (RFC 5321's path limit less its angle brackets).
MAX_ADDRESS = 254
MAX_KEY = 255


def accept_recipient(ctx: Context, recipient: str) -> bool:
    """Whether ``recipient`` is a live address of this service: a reply address
    whose token exists (used or not: a late reply is answered, kindly, by the
    worker; a made-up token is refused), a return path whose outbox row exists,
    or ``move@``/``talk@`` with the tag dropped.  Raises if the database cannot
    be asked (the receiver answers "try again later")."""
    if len(recipient) > MAX_ADDRESS:
        return False
    found = addresses.parse(recipient, addresses.domain(ctx.config))
    if found is None:
        return False
    return found.tag is None or known_tag(ctx, found)


def known_tag(ctx: Context, found: addresses.Recipient) -> bool:
    """Whether the tag of one of the service's addresses names something that
    exists: the reply token, or the outbox row of a return path."""
    if found.tag is None:
        return False
    if found.kind == AddressKind.BOUNCE:
        outbox_id = outbox_id_of_tag(found.tag, ctx.secret_key)
        if outbox_id is None:
            return False
        outbox = table_of(Outbox)
        query = select(exists().where(outbox.c.id == outbox_id))
    else:
        reply = table_of(ReplyToken)
        # Reply tokens are written in lower case (pbem.inbound.reply_tokens): so is the look-up.
        query = select(exists().where(reply.c.token_hash == digest(found.tag.lower())))
    with ctx.engine.connect() as conn:
        return bool(conn.execute(query).scalar())


def message_key(raw: bytes, recipient: str) -> str:
    """What makes a delivery the same as an earlier one: the Message-ID (or,
    without one, the whole message) and the recipient.  Per recipient, because
    one message may be meant for two of the service's addresses (a reply to the
    turn copied to the table) and each must be handled; a retry of either after
    a lost ``250`` finds its twin.

    >>> message_key(b"Message-ID:  <a@b>\\r\\n\\r\\nhi\\r\\n", "move@x")
    '<a@b> move@x'
    >>> message_key(b"Subject: hi\\r\\n\\r\\nhi\\r\\n", "move@x")[:7]
    'sha256:'
    """
    header = BytesHeaderParser(policy=compat32).parsebytes(raw, headersonly=True).get("Message-ID")
    message_id = " ".join(str(header or "").split())
    if not message_id:
        return "sha256:" + hashlib.sha256(recipient.encode() + b"\n" + raw).hexdigest()
    key = f"{message_id} {recipient}"
    # A key is kept as it came only if it is short, plain text (no 8-bit bytes
    # from a broken client, no control characters a database would refuse).
    if len(key) > MAX_KEY or not key.isascii() or not key.isprintable():
        return "sha256:" + hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()
    return key


@lru_cache(maxsize=None)
def _insert(dialect: str) -> Any:
    # As in pbem.core.outbox: one statement, built once per dialect; a twin is no error.
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    table = table_of(Inbound)
    return insert(table).on_conflict_do_nothing().returning(table.c.id)


def store(ctx: Context, recipient: str, sender: str, raw: bytes) -> int | None:
    """Keep one received message for one recipient, committed when this returns:
    the new row's id, or ``None`` if the same delivery was kept before.  Raises
    if it could not be kept (the receiver must then not say ``250``).
    ``sender``: the envelope sender, ``""`` for the null sender of a bounce."""
    with session_scope(ctx.engine) as session:
        conn = session.connection()
        new_id: int | None = conn.execute(_insert(conn.dialect.name), dict(
            message_key=message_key(raw, recipient), recipient=_printable(recipient),
            sender=_printable(sender), raw=raw, received_at=ctx.now(), status=InboundStatus.PENDING, attempts=0,
        )).scalar_one_or_none()
    return new_id


def _printable(address: str) -> str:
    """An envelope address as it can be stored (and compared with a seat's)."""
    return "".join(ch for ch in address if ch.isprintable())[:MAX_ADDRESS]
