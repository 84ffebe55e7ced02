"""Moving: a player's move checked by the rules and stored under the ply guard."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from .. import rules
from ..core import errors, metrics
from ..core.context import Context
from ..core.db import session_scope
from ..core.models import Game, GameStatus, MoveRecord, Seat, table_of
from ..people import ratings
from ..rules import Move, RulesError
from ..rules.views import SeatView
from ..words import N_
from .announcing import charge_clock, computer_turn, deadline_for, hand_on, turn_mail, turn_start
from .lookup import refuse_computer_seat, rules_game, seat_and_game
from .views import game_view


def read_move(text: object, *, strict: bool = True) -> Move:
    """A move as a player typed it (the seat page's form), parsed once where it comes
    in: the house passes the :class:`Move` on.  Not a move: a refusal
    (``MoveRefused``), counted with the refused moves as :func:`submit_move` counts them."""
    try:
        return _parsed(text, strict)
    except errors.ServiceError as e:
        metrics.move(e.code)
        raise


def submit_move(ctx: Context, token: object, move: Move | object, order: object, ply: object,
                *, strict: bool = False) -> SeatView:
    """Validate a move with the rules and store it in one transaction guarded by
    ``ply``; returns the mover's new view.  Resubmitting a move that was already
    accepted returns the current view and changes nothing.  ``move`` is a
    :class:`Move`, or the text of one (the API's JSON), parsed here."""
    try:
        view = _submit_move(ctx, token, move, order, ply, strict=strict)
    except errors.ServiceError as e:
        metrics.move(e.code)
        raise
    metrics.move("accepted")
    return view


def _parsed(text: object, strict: bool) -> Move:
    try:
        return Move.parse(text, strict=strict)
    except RulesError as e:
        raise errors.MoveRefused(e) from e


def _submit_move(ctx: Context, token: object, move: Move | object, order: object, ply: object,
                 *, strict: bool = False) -> SeatView:
    if isinstance(ply, bool) or not isinstance(ply, int) or ply < 0:
        raise errors.BadRequest(N_("ply must be the number of moves you saw (a whole number)"), code="bad-request")
    parsed = move if isinstance(move, Move) else _parsed(move, strict)
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        if game.status == GameStatus.INVITED:
            raise errors.Conflict(N_("the game starts when every player has accepted"), code="not-started")
        if ply != game.ply:
            if ply < game.ply and _already_played(session, game, seat, ply, parsed, order):
                return game_view(ctx, game, seats, seat)
        if game.status != GameStatus.ACTIVE:
            raise errors.Conflict(N_("the game is over"), code="game-over")
        if ply != game.ply:
            raise errors.Conflict(
                N_("the game has moved on: you saw move %(seen)d, it is now at move %(ply)d; "
                   "reload to see the new position"), seen=ply + 1, ply=game.ply + 1, code="stale")
        refuse_computer_seat(seat)
        position = rules_game(game)
        assert position is not None and position.turn is not None  # an active game has a player to move
        if position.turn != seat.position:
            raise errors.Conflict(N_("it is %(name)s's turn, not yours"), name=seats[position.turn].name,
                                  code="not-your-turn")
        try:
            position.push(parsed, order)
        except RulesError as e:
            raise errors.MoveRefused(e) from e
        outbox = store_move(ctx, session, game, seats, seat, position, parsed, order, now, autopilot=False)
        if outbox is None:
            raise errors.Conflict(N_("another move was stored first; reload to see it"), code="stale")
        if seat.autopilot_streak:
            seat.autopilot_streak = 0
            session.add(seat)
        view = game_view(ctx, game, seats, seat, position=position)
        computer = computer_turn(game, seats)
    ctx.relay(outbox)
    hand_on(ctx, computer)
    return view


# A move's writes, built once and run on the session's connection: the ORM's
# unit of work would cost more than the statements themselves on the busiest
# path of the service.  The game row is guarded by the ply the mover saw.
_GAME = table_of(Game)
_ADVANCE = update(_GAME).where(_GAME.c.id == bindparam("guard_id"), _GAME.c.ply == bindparam("guard_ply"))
_RECORD_MOVE = insert(table_of(MoveRecord))


def store_move(ctx: Context, session: Session, game: Game, seats: list[Seat], seat: Seat,
               position: rules.Game, move: Move, order: object, now: datetime,
               *, autopilot: bool) -> list[int | None] | None:
    """Write the position after ``move`` if nobody stored a move first."""
    old_ply = game.ply
    over = position.is_over()
    charge_clock(game, seat, now)
    values: dict[str, Any] = dict(
        ply=position.ply, state=json.dumps(position.to_json()), turn_seat=position.turn,
        deadline=deadline_for(ctx, game, seats, position, now),
        turn_started_at=None if position.turn is None else turn_start(seats[position.turn], now),
        reminded_for=None, status=GameStatus.FINISHED if over else game.status,
        finished_at=now if over else game.finished_at,
    )
    conn = session.connection()
    stored = conn.execute(_ADVANCE, dict(values, guard_id=game.id, guard_ply=old_ply))
    if stored.rowcount != 1:
        return None  # another move was stored first
    for name, value in values.items():
        # The row now holds these: the loaded game says so without being
        # marked changed (which would write it again at the commit).
        set_committed_value(game, name, value)
    conn.execute(_RECORD_MOVE, dict(
        game_id=game.id, ply=old_ply, position=seat.position, move=str(move),
        order=json.dumps(order) if order is not None else None, by_autopilot=autopilot, created_at=now,
    ))
    if over:
        # The results and the ratings, with the move that ends the game (and only it).
        ratings.record_end(session, game, seats, position, now)
    return turn_mail(ctx, session, game, seats, position, now)


def _already_played(session: Session, game: Game, seat: Seat, ply: int, move: Move, order: object) -> bool:
    row = session.exec(select(MoveRecord).where(MoveRecord.game_id == game.id, MoveRecord.ply == ply)).first()
    if row is None or row.position != seat.position or row.move != str(move):
        return False
    return order is None or row.order is None or json.loads(row.order) == order
