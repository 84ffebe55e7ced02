"""Writing messages to the outbox, in the caller's transaction."""

from __future__ import annotations

import uuid
from datetime import datetime
from urllib.parse import urlsplit

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from .models import Outbox

KINDS = ("invite", "turn", "reminder", "deadline", "game-over", "login", "digest")


def enqueue(
    session: Session,
    *,
    kind: str,
    event: str,
    recipient: str,
    base_url: str,
    now: datetime,
    game_id: int | None = None,
    seat_id: int | None = None,
    login_id: int | None = None,
) -> Outbox | None:
    """Add one message, unless the same (game, event, recipient, kind) exists:
    deciding to send twice sends once.  The row is flushed so that the caller
    can hand its id to the relay after the commit."""
    assert kind in KINDS, kind
    existing = session.exec(
        select(Outbox).where(
            Outbox.game_id == game_id, Outbox.event == event,
            Outbox.recipient == recipient, Outbox.kind == kind,
        )
    ).first()
    if existing is not None:
        return None
    domain = urlsplit(base_url).hostname or "localhost"
    row = Outbox(
        kind=kind, event=event, recipient=recipient, game_id=game_id, seat_id=seat_id,
        login_id=login_id, message_id=f"<{uuid.uuid4().hex}.{kind}@{domain}>",
        created_at=now, next_attempt_at=now,
    )
    try:
        with session.begin_nested():
            session.add(row)
            session.flush()
    except IntegrityError:  # a concurrent writer decided the same message first
        return None
    return row
