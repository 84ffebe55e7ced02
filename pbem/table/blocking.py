"""Blocking another player from a seat: by the seat they sit in, or by a table
message they wrote.  The block is between the two people (addresses:
:mod:`pbem.people.blocks`), so it holds in every game; the blocker never
learns the other's address, only the name they see at this table.

Refused, changing nothing: a seat that is not a number or not in this game
(``Invalid``, ``invalid-seat``), a message not at this table (``NotFound``,
``no-message``), yourself (``Conflict``, ``own-seat``), and a seat with
nobody behind it, the computer's or an erased player's (``Conflict``,
``not-a-person``)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from ..core import errors
from ..core.context import Context
from ..core.db import session_scope
from ..core.models import Seat, TableMessage
from ..people import blocks
from ..words import N_
from pbem.games.lookup import refuse_computer_seat, seat_and_game


@dataclass(frozen=True)
class BlockDone:
    """What a block (or unblock) from a seat came to."""

    #: The other player's seat at this table, and their name there.
    seat: int
    name: str
    #: Whether the viewer blocks them now.
    blocked: bool
    #: Whether this call changed anything.
    changed: bool


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _target(session: Session, me: Seat, seats: list[Seat], seat: object, message: object) -> Seat:
    if (seat is None) == (message is None):
        raise errors.Invalid(N_("name the player to block: their seat, or a message they wrote"),
                             code="no-target", field="seat")
    if message is not None:
        said = session.get(TableMessage, message) if _whole(message) and 0 < int(str(message)) < 2**31 else None
        if said is None or said.game_id != me.game_id:
            raise errors.NotFound(N_("there is no message %(number)s at this table"), number=str(message)[:20],
                                  code="no-message")
        found = next((s for s in seats if s.id == said.seat_id), None)
    else:
        found = next((s for s in seats if s.position == seat), None) if _whole(seat) else None
        if found is None:
            raise errors.Invalid(N_("seat must be the number of a seat in this game"), code="invalid-seat",
                                 field="seat")
    assert found is not None  # a message's seat is one of its game's
    if found.id == me.id or (found.email and found.email == me.email):
        raise errors.Conflict(N_("you cannot block yourself"), code="own-seat")
    if not found.email:
        raise errors.Conflict(N_("nobody plays that seat but the computer: there is nobody to block"),
                              code="not-a-person")
    return found


def block_player(ctx: Context, token: object, *, seat: object = None, message: object = None) -> BlockDone:
    """Block the person in another seat of this game (``seat``), or the author
    of one of its messages (``message``): their talk is hidden from you, and
    you are never seated together again."""
    with session_scope(ctx.engine) as session:
        me, _, seats = seat_and_game(session, token)
        refuse_computer_seat(me)
        other = _target(session, me, list(seats), seat, message)
        made = blocks.block(session, me.email, other.email, other.name, ctx.now())
        return BlockDone(seat=other.position, name=other.name, blocked=True, changed=made)


def unblock_player(ctx: Context, token: object, *, seat: object = None, message: object = None) -> BlockDone:
    """Undo :func:`block_player` (unblocking someone not blocked changes nothing)."""
    with session_scope(ctx.engine) as session:
        me, _, seats = seat_and_game(session, token)
        refuse_computer_seat(me)
        other = _target(session, me, list(seats), seat, message)
        done = blocks.unblock(session, me.email, other.email)
        return BlockDone(seat=other.position, name=other.name, blocked=False, changed=done)


def blocked_seats(session: Session, me: Seat, seats: list[Seat]) -> set[int]:
    """The positions at this table of people the seat's player blocked."""
    mine = blocks.blocked_by(session, me.email) if me.email else set()
    return {s.position for s in seats if s.email and s.email in mine}
