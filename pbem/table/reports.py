"""Reporting a table message to the operator: a player at the table says
another player's message is abuse; it is stored (``TalkReport``) with an
optional reason, and the operator lists the reports with ``pbem admin
reports``.  Reporting the same message twice from a seat is reporting it once.

Refused, changing nothing: a message not at this seat's table, or unknown
(``NotFound``, ``no-message``: whether it exists elsewhere is not said), your
own message (``Conflict``, ``own-message``), a seat not at the table yet
(``Conflict``, ``table-closed``), a reason that is not text or longer than
:data:`MAX_REASON` (``Invalid``), and more reports than ``LIMIT_REPORTS``
allows a seat (``RateLimited``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from ..core import errors
from ..core.context import Context
from ..core.db import session_scope
from ..core.models import TableMessage
from ..core.people_tables import TalkReport
from ..words import N_
from pbem.games.lookup import refuse_computer_seat, seat_and_game
from .talk import clean_talk

log = logging.getLogger(__name__)

#: The longest reason, in characters.
MAX_REASON = 500


@dataclass(frozen=True)
class Reported:
    message: int
    #: Whether this call stored the report (else the seat had reported it already).
    created: bool


def report_talk(ctx: Context, token: object, message_id: object, reason: object = None) -> Reported:
    """Report a message of another player at this seat's table (see the module)."""
    if reason is not None and not isinstance(reason, str):
        raise errors.Invalid(N_("the reason must be text"), code="bad-reason", field="reason")
    said = clean_talk(reason) if reason is not None else ""
    if len(said) > MAX_REASON:
        raise errors.Invalid(N_("a reason may be at most %(max)d characters long; yours has %(length)d"),
                             max=MAX_REASON, length=len(said), code="reason-too-long", field="reason")
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        refuse_computer_seat(seat)
        message = (session.get(TableMessage, message_id)
                   if isinstance(message_id, int) and not isinstance(message_id, bool) and 0 < message_id < 2**31
                   else None)
        if message is None or message.game_id != game.id:
            raise errors.NotFound(N_("there is no message %(number)s at this table"),
                                  number=str(message_id)[:20], code="no-message")
        author = next((s for s in seats if s.id == message.seat_id), None)
        if message.seat_id == seat.id or (author is not None and author.email and author.email == seat.email):
            raise errors.Conflict(N_("that is your own message: you can only report another player's"),
                                  code="own-message")
        if seat.accepted_at is None:
            raise errors.Conflict(N_("you can report a message once you have accepted the invitation"),
                                  code="table-closed")
        assert seat.id is not None and game.id is not None and message.id is not None  # stored rows
        if session.exec(select(TalkReport.id).where(TalkReport.message_id == message.id,
                                                    TalkReport.seat_id == seat.id)).first() is not None:
            return Reported(message=message.id, created=False)
        # Counted once every check has passed: a refused report costs nothing.
        try:
            ctx.limit("LIMIT_REPORTS", [f"seat:{seat.id}"])
        except errors.RateLimited as e:
            raise errors.RateLimited(N_("you have reported many messages in a short time: please wait a while "
                                        "before the next one"), retry_after=e.retry_after) from e
        try:
            with session.begin_nested():  # two clicks at once: one report
                row = TalkReport(message_id=message.id, game_id=game.id, seat_id=seat.id,
                                 reason=said or None, created_at=ctx.now())
                session.add(row)
        except IntegrityError:
            return Reported(message=message.id, created=False)
        # The operator's log names the game and the message, never the text or an address.
        log.info("a table message was reported", extra={"game": game.public_id, "talk_message": message.id,
                                                        "report": row.id})
        return Reported(message=message.id, created=True)
