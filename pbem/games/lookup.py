"""Finding a game and its seats: by a seat's token, by id, by public id."""

from __future__ import annotations

from typing import Any, NoReturn, Sequence

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from .. import rules
from ..core import errors, tokens
from ..core.loading import Entity, rows_as_objects
from ..core.models import Bounce, Game, Seat
from ..core.premove_tables import SET_LISTS, has_list
from ..core.vacation_tables import VacationBank
from ..people.players import AddressHashSQL, address_hash, mailbox_hash
from ..people.vacation import KNOWN as VACATION_KNOWN
from ..words import N_
from . import snapshots
from .push_turn import PUSH_SEATS, has_subscription
from .webhook_events import LIVE_WEBHOOKS, has_live_webhooks


#: Addresses a transaction has asked about already (``session.info[BOUNCES_KNOWN]
#: [address_hash]``: whether it bounces), e.g. with a seat's look-up
#: (:func:`seat_and_game`), so that the view does not ask again.
BOUNCES_KNOWN = "pbem.bounces_known"


def _refuse_seat_token() -> NoReturn:
    raise errors.Unauthorized(N_("this seat link is not valid: check that you copied the whole link"))


# Every seat of a game with the game, in seat order: one query rather than one for
# the game and one for its seats.  Built once; the filters below pick the game.
_SEATS_WITH_GAME = select(Seat, Game).join(Game, col(Game.id) == col(Seat.game_id)).order_by(col(Seat.position))
# What a move asks of its game and of each seat, answered with the seats: whether
# the game has live webhooks, whether the seat has pre-moves set, a push
# subscription, an address that bounces, and the vacation bank kept under its
# address (see _remember_for_a_move).
_ADDRESS = AddressHashSQL(col(Seat.email))
_FACTS = (has_live_webhooks(), has_list(), has_subscription(), _ADDRESS,
          select(Bounce.id).where(col(Bounce.address_hash) == _ADDRESS, col(Bounce.bouncing_at).is_not(None)).exists(),
          VacationBank.id, VacationBank.days, VacationBank.updated_at)


def _with_facts() -> Any:
    # SQLModel's select is typed for at most four columns; it takes any number.
    return select(Seat, Game, *_FACTS).join(  # type: ignore[call-overload]
        Game, col(Game.id) == col(Seat.game_id)).outerjoin(
        VacationBank, col(VacationBank.address_hash) == _ADDRESS).order_by(col(Seat.position))


# Every request that carries a seat token starts with this one: the token's game
# with its seats and what a move asks of them, so that a move need not ask again.
_SEATS_OF_TOKEN = _with_facts().where(
    col(Seat.game_id) == select(Seat.game_id).where(col(Seat.token_hash) == bindparam("digest")).scalar_subquery())
_SEATS_OF_GAME = _SEATS_WITH_GAME.where(col(Seat.game_id) == bindparam("game_id"))
# The same, of a game by its id: the clock's autopilot moves in it.
_SEATS_OF_GAME_TO_MOVE = _with_facts().where(col(Seat.game_id) == bindparam("game_id"))
# Their rows made into objects without the ORM's query (pbem.core.loading): the
# look-up of every seat request.
_SEAT_AND_GAME = (Entity(Seat), Entity(Game))


def seat_and_game(session: Session, token: object) -> tuple[Seat, Game, list[Seat]]:
    """The seat a token opens, its game, and all the game's seats in order."""
    if not tokens.well_formed(token):
        _refuse_seat_token()
    digest = tokens.digest(str(token))
    rows = rows_as_objects(session, _SEATS_OF_TOKEN, {"digest": digest}, _SEAT_AND_GAME)
    seat = next((r[0] for r in rows if r[0].token_hash == digest), None)
    if seat is None:
        _refuse_seat_token()
    _remember_for_a_move(session, rows)
    return seat, rows[0][1], [r[0] for r in rows]


def _remember_for_a_move(session: Session, rows: Sequence[Any]) -> None:
    """What a move asks of its game (live webhooks, the seats' pre-move lists,
    push subscriptions, bounces, vacation banks), answered by a query of its
    seats, where it looks first."""
    game = rows[0][1]
    info = session.info
    info.setdefault(LIVE_WEBHOOKS, {})[game.id] = bool(rows[0][2])
    info.setdefault(SET_LISTS, {}).update({r[0].id: bool(r[3]) for r in rows})
    info.setdefault(PUSH_SEATS, {})[game.id] = {r[0].id for r in rows if r[4]}
    bounces, banks = info.setdefault(BOUNCES_KNOWN, {}), info.setdefault(VACATION_KNOWN, {})
    for seat, _, _, _, _, hashed, bouncing, bank_id, days, banked_at in rows:
        if hashed is None or hashed != address_hash(seat.email):
            continue  # not hashed here (SQLite), or hashed otherwise: asked when needed
        bounces[hashed] = bool(bouncing)  # a seat without an address too: the view asks of every seat
        if seat.email and mailbox_hash(seat.email) == hashed:
            # The address is its own mailbox (no +tag, no dots a provider ignores),
            # so the bank kept under the mailbox's hash is the one found.
            banks[hashed] = None if bank_id is None else VacationBank(
                id=bank_id, address_hash=hashed, days=days, updated_at=banked_at)


def game_and_seats(session: Session, game_id: int | None) -> tuple[Game | None, list[Seat]]:
    """A game and its seats in seat order, in one query (``None`` and no seats if
    there is no such game)."""
    rows = rows_as_objects(session, _SEATS_OF_GAME, {"game_id": game_id}, _SEAT_AND_GAME)
    if not rows:
        return None, []
    return rows[0][1], [s for s, _ in rows]


def game_to_move_in(session: Session, game_id: int) -> tuple[Game | None, list[Seat]]:
    """As :func:`game_and_seats`, with what a move in the game asks answered in
    the same statement (as :func:`seat_and_game`): the clock's autopilot."""
    rows = rows_as_objects(session, _SEATS_OF_GAME_TO_MOVE, {"game_id": game_id}, _SEAT_AND_GAME)
    if not rows:
        return None, []
    _remember_for_a_move(session, rows)
    return rows[0][1], [r[0] for r in rows]


def rules_game(game: Game) -> rules.Game | None:
    return snapshots.read(game.state) if game.state else None


def game_by_public_id(session: Session, public_id: object) -> Game:
    game = None
    if tokens.is_public_id(public_id):
        game = session.exec(select(Game).where(Game.public_id == public_id)).first()
    if game is None:
        raise errors.NotFound(N_("there is no game %(game)s"), game=str(public_id)[:40])
    return game


def refuse_computer_seat(seat: Seat) -> None:
    """A seat handed to the computer is the computer's: its link only shows the game."""
    if seat.bot is not None:
        raise errors.Conflict(N_("the computer plays this seat now"), code="computer-seat")
