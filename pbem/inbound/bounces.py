"""Mail that comes back.  Every message goes out with the envelope sender
``bounce+<tag>@{INBOUND_DOMAIN}`` (VERP), so a delivery status notification
names the outbox row it is about, and through it the address.

The tag is the outbox id encrypted under a key derived from the secret key (one
AES block: 26 letters and digits, :func:`bounce_tag`), so that no return path
tells how many messages the service has sent, or lets anyone walk through its
rows.  Return paths of mail sent before carry the plain id, ``bounce+<id>@``:
they are still read.

A hard failure (``Action: failed`` with a 5.x.x status) marks the address as
bouncing at once; soft ones (4.x.x, ``Action: delayed``) after
:data:`SOFT_LIMIT` of them within the retention window.  A bouncing address
gets no more mail (:func:`pbem.people.reachability.is_unreachable`, checked when a message
is built), the other players see "we can't reach X by email" on their seat
pages, and are told once by an ``unreachable`` mail (in a game still gathering
players, only the one who started it).  A bounce is never answered, and a later
delivery does not clear the mark (a delivery the server accepts proves little).
Bounces count for the address as written (not its mailbox, as the never-mail
list does): a provider may refuse ``ann+tag@`` and deliver ``ann@``.

A bounce counts only if it quotes the original message's Message-ID (a DSN
returns the message or its headers), which nobody but the recipient's mail
servers saw: an old plain-id return path is easy to guess.

>>> tag = bounce_tag("key", 42)
>>> len(tag), tag.isalnum(), outbox_id_of(f"bounce+{tag}@in.example", "key"), outbox_id_of("bounce+42@x", "key")
(26, True, 42, 42)
>>> outbox_id_of(f"bounce+{tag}@in.example", "another key") is None
True
"""

from __future__ import annotations

import base64
import binascii
import email
import email.policy
import hashlib
import hmac
import logging
import re
from datetime import datetime, timedelta
from email.message import Message
from enum import StrEnum
from typing import Any, Iterator, Mapping

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from sqlalchemy import or_
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from . import addresses
from .addresses import AddressKind
from .outcomes import Outcome
from ..core.context import Context
from ..core.logs import shown_address
from ..core.db import as_utc, session_scope
from ..core import events
from ..core.events import Event
from ..core.models import RUNNING, Bounce, Game, GameStatus, Inbound, InboundStatus, Outbox, Seat, table_of
from ..core.outbox import OutboxKind, enqueue
from ..people.players import address_hash

log = logging.getLogger(__name__)

#: Soft bounces (each for a different message) that make an address bouncing.
SOFT_LIMIT = 3
#: The local part of bounce addresses, before the ``+``.
LOCAL = AddressKind.BOUNCE
#: Outcomes of :func:`handle_bounce` (the inbound row's ``outcome``).
HARD, SOFT, UNKNOWN = Outcome.BOUNCE_HARD, Outcome.BOUNCE_SOFT, Outcome.BOUNCE_UNKNOWN

#: ``bounce+<tag>@``: the encrypted id (26 base32 characters), or a plain id (mail sent before).
_ADDRESS = re.compile(rf"{LOCAL}\+([a-z2-7]{{26}}|[0-9]{{1,18}})@[^@\s]+", re.IGNORECASE)
#: An enhanced status code (RFC 3463): class, subject, detail.
_STATUS = re.compile(r"(?<![\w.])([245])\.\d{1,3}\.\d{1,3}(?![\w.])")
#: What an encrypted block starts with: a block that does not is no tag of ours.
_MARK = bytes(8)


def _cipher(secret_key: str) -> Cipher[modes.ECB]:
    # One 16-byte block, encrypted alone: AES as a keyed permutation of ids
    # (there is no second block for ECB to give away a pattern across).
    key = hmac.new(secret_key.encode(), b"pbem bounce tag", hashlib.sha256).digest()
    return Cipher(algorithms.AES(key), modes.ECB())


def bounce_tag(secret_key: str, outbox_id: int) -> str:
    """The return path's tag of an outbox row: its id, encrypted."""
    encryptor = _cipher(secret_key).encryptor()
    block = encryptor.update(_MARK + outbox_id.to_bytes(8, "big")) + encryptor.finalize()
    return base64.b32encode(block).decode().rstrip("=").lower()


def _decrypt(secret_key: str, tag: str) -> int | None:
    try:
        block = base64.b32decode(tag.upper() + "======")
    except (binascii.Error, ValueError):
        return None
    if len(block) != 16:
        return None
    decryptor = _cipher(secret_key).decryptor()
    plain = decryptor.update(block) + decryptor.finalize()
    return int.from_bytes(plain[8:], "big") if hmac.compare_digest(plain[:8], _MARK) else None


