"""How a seat learns that it is its turn: by a Web Push to its browser, by the
turn mail, or both, as its ``push_mode`` says (``core.models.PushMode``).

Both are outbox rows written in the transaction of the move, so both go or
neither: the push (kind ``push``, recipient ``push:SEAT_ID``) goes at once;
the turn mail goes at once ("mail always"), or is due ``push_minutes`` later
("push first": its still-wanted check, ``pbem.mail.kinds.TurnMail``, drops it
if the seat page said its player was there since the turn began), or is not
written ("push only").  A seat without a subscription gets its mail whatever
its mode: a lost subscription must not leave a player unwarned.

Whether a seat has a subscription comes with the seat token's look-up
(:mod:`.lookup`, ``session.info[PUSH_SEATS]``), as whether a game has live
webhooks does: a move asks nothing more of a seat that has none.

A nudge (:mod:`.nudges`) is pushed too, beside its mail, as a ``push`` row of
the nudge's event (``nudge:ID``), where the mover has a subscription."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

from ..core import events
from ..core.events import Event
from ..core.models import Game, MailChoice, PushMode, Seat
from ..core.outbox import OutboxKind, row_values
from ..core.push_tables import PushSubscription

_PREFIX = "push:"

#: Where the transaction's first query left the seats with a push subscription
#: (``session.info[PUSH_SEATS][game_id]``: a set of seat ids).
PUSH_SEATS = "pbem.push_seats"

_HAS_SUBSCRIPTION = select(PushSubscription.id).where(col(PushSubscription.seat_id) == col(Seat.id)).exists()


def has_subscription() -> Any:
    """The column ``EXISTS (a push subscription of the row's seat)``, for a query of seats."""
    return _HAS_SUBSCRIPTION


def recipient(seat_id: int) -> str:
    """The outbox recipient of a push to a seat (``push:SEAT_ID``)."""
    return f"{_PREFIX}{seat_id}"


def seat_id_of(recipient_: str) -> int | None:
    """The seat a push row goes to (``None`` for anything else)."""
    if not recipient_.startswith(_PREFIX) or not recipient_[len(_PREFIX):].isdigit():
        return None
    return int(recipient_[len(_PREFIX):])


def subscription_of(session: Session, seat_id: int | None) -> PushSubscription | None:
    """The seat's push subscription, if it has one."""
    if seat_id is None:
        return None
    return session.exec(select(PushSubscription).where(PushSubscription.seat_id == seat_id)).first()


def subscribed(session: Session, game: Game, seat: Seat) -> bool:
    """Whether the seat has a push subscription (known already if its token was
    looked up in this transaction)."""
    known = session.info.get(PUSH_SEATS, {}).get(game.id)
    if known is not None:
        return seat.id in known
    return subscription_of(session, seat.id) is not None


def planned_notices(session: Session, game: Game, seat: Seat, ply: int, *, base_url: str,
                    now: datetime) -> list[dict[str, Any]]:
    """The outbox rows (:func:`pbem.core.outbox.row_values`) that tell a person
    it is now their turn: the push, the turn mail, or both."""
    event = events.key(Event.PLY, ply)
    pushed = seat.id is not None and subscribed(session, game, seat)
    rows: list[dict[str, Any]] = []
    if pushed:
        assert seat.id is not None
        rows.append(row_values(kind=OutboxKind.PUSH, event=event, recipient=recipient(seat.id), seat_id=seat.id,
                               base_url=base_url, now=now, game_id=game.id))
    mode = seat.push_mode if pushed else PushMode.MAIL
    if seat.mail != MailChoice.EVERY or mode == PushMode.PUSH_ONLY or not seat.email:
        return rows
    due = now + timedelta(minutes=seat.push_minutes) if mode == PushMode.PUSH_FIRST else None
    rows.append(row_values(kind=OutboxKind.TURN, event=event, recipient=seat.email, seat_id=seat.id,
                           base_url=base_url, now=now, game_id=game.id, due=due))
    return rows
