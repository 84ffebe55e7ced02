"""Blocking a player: a person (an address) who does not want to sit with, or
read, another.  A block works in the blocker's direction for talk (the blocked
person's messages are hidden from the blocker: :func:`blocked_by`), and both
ways for seating (:func:`any_blocked`: blocked people are never seated
together, whoever blocked whom).

Blocks are between addresses, made from a seat or a profile, so that nobody
learns an address by blocking; the blocker's list shows the name they knew the
other by."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable

from sqlalchemy import delete, or_
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ..core.db import as_utc
from ..core.people_tables import Block


def normal(email: str) -> str:
    """An address as seats keep it."""
    return email.strip().lower()


@dataclass(frozen=True)
class Blocked:
    """One person on a blocker's list: the row's id (what unblocking names),
    the name they knew them by, and since when."""

    id: int
    name: str
    since: datetime


def block(session: Session, blocker: str, blocked: str, name: str, now: datetime) -> bool:
    """``blocker`` blocks ``blocked`` (known to them as ``name``); returns
    whether this made the block (``False``: it was there already)."""
    who, whom = normal(blocker), normal(blocked)
    if not who or not whom or who == whom:
        raise ValueError("a block is between two different people")
    if session.exec(select(Block.id).where(Block.blocker == who, Block.blocked == whom)).first() is not None:
        return False
    try:
        with session.begin_nested():  # two clicks at once: the second finds the row
            session.add(Block(blocker=who, blocked=whom, name=name[:60], created_at=now))
    except IntegrityError:
        return False
    return True


def unblock(session: Session, blocker: str, blocked: str) -> bool:
    """``blocker`` no longer blocks ``blocked``; returns whether there was a block."""
    done = session.exec(delete(Block).where(col(Block.blocker) == normal(blocker),
                                            col(Block.blocked) == normal(blocked)))
    return bool(done.rowcount)


def unblock_by_id(session: Session, blocker: str, block_id: int) -> bool:
    """Remove one row of the blocker's own list (another's row is not theirs to remove)."""
    done = session.exec(delete(Block).where(col(Block.id) == block_id, col(Block.blocker) == normal(blocker)))
    return bool(done.rowcount)


def blocks(session: Session, blocker: str) -> list[Blocked]:
    """The blocker's list, newest first."""
    rows = session.exec(select(Block).where(Block.blocker == normal(blocker))
                        .order_by(col(Block.id).desc())).all()
    out = []
    for row in rows:
        assert row.id is not None  # stored
        out.append(Blocked(id=row.id, name=row.name, since=as_utc(row.created_at)))
    return out


def blocked_by(session: Session, blocker: str) -> set[str]:
    """The addresses ``blocker`` blocked (whose talk they do not see)."""
    if not normal(blocker):
        return set()
    return set(session.exec(select(Block.blocked).where(Block.blocker == normal(blocker))).all())


def blockers_of(session: Session, blocked: str, among: Iterable[str]) -> set[str]:
    """Which of ``among`` blocked ``blocked`` (they do not get its talk by mail)."""
    them = sorted({normal(a) for a in among} - {""})
    if not normal(blocked) or not them:
        return set()
    return set(session.exec(select(Block.blocker).where(Block.blocked == normal(blocked),
                                                        col(Block.blocker).in_(them))).all())


def is_blocked(session: Session, blocker: str, blocked: str) -> bool:
    """Whether ``blocker`` blocked ``blocked`` (this direction only)."""
    return session.exec(select(Block.id).where(Block.blocker == normal(blocker),
                                               Block.blocked == normal(blocked))).first() is not None


def any_blocked(session: Session, email: str, others: Iterable[str]) -> bool:
    """Whether ``email`` and any of ``others`` blocked one another, either way:
    the lobby and rematches never seat them together."""
    me = normal(email)
    them = sorted({normal(o) for o in others} - {me, ""})
    if not me or not them:
        return False
    return session.exec(select(Block.id).where(or_(
        (col(Block.blocker) == me) & col(Block.blocked).in_(them),
        (col(Block.blocked) == me) & col(Block.blocker).in_(them)))).first() is not None


def blocked_pair(session: Session, emails: Iterable[str]) -> bool:
    """Whether any two of these people blocked one another (one query)."""
    people = sorted({normal(e) for e in emails} - {""})
    if len(people) < 2:
        return False
    return session.exec(select(Block.id).where(col(Block.blocker).in_(people),
                                               col(Block.blocked).in_(people))).first() is not None


def blocked_pairs(session: Session, emails: Iterable[str]) -> set[frozenset[str]]:
    """Every two of these people who blocked one another, either way (one query):
    quick match picks a table from many waiting people at once."""
    people = sorted({normal(e) for e in emails} - {""})
    if len(people) < 2:
        return set()
    rows = session.exec(select(Block.blocker, Block.blocked).where(col(Block.blocker).in_(people),
                                                                   col(Block.blocked).in_(people))).all()
    return {frozenset((a, b)) for a, b in rows}


def forget(session: Session, email: str) -> int:
    """Erase a person's blocks, made by them or of them (``pbem admin forget``)."""
    me = normal(email)
    return int(session.exec(delete(Block).where(or_(col(Block.blocker) == me, col(Block.blocked) == me))).rowcount)
