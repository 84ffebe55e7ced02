"""What the service sent, remembered so that a reply posts none of it to the table.

Each mail with a reply address keeps a fingerprint of what it said
(:func:`remember`, with its outbox row).  A reply's talk is read against the
seat's newest ones, the service's hosts, the clan names and the "your secret
clan" sentences (:func:`sent_to`): it is cut at the first run of what was sent,
its token links and secret-clan lines dropped (:func:`pbem.inbound.guard.guard`);
the answer says so."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit

from sqlmodel import Session, col, select

from ..core import tokens
from ..core.context import Context
from ..core.models import Outbox, Seat
from ..rules import CLANS
from ..words import Words
from ..words.language import LANGUAGES
from . import guard, message_text
from .reply_tokens import inbound_domain

#: How many of a seat's newest remembered mails a reply's talk is checked against.
REMEMBERED = 12


def _fingerprint_key(ctx: Context) -> bytes:
    return tokens.derive(ctx.secret_key, "mail-fingerprint", "").encode()


def fingerprint(ctx: Context, subject: str, text: str, html: str | None) -> bytes:
    """A fingerprint of what a mail with a reply address says (its subject, and
    its text and HTML as the reader's program decodes them), kept with its
    outbox row when it is sent: a reply's talk is cut where it repeats any of it."""
    texts = [subject, text]
    if html is not None:
        texts.append(message_text.html_to_text(html))
    return guard.fingerprint(texts, _fingerprint_key(ctx))


def sent_to(ctx: Context, session: Session, seat: Seat, before: datetime | None = None) -> guard.Sent:
    """What the service sent this seat that its replies must not post to the
    table: the fingerprints of its newest mails with a reply address (written
    by ``before``, the reply's arrival, so that reading it again later reads
    the same), the service's hosts, every clan name in every language and the
    mails' "your secret clan" sentence."""
    query = select(Outbox.fingerprint).where(Outbox.seat_id == seat.id, col(Outbox.fingerprint).is_not(None))
    if before is not None:
        query = query.where(col(Outbox.created_at) <= before)
    found = session.exec(query.order_by(col(Outbox.id).desc()).limit(REMEMBERED)).all()
    return guard.Sent(key=_fingerprint_key(ctx), shingles=guard.shingles(f for f in found if f),
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
