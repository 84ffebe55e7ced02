"""Playing by replying to the turn mail.

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

Nothing of what the service sent reaches the table from a reply: each mail
with a reply address keeps a fingerprint of what it said (:func:`remember`),
and the talk is cut at the first run of it (:func:`sent_to`,
:func:`pbem.inbound.reading.guard`), its token links and secret-clan lines
dropped; the answer says so.

:func:`handle_reply` handles one stored :class:`~pbem.core.models.Inbound` message:
automatic mail is never answered; a reply from the seat's own address (and,
with ``INBOUND_TRUST=authres:<id>``, with a DMARC or aligned SPF/DKIM pass from
that server) has its first line played through :func:`games.submit_move`,
the page's own call, guarded by the token's ply; the rest of its fresh text
goes to the table talk.  Every other reply is answered: ``reply-accepted``,
``reply-refused`` (why, and what can be played now) or, when the sender is not
sure to be the seat, ``reply-confirm`` (a link to confirm the move on the page;
nothing is played).  What the answer says is worked out again from the stored
message when it is built (:func:`answer`): the reading is pure, and the
outcome stored with the message says what was done.

Tokens are lower case: mail systems that fold the case of a local part (some
do, though they should not) still deliver a working address.  A token is 43
characters of ``[a-z0-9_-]`` made from 256 bits of HMAC over a salt of 128
random bits."""

from __future__ import annotations

import email
import functools
import logging
import email.policy
import json
import re
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr
from typing import Any, Iterable
from urllib.parse import urlencode, urlsplit

from publicsuffixlist import PublicSuffixList

from sqlalchemy import update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from ..core import errors, tokens
from .. import rules
from ..core.context import Context
from ..words.language import LANGUAGES
from ..core.db import session_scope
from . import addresses, reading
from .addresses import AddressKind
from .outcomes import RULES, UNANSWERED, Outcome, outcome, parts
from ..core import events
from ..core.events import Event
from ..core.models import Game, GameStatus, Inbound, InboundStatus, MoveRecord, Outbox, ReplyToken, Seat, table_of
from ..core.outbox import enqueue
from ..people.players import BadAddress, clean_address
from ..table.talk import post_talk
from ..rules import CLANS
from ..words import N_, Words, error_text, move_text
from ..core import links
from .. import games

PURPOSE = "reply"
#: The local part of a reply address: ``move+TOKEN``.
log = logging.getLogger(__name__)

PREFIX = "move+"
#: The kinds of mail that carry a reply address (a turn's token).
TOKEN_KINDS = ("turn", "reminder", "reply-refused")
#: The mails that carry a reply address and keep a fingerprint of what they said.
REMEMBERED_KINDS = (*TOKEN_KINDS, "talk")
#: How many of a seat's newest remembered mails a reply's talk is checked against.
REMEMBERED = 12
#: The answers to a reply.
ANSWER_KINDS = ("reply-accepted", "reply-refused", "reply-confirm")

#: An inbound message whose move is being played (its token taken): run again
#: after a crash, the handler plays it again, which the ply guard makes a no-op.
APPLYING = Outcome.APPLYING

_TOKEN = r"[a-z0-9_-]{43}"
_RECIPIENT_TOKEN = re.compile(rf"(?:move|talk)\+({_TOKEN})", re.IGNORECASE)
#: The Message-IDs of mail sent before issue 27 carried the token: ``<TOKEN.turn.ID@host>``.
_ID_TOKEN = re.compile(rf"<({_TOKEN})\.[a-z-]{{1,20}}(?:\.[0-9]{{1,12}})?@[^<>\s]+>", re.IGNORECASE)
_MESSAGE_ID = re.compile(r"<[!-;=?-~]{1,200}@[!-;=?-~]{1,200}>")
#: Our own answers to a reply, by their Message-ID (``<HEX.reply-refused@host>``; before, ``<TOKEN.reply-refused.ID@host>``).
_REFUSAL_ID = re.compile(r"\.reply-refused[.@]", re.IGNORECASE)
#: How many Message-IDs of ``In-Reply-To``/``References`` are looked at (the newest).
MAX_REFERENCES = 20


# -- the token --------------------------------------------------------------------


