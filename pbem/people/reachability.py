"""Whether an address may be mailed: the never-mail list, and mail that bounces."""

from __future__ import annotations

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from ..core.models import Bounce, Suppression
from .players import address_hash, suppression_hashes


# Asked before (nearly) every mail is sent, and they mostly find nothing.  Built once
# (as pbem.games.lookup's are): building and keying them anew cost more than
# the queries themselves.
_SUPPRESSED = select(Suppression.id).where(col(Suppression.address_hash).in_(bindparam("hashes", expanding=True)))
_BOUNCING = select(Bounce.id).where(col(Bounce.address_hash) == bindparam("digest"),
                                    col(Bounce.bouncing_at).is_not(None))


# Both at once, before each mail: one statement, not two.
_STOPPED = select(_SUPPRESSED.exists().label("suppressed"), _BOUNCING.exists().label("bouncing"))


def mail_stopped(session: Session, address: str, *, bounces_count: bool) -> bool:
    """Whether mail to the address must not go: it is on the never-mail list, or
    (when ``bounces_count``: not for mail the person asked for) it bounces."""
    suppressed, bouncing = session.exec(_STOPPED, params={
        "hashes": suppression_hashes(address), "digest": address_hash(address)}).one()
    return bool(suppressed or (bounces_count and bouncing))


def is_suppressed(session: Session, address: str) -> bool:
    """Whether the address's mailbox is on the never-mail list (any ``+tag`` of it, any case)."""
    return session.exec(_SUPPRESSED, params={"hashes": suppression_hashes(address)}).first() is not None


def is_unreachable(session: Session, address: str) -> bool:
    """Whether mail to the address bounces (:mod:`pbem.bounces`): it gets no more."""
    return session.exec(_BOUNCING, params={"digest": address_hash(address)}).first() is not None