def return_path(config: Mapping[str, Any], outbox_id: int) -> str:
    """The envelope sender of the outbox row's message."""
    return addresses.address(LOCAL, bounce_tag(str(config["SECRET_KEY"]), outbox_id), addresses.domain(config))


def outbox_id_of(address: str, secret_key: str) -> int | None:
    """The outbox id a bounce address names (``None`` if it is none of ours)."""
    found = _ADDRESS.fullmatch(address.strip().strip("<>"))
    if found is None:
        return None
    return outbox_id_of_tag(found.group(1), secret_key)


def outbox_id_of_tag(tag: str, secret_key: str) -> int | None:
    """The outbox id a bounce address's tag names: the tag decrypted, or an old plain id."""
    return int(tag) if tag.isdigit() else _decrypt(secret_key, tag)


# -- reading a bounce (pure) ---------------------------------------------------


def _own_parts(part: Message) -> Iterator[Message]:
    """The report's own parts, not those of the message it returns (which is
    our own text, and may contain anything)."""
    yield part
    if part.get_content_maintype() == "message":
        return
    if part.is_multipart():
        for sub in part.get_payload():
            assert isinstance(sub, Message)
            yield from _own_parts(sub)


class Severity(StrEnum):
    """How badly a delivery failed: for good (5.x.x), or for now (4.x.x, or delayed)."""

    HARD = "hard"
    SOFT = "soft"


def _severity(code: str) -> Severity | None:
    return {"5": Severity.HARD, "4": Severity.SOFT}.get(code[:1])


def classify(message: Message) -> tuple[Severity | None, str]:
    """What a bounce says of the delivery: :class:`Severity` or ``None``
    (not a failure: a success notice, an auto-reply, anything else), and the
    status in a few words.

    A standard report (``multipart/report; report-type=delivery-status``) is
    read per recipient: ``Action: failed`` with a 5.x.x status (or none) is
    hard, with 4.x.x (given up after retrying) soft, and ``Action: delayed``
    soft.  Other bounces are read for an enhanced status code in their text."""
    worst: tuple[Severity | None, str] = (None, "")
    reports = [p for p in _own_parts(message) if p.get_content_type() == "message/delivery-status"]
    for report in reports:
        blocks = report.get_payload()
        for block in blocks[1:] if isinstance(blocks, list) else []:
            if not isinstance(block, Message):
                continue
            action = str(block.get("Action", "")).strip().lower()
            found = _STATUS.search(str(block.get("Status", "")))
            code = found.group(0) if found else ""
            if action == "failed":
                severity = _severity(code) if code else Severity.HARD
            elif action == "delayed":
                severity = Severity.SOFT
            else:
                continue  # delivered, relayed, expanded
            said = " ".join(f"{code} {block.get('Diagnostic-Code', '')}".split())
            if worst[0] != Severity.HARD:
                worst = (severity, said)
    if reports:
        return worst
    codes = [m.group(0) for part in _own_parts(message)
             if part.get_content_maintype() == "text" and part.get_content_type() != "text/rfc822-headers"
             for m in _STATUS.finditer(_text_of(part))]
    for wanted in "54":
        for code in codes:
            if code[0] == wanted:
                return _severity(code), code
    return None, ""


def _text_of(part: Message) -> str:
    """A leaf part's text, decoded as well as it can be (never an error)."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    try:
        return payload.decode(part.get_content_charset() or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return payload.decode("latin-1")


def quotes(message: Message, raw: bytes, message_id: str) -> bool:
    """Whether the bounce returns the message with this Message-ID (in its
    returned headers or message, encoded or not)."""
    token = message_id.strip().strip("<>")
    if not token:
        return False
    if token.encode() in raw:
        return True
    return any(token in _text_of(part) for part in message.walk()
               if not part.is_multipart() and part.get_content_maintype() in ("text", "message"))


# -- recording it -------------------------------------------------------------


def handle_bounce(ctx: Context, inbound_id: int) -> str:
    """Read the stored message ``inbound_id`` (to ``bounce+ID@``), record what it
    says of the address its outbox row went to, and mark the inbound row done.
    Returns ``bounce-hard``, ``bounce-soft`` or ``bounce-unknown`` (not a
    failure, not ours, or for a row that is gone).  Running it twice for one
    row records it once.  Nothing is ever sent to the bounce's sender."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        inbound = session.get(Inbound, inbound_id)
        if inbound is None:
            return UNKNOWN
        if inbound.status == InboundStatus.DONE and inbound.outcome in (HARD, SOFT, UNKNOWN):
            return inbound.outcome
        outcome, outbox = _record(ctx, session, inbound, now)
        inbound.status, inbound.outcome, inbound.handled_at = InboundStatus.DONE, outcome, now
        session.add(inbound)
    ctx.relay(outbox)
    return outcome