def inbound_domain(ctx: Context) -> str:
    """The domain of reply addresses (the receiver's: :func:`pbem.inbound.addresses.domain`)."""
    return addresses.domain(ctx.config)


def _derive(ctx: Context, salt: str) -> str:
    return tokens.derive(ctx.secret_key, PURPOSE, salt).lower()


def _insert(dialect: str) -> Any:
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    return insert(table_of(ReplyToken)).on_conflict_do_nothing()


def reply_token(ctx: Context, session: Session, seat: Seat, ply: int) -> str:
    """The reply token of a seat's turn at ``ply``, made the first time it is
    asked for (in the caller's transaction; two workers asking at once get the
    same one)."""
    query = select(ReplyToken).where(ReplyToken.seat_id == seat.id, ReplyToken.ply == ply)
    row = session.exec(query).first()
    if row is None:
        salt = tokens.new_salt()
        conn = session.connection()
        conn.execute(_insert(conn.dialect.name), dict(
            game_id=seat.game_id, seat_id=seat.id, ply=ply, token_salt=salt,
            token_hash=tokens.digest(_derive(ctx, salt)), created_at=ctx.now(), used_at=None))
        row = session.exec(query).one()
    return _derive(ctx, row.token_salt)


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
    ids = _MESSAGE_ID.findall(in_reply_to or "")
    ids += list(reversed(_MESSAGE_ID.findall(references or "")))
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
    if sent.kind in ("turn", "reminder"):
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


def _turn_of(session: Session, inbound: Inbound, message: Message) -> tuple[ReplyToken | None, bool]:
    """The turn of a stored message: its envelope recipient, then the reply
    addresses it was written to, then the Message-IDs it answers; and whether
    it was found only by those Message-IDs (headers anyone who saw the mail
    could copy into a forged one)."""
    candidates = [inbound.recipient]
    for name in ("To", "Cc", "Delivered-To", "X-Original-To"):
        candidates += [address for _, address in getaddresses(_headers(message, name))]
    for address in candidates[:20]:
        row = find_turn(session, address)
        if row is not None:
            return row, False
    row = find_turn_by_ids(session, _header(message, "In-Reply-To"), _header(message, "References"))
    return row, row is not None


# -- what was sent: nothing of it goes to the table ----------------------------------------

def _fingerprint_key(ctx: Context) -> bytes:
    return tokens.derive(ctx.secret_key, "mail-fingerprint", "").encode()


def remember(ctx: Context, session: Session, row_id: int | None, message: EmailMessage) -> None:
    """Keep, with its outbox row, a fingerprint of what a mail with a reply
    address says (its subject, text and HTML as text), in the caller's
    transaction: a reply's talk is cut where it repeats any of it."""
    if row_id is None:
        return
    texts = [str(message.get("Subject", ""))]
    for kind in ("plain", "html"):
        part = message.get_body((kind,))
        if part is None:
            continue
        text = part.get_content() if isinstance(part, EmailMessage) else ""
        texts.append(reading.html_to_text(text) if kind == "html" else text)
    session.connection().execute(
        update(table_of(Outbox)).where(table_of(Outbox).c.id == row_id)
        .values(fingerprint=reading.fingerprint(texts, _fingerprint_key(ctx))))


def sent_to(ctx: Context, session: Session, seat: Seat, before: datetime | None = None) -> reading.Sent:
    """What the service sent this seat that its replies must not post to the
    table: the fingerprints of its newest mails with a reply address (written
    by ``before``, the reply's arrival, so that reading it again later reads
    the same), the service's hosts, every clan name in every language and the
    mails' "your secret clan" sentence."""
    query = select(Outbox.fingerprint).where(Outbox.seat_id == seat.id, col(Outbox.fingerprint).is_not(None))
    if before is not None:
        query = query.where(col(Outbox.created_at) <= before)
    found = session.exec(query.order_by(col(Outbox.id).desc()).limit(REMEMBERED)).all()
    return reading.Sent(key=_fingerprint_key(ctx), shingles=reading.shingles(f for f in found if f),
                        hosts=_hosts(ctx), clans=_CLAN_NAMES, markers=_MARKERS)


def _hosts(ctx: Context) -> tuple[str, ...]:
    return tuple(h for h in {urlsplit(ctx.base_url).hostname or "", inbound_domain(ctx)} if h)


