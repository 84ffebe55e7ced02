"""Whether an address may be mailed: the never-mail list, and mail that bounces."""

from __future__ import annotations

from sqlmodel import Session, col, select

from ..core.models import Bounce, Suppression
from .players import address_hash, suppression_hashes


def is_suppressed(session: Session, address: str) -> bool:
    """Whether the address's mailbox is on the never-mail list (any ``+tag`` of it, any case)."""
    return session.exec(select(Suppression.id).where(
        col(Suppression.address_hash).in_(suppression_hashes(address)))).first() is not None


def is_unreachable(session: Session, address: str) -> bool:
    """Whether mail to the address bounces (:mod:`pbem.bounces`): it gets no more."""
    return session.exec(select(Bounce.id).where(Bounce.address_hash == address_hash(address),
                                                col(Bounce.bouncing_at).is_not(None))).first() is not None
