"""Writing messages to the outbox, in the caller's transaction."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from functools import lru_cache
from typing import Any, Iterable
from urllib.parse import urlsplit

from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from .models import Outbox, OutboxStatus, table_of


class OutboxKind(StrEnum):
    """What an outbox row is, stored as its value (the column is a plain string,
    as before the enum).  What each kind of mail says, shows and answers is its
    record in :mod:`pbem.mail.kinds`."""

    INVITE = "invite"
    TURN = "turn"
    REMINDER = "reminder"
    #: The autopilot moved for someone whose time ran out.
    DEADLINE = "deadline"
    GAME_OVER = "game-over"
    #: A sign-in link someone asked for on a page (no game).
    LOGIN = "login"
    DIGEST = "digest"
    #: A seat's new link, which they asked for on their page.
    LINK = "link"
    # Answers to mail the service received, table talk, and "we cannot reach X".
    REPLY_ACCEPTED = "reply-accepted"
    REPLY_REFUSED = "reply-refused"
    REPLY_CONFIRM = "reply-confirm"
    TALK = "talk"
    UNREACHABLE = "unreachable"
    #: A post to a game's webhook (recipient ``webhook:ID``): not a mail.
    WEBHOOK = "webhook"
    #: A Web Push to a seat's browser (recipient ``push:SEAT_ID``): not a mail
    #: either (:mod:`pbem.mail.push_posts`).
    PUSH = "push"
    #: "We switched your webhook off".
    WEBHOOK_OFF = "webhook-off"
    #: "The operator cancelled this game" (pbem admin cancel).
    CANCELLED = "cancelled"
    #: "Anna is waiting for your move": another player nudged the mover (event ``nudge:ID``).
    NUDGE = "nudge"
    #: A person's daily mail: every game where it is their turn (no game of its own).
    DAILY = "daily"
    #: A stranger's invitation to the lobby table they joined (``pbem.games.lobby``).
    TABLE_INVITE = "table-invite"
    #: "Confirm your quick match": the request's seat link (``pbem.games.quick_match``).
    MATCH_CONFIRM = "match-confirm"
    #: A volunteer's invitation to take over an away seat, and "your seat passed to a substitute".
    SUBSTITUTE_INVITE = "substitute"
    SUBSTITUTED = "substituted"


#: Every kind's value (a row read back holds a plain string).
_VALUES = frozenset(OutboxKind)


@lru_cache(maxsize=None)
def _insert(dialect: str) -> Any:
    # Built once per dialect and run on the session's connection with plain
    # values: every move writes one, and building the statement and running it
    # through the ORM cost more than the INSERT itself.
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    table = table_of(Outbox)
    return insert(table).on_conflict_do_nothing().returning(table.c.id)


class Outgoing(list[int | None]):
    """The ids of a change's new outbox rows, for the relay after the commit,
    knowing which of them are posts over HTTP, a webhook's or a push (``posts``),
    which the relay would otherwise look up to hand them to their own queue."""

    def __init__(self, ids: Iterable[int | None] = (), posts: Iterable[int | None] = ()) -> None:
        super().__init__(ids)
        self.posts = frozenset(i for i in posts if i is not None)


def posts_among(ids: Iterable[int | None]) -> frozenset[int] | None:
    """The webhook posts among ``ids`` if they are :class:`Outgoing` (else ``None``: not known)."""
    return ids.posts if isinstance(ids, Outgoing) else None


def row_values(
    *,
    kind: OutboxKind,
    event: str,
    recipient: str,
    base_url: str,
    now: datetime,
    game_id: int | None = None,
    seat_id: int | None = None,
    login_id: int | None = None,
    due: datetime | None = None,
    language: str | None = None,
) -> dict[str, Any]:
    """The columns of a new outbox row (see :func:`enqueue`)."""
    assert kind in _VALUES, kind  # a caller without types (a test) may hand a string
    domain = urlsplit(base_url).hostname or "localhost"
    return dict(
        kind=str(kind), event=event, recipient=recipient, game_id=game_id, seat_id=seat_id,
        login_id=login_id, message_id=f"<{uuid.uuid4().hex}.{kind}@{domain}>",
        created_at=now, next_attempt_at=due or now, status=OutboxStatus.PENDING, attempts=0, language=language,
    )


def enqueue(
    session: Session,
    *,
    kind: OutboxKind,
    event: str,
    recipient: str,
    base_url: str,
    now: datetime,
    game_id: int | None = None,
    seat_id: int | None = None,
    login_id: int | None = None,
    due: datetime | None = None,
    language: str | None = None,
) -> int | None:
    """Add one message, unless the same (game, event, recipient, kind) exists:
    deciding to send twice sends once.  One ``INSERT ... ON CONFLICT DO NOTHING``
    (no look-up first, no savepoint), so a concurrent writer deciding the same
    message is no error either.  Returns the new row's id (for the relay after
    the commit), or ``None`` if it existed.  ``due``: not before then (a rate
    limit's next window); the relay's early try finds it not due, the sweep sends it.
    ``language``: for a message with no seat to take it from (a sign-in link)."""
    if not recipient:
        # A seat the computer was made for has no address: it is never mailed.
        return None
    if game_id is None:
        # NULLs never collide in a unique key: look for the twin ourselves.
        twin = session.exec(select(Outbox.id).where(
            col(Outbox.game_id).is_(None), Outbox.event == event,
            Outbox.recipient == recipient, Outbox.kind == kind)).first()
        if twin is not None:
            return None
    return insert_row(session, row_values(kind=kind, event=event, recipient=recipient, base_url=base_url, now=now,
                                          game_id=game_id, seat_id=seat_id, login_id=login_id, due=due,
                                          language=language))


def insert_row(session: Session, values: dict[str, Any]) -> int | None:
    """Write a row made by :func:`row_values` (of a game's: its unique key
    refuses a twin); its id, or ``None`` if it existed."""
    conn = session.connection()
    new_id: int | None = conn.execute(_insert(conn.dialect.name), values).scalar_one_or_none()
    return new_id


def insert_rows(session: Session, rows: list[dict[str, Any]]) -> list[int]:
    """Write many rows made by :func:`row_values` (each of a game's) in one
    statement; the ids of those written (a twin is skipped, as in
    :func:`insert_row`)."""
    if not rows:
        return []
    conn = session.connection()
    return list(conn.execute(_insert(conn.dialect.name), rows).scalars().all())