def _clan_names() -> tuple[str, ...]:
    return tuple(sorted({name for language in LANGUAGES for clan in CLANS
                         for name in (clan, Words(language).clan(clan))}))


def _markers() -> tuple[str, ...]:
    """What the turn mail writes next to the reader's clan, in every language:
    "Your secret clan: …", "Your clan's huts are …" (up to the clan) and the
    score chip's "· yours"."""
    marks = set()
    for language in LANGUAGES:
        w = Words(language)
        for sentence in (w._("Your secret clan: %(clan)s.", clan="\x00"),
                         w._("The board now. Your clan's huts are %(clan)s; the last move is outlined.", clan="\x00")):
            # The clause that holds the clan, up to it.
            mark = sentence.partition("\x00")[0].rpartition(". ")[2].strip().casefold()
            if mark:
                marks.add(mark)
        marks.add("· " + w._("yours").casefold())
    return tuple(sorted(marks))


_CLAN_NAMES = _clan_names()
_MARKERS = _markers()


# -- reading a stored message ------------------------------------------------------------


def parse(raw: bytes) -> Message:
    return email.message_from_bytes(raw, policy=email.policy.default)


def _headers(message: Message, name: str) -> list[str]:
    """Every value of a header as text; a header too broken to read is left out."""
    out = []
    for value in message.get_all(name) or []:
        try:
            out.append(str(value))
        except Exception:  # noqa: BLE001 - a malformed header is no header
            continue
    return out


def _header(message: Message, name: str) -> str:
    values = _headers(message, name)
    return values[0] if values else ""


def _address(text: str) -> str:
    """An address as seats store theirs (lower case), or ``""``."""
    try:
        return clean_address(text)
    except BadAddress:
        return ""


def own_addresses(ctx: Context) -> set[str]:
    return {a for a in [_address(parseaddr(str(ctx.config.get("MAIL_FROM") or ""))[1])] if a}


_DAEMONS = {"mailer-daemon", "postmaster", "mail-daemon", "noreply", "no-reply", "do-not-reply", "donotreply"}


def is_automatic(ctx: Context, message: Message, envelope_sender: str) -> bool:
    """Mail that must never be answered (RFC 3834): auto-replies, bounces,
    list mail, and our own mail coming back."""
    auto = _header(message, "Auto-Submitted").strip().lower()
    if auto and auto.split(";")[0].strip() != "no":
        return True
    if _header(message, "Precedence").strip().lower() in ("bulk", "junk", "list"):
        return True
    for name in ("X-PBEM-Kind", "X-Autoreply", "X-Autorespond", "X-Autoresponder", "List-Id"):
        if message.get(name) is not None:
            return True
    if message.get_content_type() == "multipart/report":  # a delivery or read report
        return True
    sender = envelope_sender.strip().strip("<>")
    if not sender:
        return True  # the null sender: a bounce
    froms = [address for _, address in getaddresses(_headers(message, "From"))]
    ours = own_addresses(ctx)
    domain = inbound_domain(ctx).lower()
    for address in [sender, *froms]:
        local, _, host = address.lower().rpartition("@")
        if local in _DAEMONS or address.lower() in ours:
            return True
        if host == domain and local.startswith((PREFIX, "bounce+")):
            return True
    return False


def read(message: Message, sent: reading.Sent | None = None) -> reading.Reply:
    return reading.read_reply(reading.reply_text(message), sent)


def _message_id(message: Message) -> str | None:
    text = _header(message, "Message-ID").strip()
    return text if _MESSAGE_ID.fullmatch(text) else None


# -- who sent it --------------------------------------------------------------------------


def _from_address(message: Message) -> str:
    """The one address of the From header (``""`` if there is not exactly one).
    Two readings must agree on it: ``getaddresses`` and the header as the email
    package's policy parses it (where they differ, as they may for a crafted
    header, it is not sure whose address it is)."""
    values = _headers(message, "From")
    addresses = [a for _, a in getaddresses(values) if a]
    if len(values) != 1 or len(addresses) != 1:
        return ""
    parsed = [str(getattr(a, "addr_spec", "")) for a in getattr(message.get("From"), "addresses", ())]
    if parsed and parsed != addresses:
        return ""
    return addresses[0]