def _record(ctx: Context, session: Session, inbound: Inbound, now: datetime) -> tuple[str, list[int | None]]:
    outbox_id = outbox_id_of(inbound.recipient, ctx.secret_key)
    row = session.get(Outbox, outbox_id) if outbox_id is not None else None
    if row is None or outbox_id is None:
        log.info("inbound %s: a bounce for no outbox row we have (%s)", inbound.id, shown_address(inbound.recipient))
        return UNKNOWN, []
    message = email.message_from_bytes(inbound.raw, policy=email.policy.default)
    if not quotes(message, inbound.raw, row.message_id):
        log.warning("inbound %s: a bounce for outbox %s that does not quote its Message-ID: ignored",
                    inbound.id, outbox_id)
        return UNKNOWN, []
    severity, said = classify(message)
    if severity is None:
        return UNKNOWN, []
    bounce = _bounce_row(session, address_hash(row.recipient), now)
    was_bouncing = bounce.bouncing_at is not None
    bounce.last_status = said[:200] or None
    if severity == Severity.HARD:
        bounce.bouncing_at = bounce.bouncing_at or now
    elif not _counted_before(ctx, session, inbound, outbox_id):
        window = timedelta(days=int(ctx.config["RETENTION_DAYS"]))
        created = as_utc(bounce.created_at)
        if not was_bouncing and created is not None and created < now - window:
            # The count starts again: soft bounces far apart are a bad day, not a dead mailbox.
            bounce.soft, bounce.created_at = 0, now
        bounce.soft += 1
        if bounce.soft >= SOFT_LIMIT:
            bounce.bouncing_at = bounce.bouncing_at or now
    session.add(bounce)
    outbox: list[int | None] = []
    if not was_bouncing and bounce.bouncing_at is not None:
        log.info("outbox %s bounced (%s): the address is now unreachable", outbox_id, said)
        outbox = _tell_the_others(ctx, session, row.recipient, now)
    return (HARD if severity == Severity.HARD else SOFT), outbox


def _bounce_row(session: Session, digest: str, now: datetime) -> Bounce:
    """The address's row, created if need be, locked for this transaction (two
    bounces handled at once count twice, not once)."""
    conn = session.connection()
    insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    conn.execute(insert(table_of(Bounce)).values(address_hash=digest, soft=0, created_at=now)
                 .on_conflict_do_nothing())
    return session.exec(select(Bounce).where(Bounce.address_hash == digest).with_for_update()).one()


def _counted_before(ctx: Context, session: Session, inbound: Inbound, outbox_id: int) -> bool:
    """Whether a soft bounce for the same message was counted already (a delay
    warning, then the report that the server gave up): one message, one count.
    Its return path is the row's tag (or, sent before tags, its plain id)."""
    return session.exec(select(Inbound.id).where(
        col(Inbound.id) != inbound.id, Inbound.outcome == SOFT,
        or_(col(Inbound.recipient).ilike(f"{LOCAL}+{bounce_tag(ctx.secret_key, outbox_id)}@%"),
            col(Inbound.recipient).ilike(f"{LOCAL}+{outbox_id}@%")))).first() is not None


def _tell_the_others(ctx: Context, session: Session, address: str, now: datetime) -> list[int | None]:
    """An ``unreachable`` mail about the address, to the people its games wait
    on it for: in a game that has started, every other player; in one that is
    still gathering players, the one who started it (positions are dealt anew
    at the start, so before it seat 0 is theirs), who can check the address."""
    games = session.exec(select(Seat, Game).join(Game, col(Game.id) == col(Seat.game_id)).where(
        Seat.email == address, col(Game.status).in_(RUNNING))).all()
    outbox: list[int | None] = []
    for bouncing, game in games:
        others = session.exec(select(Seat).where(Seat.game_id == game.id, col(Seat.id) != bouncing.id)
                              .order_by(col(Seat.position))).all()
        if game.status == GameStatus.INVITED:
            others = [s for s in others if s.position == 0]
        # The event names the bouncing seat (an address's hash would not fit the column).
        outbox += [enqueue(session, kind=OutboxKind.UNREACHABLE, event=events.key(Event.UNREACHABLE, bouncing.id),
                           recipient=s.email, seat_id=s.id, base_url=ctx.base_url, now=now, game_id=game.id)
                   for s in others]
    return outbox
