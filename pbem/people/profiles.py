"""A person's small public profile (``/people/<id>``): their display name, their
reliability (:mod:`pbem.people.reliability`) and, if they chose to show it,
their rating — never their address.

Its id is random (``tokens.public_id``, from ``secrets``), kept in a row per
person made when they first write at a table (their name links to it there)
or save its settings, never by a page's GET, so nothing about the
address can be read from it and nobody can walk from one profile to another.
A person may hide their profile: it then answers as if there were none.  The
name shown is the one of their newest seat (names are given per game)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ..core import errors, tokens
from ..core.context import Context
from ..core.db import session_scope
from ..core.models import Rating, Seat
from ..core.people_tables import Profile
from ..words import N_
from . import blocks
from .players import address_hash
from .ratings import SHOWN_AFTER
from .reliability import Reliability, reliability


def normal(email: str) -> str:
    return email.strip().lower()


@dataclass(frozen=True)
class PublicProfile:
    """What a profile page shows: nothing of the address."""

    public_id: str
    name: str
    reliability: Reliability
    #: The rating's ordinal, when shown (chosen, and no longer provisional).
    rating: float | None


@dataclass(frozen=True)
class OwnProfile:
    """The profile as its person's "My games" page shows it (``public_id``
    ``None``: none yet; writing at a table or saving its settings makes it)."""

    public_id: str | None
    hidden: bool
    show_rating: bool


def public_ids(session: Session, emails: Iterable[str]) -> dict[str, str]:
    """The profile id of each address (made for those without one yet), keyed
    by the normalized address.  Only in a change's transaction (writing at a
    table, saving the settings): a page's GET changes nothing."""
    wanted = sorted({normal(e) for e in emails} - {""})
    if not wanted:
        return {}
    found = dict(session.exec(select(Profile.email, Profile.public_id).where(col(Profile.email).in_(wanted))).all())
    for email in wanted:
        if email in found:
            continue
        try:
            with session.begin_nested():  # made at the same moment by another page
                row = Profile(email=email, public_id=tokens.public_id())
                session.add(row)
            found[email] = row.public_id
        except IntegrityError:
            again = session.exec(select(Profile.public_id).where(Profile.email == email)).first()
            if again is not None:
                found[email] = again
    return found


def hidden(session: Session, email: str) -> bool:
    """Whether the person hid their profile (a hidden profile joins only
    tables without requirements)."""
    return bool(session.exec(select(Profile.hidden).where(Profile.email == normal(email))).first())


def _no_profile() -> errors.NotFound:
    return errors.NotFound(N_("there is no such profile"), code="no-profile")


def public_profile(ctx: Context, public_id: object) -> PublicProfile:
    """The profile with this id (``NotFound`` for none, or a hidden one: the same answer)."""
    if not tokens.is_public_id(public_id):
        raise _no_profile()
    with session_scope(ctx.engine) as session:
        row = session.exec(select(Profile).where(Profile.public_id == public_id)).first()
        if row is None or row.hidden:
            raise _no_profile()
        name = session.exec(select(Seat.name).where(Seat.email == row.email)
                            .order_by(col(Seat.id).desc()).limit(1)).first()
        if name is None:  # erased meanwhile
            raise _no_profile()
        rating: float | None = None
        if row.show_rating:
            found = session.exec(select(Rating).where(Rating.address_hash == address_hash(row.email))).first()
            if found is not None and found.games >= SHOWN_AFTER:
                rating = round(found.mu - 3 * found.sigma, 1)
        return PublicProfile(public_id=row.public_id, name=name, reliability=reliability(session, [row.email])[row.email],
                             rating=rating)


def email_of(session: Session, public_id: object) -> str | None:
    """The address behind a visible profile (for blocking from it; never shown)."""
    if not tokens.is_public_id(public_id):
        return None
    row = session.exec(select(Profile).where(Profile.public_id == public_id)).first()
    return None if row is None or row.hidden else row.email


def own_profile(ctx: Context, email: str) -> OwnProfile:
    """The signed-in person's own profile (read only: a page's GET makes nothing)."""
    with session_scope(ctx.engine) as session:
        row = session.exec(select(Profile).where(Profile.email == normal(email))).first()
        if row is None:
            return OwnProfile(public_id=None, hidden=False, show_rating=False)
        return OwnProfile(public_id=row.public_id, hidden=row.hidden, show_rating=row.show_rating)


def set_profile(ctx: Context, email: str, *, hidden: bool, show_rating: bool) -> OwnProfile:
    """Hide (or show) the signed-in person's profile, and whether it shows their
    rating.  The caller has checked the browser's sign-in for ``email``."""
    with session_scope(ctx.engine) as session:
        public_ids(session, [email])
        row = session.exec(select(Profile).where(Profile.email == normal(email))).one()
        row.hidden, row.show_rating = bool(hidden), bool(show_rating)
        session.add(row)
        return OwnProfile(public_id=row.public_id, hidden=row.hidden, show_rating=row.show_rating)


def forget(session: Session, email: str) -> int:
    """Erase a person's profile (``pbem admin forget``): its id opens nothing more."""
    row = session.exec(select(Profile).where(Profile.email == normal(email))).first()
    if row is None:
        return 0
    session.delete(row)
    return 1


def block_from_profile(ctx: Context, email: str, public_id: object, on: bool) -> tuple[str, bool]:
    """The signed-in person (``email``) blocks (``on``) or unblocks the person
    of a visible profile; returns that person's name and whether anything
    changed.  Refused: no such profile (``NotFound``), their own (``Conflict``)."""
    with session_scope(ctx.engine) as session:
        other = email_of(session, public_id)
        if other is None:
            raise _no_profile()
        if other == normal(email):
            raise errors.Conflict(N_("you cannot block yourself"), code="own-seat")
        name = session.exec(select(Seat.name).where(Seat.email == other).order_by(col(Seat.id).desc())
                            .limit(1)).first()
        if name is None:
            raise _no_profile()
        if on:
            return name, blocks.block(session, email, other, name, ctx.now())
        return name, blocks.unblock(session, email, other)


def blocks_profile(ctx: Context, email: str, public_id: object) -> bool:
    """Whether the signed-in person blocked the person of this profile."""
    with session_scope(ctx.engine) as session:
        other = email_of(session, public_id)
        return other is not None and blocks.is_blocked(session, email, other)


def my_blocks(ctx: Context, email: str) -> list[blocks.Blocked]:
    """The signed-in person's list of blocked people (names only)."""
    with session_scope(ctx.engine) as session:
        return blocks.blocks(session, email)


def unblock_listed(ctx: Context, email: str, block_id: int) -> bool:
    """Remove one row of the signed-in person's list."""
    with session_scope(ctx.engine) as session:
        return blocks.unblock_by_id(session, email, block_id)