def _trusting(ctx: Context) -> bool:
    """Whether the receiving server vouches for senders (``INBOUND_TRUST``)."""
    return bool(str(ctx.config.get("INBOUND_TRUST") or "").strip())


def sender_problem(ctx: Context, message: Message, envelope_sender: str, seat: Seat) -> str | None:
    """Why a reply may not be the seat's own (``sender`` or ``trust``), or ``None``."""
    address = _address(_from_address(message))
    if not address or address != seat.email or _address(envelope_sender.strip().strip("<>")) != seat.email:
        return "sender"
    trust = str(ctx.config.get("INBOUND_TRUST") or "").strip()
    if trust:
        method, _, server = trust.partition(":")
        if method.strip().lower() != "authres" or not server.strip():
            return "trust"  # a setting we cannot honour trusts nothing
        if not authenticated(_headers(message, "Authentication-Results"), server.strip(),
                             address.rpartition("@")[2]):
            return "trust"
    return None


def _segments(value: str) -> list[str]:
    """An Authentication-Results value cut at its semicolons, comments removed
    (quoted strings may hold either)."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    quoted = escaped = False
    for ch in value:
        if escaped:
            escaped = False
            if not depth:
                current.append(ch)
            continue
        if ch == "\\" and (quoted or depth):
            escaped = True
            if not depth:
                current.append(ch)
            continue
        if depth:
            depth += {"(": 1, ")": -1}.get(ch, 0)
            continue
        if quoted:
            current.append(ch)
            quoted = ch != '"'
            continue
        if ch == '"':
            quoted = True
            current.append(ch)
        elif ch == "(":
            depth = 1
            current.append(" ")
        elif ch == ";":
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    parts.append("".join(current).strip())
    return parts


_METHOD = re.compile(r"([a-z0-9_-]+)(?:\s*/\s*[0-9]+)?\s*=\s*([a-z0-9_-]+)", re.IGNORECASE)
_PROPERTY = re.compile(r'([a-z0-9_-]+)\s*\.\s*([a-z0-9_.-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s"]+)', re.IGNORECASE)


@functools.cache
def _suffixes() -> PublicSuffixList:
    return PublicSuffixList()  # the list bundled with the library: nothing is fetched


def _ascii_domain(domain: str) -> str:
    domain = domain.strip().strip(".").lower().rpartition("@")[2]
    try:
        return domain.encode("idna").decode("ascii")
    except UnicodeError:
        return domain


def _aligned(domain: str, from_domain: str) -> bool:
    """Relaxed alignment (RFC 7489 section 3.1): both domains have the same
    organisational domain, the name registered under a public suffix of the
    Public Suffix List.  So ``mail.example.org`` is aligned with
    ``example.org``, but a public suffix (``org``, ``co.uk``) is aligned with
    nothing, and ``evilexample.org`` is not ``example.org``.

    >>> [_aligned(d, "example.org") for d in ("mail.example.org", "EXAMPLE.org.", "org", "evilexample.org")]
    [True, True, False, False]
    """
    organisation = _suffixes().privatesuffix(_ascii_domain(domain))
    return organisation is not None and organisation == _suffixes().privatesuffix(_ascii_domain(from_domain))


def _passes(results: list[str], from_domain: str) -> bool:
    """Whether the results of one header show the From domain authenticated."""
    for result in results:
        found = _METHOD.match(result)
        if found is None or found.group(2).lower() != "pass":
            continue
        method = found.group(1).lower()
        props = {f"{p.group(1)}.{p.group(2)}".lower(): p.group(3).strip('"').lower()
                 for p in _PROPERTY.finditer(result, found.end())}
        if method == "dmarc" and _aligned(props.get("header.from", from_domain), from_domain):
            return True
        if method == "dkim" and _aligned(props.get("header.d") or props.get("header.i", ""), from_domain):
            return True
        if method == "spf" and _aligned(props.get("smtp.mailfrom", ""), from_domain):
            return True
    return False


def authenticated(values: Iterable[str], authserv_id: str, from_domain: str) -> bool:
    """Whether the Authentication-Results headers of ``authserv_id`` (all
    others are ignored: anyone can write one) say the From domain passed DMARC,
    or SPF or DKIM aligned with it.  Every header of that server must say so:
    a server should remove headers with its name from mail it receives (RFC 8601
    section 5), and where it does not, a forged one cannot outvote its own.

    >>> authenticated(["mx.example.net; spf=fail smtp.mailfrom=a.example",
    ...                "evil.example; dmarc=pass header.from=a.example"], "mx.example.net", "a.example")
    False
    >>> authenticated(["mx.example.net 1; dkim=pass (good) header.d=mail.a.example; dmarc=pass header.from=a.example"],
    ...               "MX.example.net", "a.example")
    True
    """
    verdicts = []
    for value in values:
        segments = _segments(value)
        if _authserv_id(segments[0]) != authserv_id.strip().lower():
            continue
        verdicts.append(_passes(segments[1:], from_domain))
    return bool(verdicts) and all(verdicts)


_AUTHSERV_ID = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([^\s"]+))(?:\s+[0-9]+)?\s*$')


def _authserv_id(head: str) -> str | None:
    """The authserv-id at the head of an Authentication-Results value (RFC 8601:
    a token or a quoted string, then an optional version), unquoted and in lower
    case; ``None`` when the head is anything else (a quote left open, two words).

    >>> [_authserv_id(h) for h in ('mx.example', '"mx.example"', '"mx.ex\\\\ample" 1', '"mx.example', 'mx.example x')]
    ['mx.example', 'mx.example', 'mx.example', None, None]
    """
    found = _AUTHSERV_ID.fullmatch(head)
    if found is None:
        return None
    if found.group(2) is not None:
        return found.group(2).lower()
    return re.sub(r"\\(.)", r"\1", found.group(1)).lower()


# -- handling a reply ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Done:
    outcome: str
    outbox: list[int | None]


@dataclass(frozen=True)
class _Plan:
    seat_token: str
    token_id: int
    ply: int
    move: str
    order: list[int] | None


def handle_reply(ctx: Context, inbound_id: int) -> str:
    """Handle one received message; returns its outcome (also stored with it):
    ``ignored-auto``, ``ignored-unknown`` (no turn of ours), ``confirm:sender``
    ``confirm:trust`` or ``confirm:headers`` (not played; the seat is asked
    to confirm on the page), ``refused:<why>``, or ``accepted`` (``accepted:talk`` with talk
    posted, ``accepted:talk-refused`` when the talk could not be).  Handling a
    message again returns what it did the first time."""
    with session_scope(ctx.engine) as session:
        step = _check(ctx, session, inbound_id)
    if isinstance(step, _Done):
        ctx.relay(step.outbox)
        return step.outcome
    refused: errors.ServiceError | None = None
    try:
        games.submit_move(ctx, step.seat_token, step.move, step.order, step.ply, strict=False)
    except errors.ServiceError as e:
        refused = e
    with session_scope(ctx.engine) as session:
        done = _after_move(ctx, session, inbound_id, step, refused)
    ctx.relay(done.outbox)
    return done.outcome


def _check(ctx: Context, session: Session, inbound_id: int) -> _Done | _Plan:
    """Everything before the move, in one transaction: what the message is,
    whose turn it answers, and whether its move may be played (then its token
    is taken, so that a second reply for the turn is not)."""
    # Locked (where the database can): a message handed to two workers is handled by one at a time.
    inbound = session.get(Inbound, inbound_id, with_for_update=True)
    if inbound is None:
        return _Done(Outcome.MISSING, [])
    if inbound.status == InboundStatus.DONE:
        return _Done(inbound.outcome or Outcome.DONE, [])
    # (Attempts are counted by pbem.inbound.handling, which claims the message.)
    message = parse(inbound.raw)
    resuming = inbound.outcome == APPLYING
    if not resuming and is_automatic(ctx, message, inbound.sender):
        return _finish(ctx, session, inbound, Outcome.IGNORED_AUTO)
    token, by_header = _turn_of(session, inbound, message)
    game, seats = games.game_and_seats(session, token.game_id if token else None)
    seat = next((s for s in seats if token and s.id == token.seat_id), None)
    if token is None or game is None or seat is None:
        return _finish(ctx, session, inbound, Outcome.IGNORED_UNKNOWN)
    reply = read(message, sent_to(ctx, session, seat, inbound.received_at))
    if not resuming:
        problem = sender_problem(ctx, message, inbound.sender, seat)
        if problem is None and by_header and not _trusting(ctx):
            # Found only by the Message-ID it answers, which travels in every
            # forwarded header: a From anyone can write is not enough.
            problem = "headers"
        if problem:
            return _finish(ctx, session, inbound, outcome(Outcome.CONFIRM, problem), "reply-confirm", seat)
        if reply.problem:
            if _REFUSAL_ID.search(_header(message, "In-Reply-To")):
                # No move again, in answer to our own refusal: most likely an
                # auto-responder that does not say it is one. Answering would loop.
                return _finish(ctx, session, inbound, outcome(Outcome.REFUSED, reply.problem, UNANSWERED))
            return _finish(ctx, session, inbound, outcome(Outcome.REFUSED, reply.problem), "reply-refused", seat)
        stale = "used" if token.used_at is not None else _stale(session, game, seat, token)
        if stale:
            return _finish(ctx, session, inbound, outcome(Outcome.REFUSED, stale), "reply-refused", seat)
        taken = session.connection().execute(
            update(table_of(ReplyToken)).where(table_of(ReplyToken).c.id == token.id,
                                               table_of(ReplyToken).c.used_at.is_(None))
            .values(used_at=ctx.now()))
        if taken.rowcount != 1:
            return _finish(ctx, session, inbound, outcome(Outcome.REFUSED, "used"), "reply-refused", seat)
        inbound.outcome = APPLYING
    assert reply.move is not None and token.id is not None
    return _Plan(links.seat_token(ctx, seat), token.id, token.ply, reply.move,
                 list(reply.order) if reply.order is not None else None)


def _after_move(ctx: Context, session: Session, inbound_id: int, plan: _Plan,
                refused: errors.ServiceError | None) -> _Done:
    inbound = session.get(Inbound, inbound_id, with_for_update=True)
    token = session.get(ReplyToken, plan.token_id)
    assert inbound is not None and token is not None
    if inbound.status == InboundStatus.DONE:
        return _Done(inbound.outcome or Outcome.DONE, [])
    game, seats = games.game_and_seats(session, token.game_id)
    seat = next(s for s in seats if s.id == token.seat_id)
    assert game is not None
    if refused is None:
        done_as = outcome(Outcome.ACCEPTED)
        talk = read(parse(inbound.raw), sent_to(ctx, session, seat, inbound.received_at)).talk
        talk_mail: list[int | None] = []
        if talk:
            try:
                with session.begin_nested():
                    post_talk(ctx, session, seat, talk, source="reply", outbox=talk_mail)
                done_as = outcome(Outcome.ACCEPTED, Outcome.TALK)
            except errors.ServiceError:
                done_as = outcome(Outcome.ACCEPTED, Outcome.TALK_REFUSED)
                talk_mail = []
        done = _finish(ctx, session, inbound, done_as, "reply-accepted", seat)
        # The others' talk mail goes with the answer, not at the next sweep.
        return _Done(done.outcome, done.outbox + talk_mail)
    if isinstance(refused, errors.MoveRefused):
        # The rules said no: the turn is still theirs, and a corrected reply may use the token.
        session.connection().execute(update(table_of(ReplyToken)).where(table_of(ReplyToken).c.id == token.id)
                                     .values(used_at=None))
        why: tuple[str, ...] = (RULES, refused.code)
    else:
        why = (_stale(session, game, seat, token) or refused.code,)
    return _finish(ctx, session, inbound, outcome(Outcome.REFUSED, *why), "reply-refused", seat)


def _stale(session: Session, game: Game, seat: Seat, token: ReplyToken) -> str | None:
    """Why the turn a token was for can no longer be played: ``moved`` (the
    seat moved, on the page or by another reply), ``autopilot``, ``game-over``,
    ``stale`` (the game has moved on), ``not-your-turn``; ``None`` if it can."""
    if game.ply != token.ply:
        record = _record(session, game, token.ply)
        if record is not None and record.position == seat.position:
            return "autopilot" if record.by_autopilot else "moved"
        return "game-over" if game.status != GameStatus.ACTIVE else "stale"
    if game.status != GameStatus.ACTIVE:
        return "game-over"
    if game.turn_seat != seat.position:
        return "not-your-turn"
    return None


def _record(session: Session, game: Game, ply: int) -> MoveRecord | None:
    return session.exec(select(MoveRecord).where(MoveRecord.game_id == game.id, MoveRecord.ply == ply)).first()


def _finish(ctx: Context, session: Session, inbound: Inbound, outcome: str, answer: str | None = None,
            seat: Seat | None = None) -> _Done:
    """The message is handled: its outcome stored and its answer (if any) in
    the outbox, in the same transaction."""
    now = ctx.now()
    inbound.status, inbound.outcome, inbound.handled_at = InboundStatus.DONE, outcome, now
    session.add(inbound)
    outbox: list[int | None] = []
    if answer is not None and seat is not None and _may_answer(ctx, seat):
        outbox.append(enqueue(session, kind=answer, event=events.key(Event.INBOUND, inbound.id), recipient=seat.email,
                              base_url=ctx.base_url, now=now, game_id=seat.game_id, seat_id=seat.id))
    return _Done(outcome, outbox)


def _may_answer(ctx: Context, seat: Seat) -> bool:
    """Whether this seat may get one more answer mail now (``LIMIT_REPLY_ANSWERS``):
    beyond it the reply is still handled (a move still plays), only unanswered."""
    try:
        ctx.limit("LIMIT_REPLY_ANSWERS", [f"seat:{seat.id}"])
    except errors.RateLimited:
        log.warning("seat %s: too many answers to replies; this one is not mailed", seat.id)
        return False
    return True


# -- what the answer says ---------------------------------------------------------------------

#: What each reading problem means for the one who wrote the reply.
PROBLEMS = {
    "empty": N_("Your reply had no text of its own above the quoted mail, so there was no move to play."),
    "no-move": N_("We found no move on the first line of your reply. Write it like 12-13."),
    "move-not-first": N_("The move must be on the first line of your reply, before anything else."),
    "two-moves": N_("Your reply has more than one move. Write only one, on the first line."),
    "bad-order": N_("We could not read the order of the villages. Write it like 12-13 order 14 15, "
                    "each village once."),
}
#: Why a reply came too late (``%(move)s``: the move that was played for the turn).
STALE = {
    "used": N_("We already had a reply from you for this turn, and %(move)s was played. "
               "This reply changed nothing."),
    "moved": N_("You had already played %(move)s for this turn, so this reply changed nothing."),
    "autopilot": N_("Your reply came after your time ran out: the autopilot had already played "
                    "%(move)s for you."),
    "game-over": N_("The game is over, so there is nothing more to play."),
    "stale": N_("The game has moved on since that mail: it is now at move %(ply)d."),
    "not-your-turn": N_("It is not your turn."),
}
_USED_UNKNOWN = N_("We already had a reply from you for this turn. This reply changed nothing.")
_RULES = N_("The rules do not allow that move.")


def answer(ctx: Context, session: Session, inbound_id: int, seat: Seat, game: Game, w: Words) -> dict[str, Any] | None:
    """What the answer to a received message says, in the reader's words, for
    the mail templates (``None`` if the message is gone or not this seat's)."""
    inbound = session.get(Inbound, inbound_id)
    if inbound is None or not inbound.outcome or inbound.status != InboundStatus.DONE:
        return None
    message = parse(inbound.raw)
    token, _ = _turn_of(session, inbound, message)
    if token is None or token.seat_id != seat.id:
        return None
    reply = read(message, sent_to(ctx, session, seat, inbound.received_at))
    said = inbound.outcome
    kind, why = parts(said)
    order = ", ".join(map(str, reply.order or ()))
    facts: dict[str, Any] = {
        "outcome": said, "move": reply.move or "", "played": move_text(reply.move) if reply.move else "",
        "order_text": order, "talk": reply.talk, "talk_lines": reply.talk.split("\n") if reply.talk else [],
        "talk_posted": said == outcome(Outcome.ACCEPTED, Outcome.TALK),
        "talk_refused": said == outcome(Outcome.ACCEPTED, Outcome.TALK_REFUSED),
        "reason": "", "token_ply": token.ply, "in_reply_to": _message_id(message),
        "sender": "", "trust_failed": why == "trust", "headers_only": why == "headers", "confirm_link": "",
        # Something of the reply was not posted: it came from our own mail.
        "talk_left_out": reply.left_out,
        # The turn can still be answered by mail: the answer carries the reply address again.
        "retry": (token.used_at is None and game.status == GameStatus.ACTIVE and game.ply == token.ply
                  and game.turn_seat == seat.position),
    }
    if kind == Outcome.CONFIRM:
        facts["sender"] = _from_address(message)[:254]
        link = links.seat_link(ctx, seat)
        if reply.move:
            query = {"move": reply.move, **({"order": ",".join(map(str, reply.order))} if reply.order else {})}
            link = f"{link}?{urlencode(query)}"
        facts["confirm_link"] = link
    elif kind == Outcome.REFUSED:
        facts["reason"] = _reason(session, game, token, reply, why, w)
    return facts


def _reason(session: Session, game: Game, token: ReplyToken, reply: reading.Reply, why: str, w: Words) -> str:
    if why in PROBLEMS:
        return w._(PROBLEMS[why])
    if parts(why)[0] == RULES:
        error = _rules_error(game, token, reply)
        return error_text(errors.MoveRefused(error), w) if error is not None else w._(_RULES)
    if why in STALE:
        record = _record(session, game, token.ply)
        if why == "used" and record is None:
            return w._(_USED_UNKNOWN)
        return w._(STALE[why], move=move_text(record.move) if record else "", ply=game.ply + 1)
    return w._(_RULES)


def _rules_error(game: Game, token: ReplyToken, reply: reading.Reply) -> rules.RulesError | None:
    """The rules' refusal of the reply's move, said again: the position it was
    refused in is the game's while its ply has not moved."""
    if game.ply != token.ply or not game.state or reply.move is None:
        return None
    try:
        position = rules.Game.from_json(json.loads(game.state))
        position.push(rules.Move.parse(reply.move, strict=False), list(reply.order) if reply.order else None)
    except rules.RulesError as e:
        return e
    return None


# -- answers to table talk ------------------------------------------------------------------


def handle_talk(ctx: Context, inbound_id: int) -> str:
    """A reply to a table-talk mail (``talk+TOKEN@``, or ``talk@`` answering
    its Message-ID): its fresh text is posted to the seat's table, never read
    as a move.  Automatic mail and mail not from the seat's own address are
    ignored (nothing is posted in a player's name that they did not write);
    no answer mail (the post shows on the page and in the others' mail).
    A message that finds its seat only by the Message-ID it answers is posted
    only with ``INBOUND_TRUST`` (anyone who saw the headers could forge it).
    Nothing of what the service sent is posted (:func:`sent_to`).
    Outcomes: ``talk``, ``talk-refused:<code>``, ``ignored-auto``,
    ``ignored-unknown``, ``ignored-sender``, ``ignored-headers``."""
    outbox: list[int | None] = []
    with session_scope(ctx.engine) as session:
        inbound = session.get(Inbound, inbound_id, with_for_update=True)
        if inbound is None:
            return Outcome.MISSING
        if inbound.status == InboundStatus.DONE:
            return inbound.outcome or Outcome.DONE
        message = parse(inbound.raw)
        if is_automatic(ctx, message, inbound.sender):
            return _finish(ctx, session, inbound, Outcome.IGNORED_AUTO).outcome
        token, by_header = _turn_of(session, inbound, message)
        _, seats = games.game_and_seats(session, token.game_id if token else None)
        seat = next((s for s in seats if token and s.id == token.seat_id), None)
        if token is None or seat is None:
            return _finish(ctx, session, inbound, Outcome.IGNORED_UNKNOWN).outcome
        if sender_problem(ctx, message, inbound.sender, seat):
            return _finish(ctx, session, inbound, Outcome.IGNORED_SENDER).outcome
        if by_header and not _trusting(ctx):
            return _finish(ctx, session, inbound, Outcome.IGNORED_HEADERS).outcome
        text, _ = reading.guard(reading.fresh_text(reading.reply_text(message)),
                                sent_to(ctx, session, seat, inbound.received_at))
        try:
            post_talk(ctx, session, seat, text, source="reply", outbox=outbox)
            done_as = outcome(Outcome.TALK)
        except errors.ServiceError as e:
            done_as = outcome(Outcome.TALK_REFUSED, e.code)
        _finish(ctx, session, inbound, done_as)
    ctx.relay(outbox)
    return done_as
