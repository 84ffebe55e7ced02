"""Moving: a player's move checked by the rules and stored under the ply guard."""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, func, insert, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from .. import rules
from ..core import errors, metrics, prepared
from ..core.context import Context
from ..core.db import autocommit_scope, begin_transaction
from ..core.models import Game, GameStatus, MoveRecord, Outbox, Seat, table_of
from ..people import ratings
from ..rules import Move, RulesError
from ..rules.views import SeatView
from ..words import N_
from . import premoves, snapshots
from .announcing import (charge_clock, computer_turn, deadline_for, game_clock, hand_on, outgoing, planned_mail,
                         turn_mail, turn_start)
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
    # Statement by statement until the writes show what they need (see _view_then_write).
    with autocommit_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        if game.status == GameStatus.INVITED:
            raise errors.Conflict(N_("the game starts when every player has accepted"), code="not-started")
        if ply != game.ply:
            if ply < game.ply and _already_played(session, game, seat, ply, parsed, order):
                return game_view(ctx, game, seats, seat)
        if game.status != GameStatus.ACTIVE:
            raise _game_over()
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
        if not seat.autopilot_streak and _one_statement(session, game, seats, position):
            stored = _view_then_write(ctx, session, game, seats, seat, position, parsed, order, now)
        else:
            begin_transaction(session)
            stored = _write_then_view(ctx, session, game, seats, seat, position, parsed, order, now)
        if stored is None:
            raise _lost_race(session, game)
        view, outbox = stored
        computer = computer_turn(game, seats)
    ctx.relay(outbox)
    hand_on(ctx, computer)
    return view


def _game_over() -> errors.Conflict:
    return errors.Conflict(N_("the game is over"), code="game-over")


def _lost_race(session: Session, game: Game) -> errors.Conflict:
    """The write found the game changed since the look-up (see _ADVANCE): another
    move was stored, or an operator cancelled the game (it is over) or forgot a
    player (its position changed)."""
    status = session.connection().execute(select(_GAME.c.status).where(_GAME.c.id == game.id)).scalar()
    if status is not None and status != GameStatus.ACTIVE:
        return _game_over()
    return errors.Conflict(N_("another move was stored first; reload to see it"), code="stale")


def _one_statement(session: Session, game: Game, seats: list[Seat], position: rules.Game) -> bool:
    """Whether storing ``position`` writes nothing but :func:`_at_once`'s one
    statement: on PostgreSQL, a game that goes on, no pre-move to fire, no clock
    to charge."""
    return (session.get_bind().dialect.name == "postgresql" and not position.is_over()
            and not premoves.may_fire(session, seats, position) and game_clock(game) is None)


def _view_then_write(ctx: Context, session: Session, game: Game, seats: list[Seat], seat: Seat,
                     position: rules.Game, move: Move, order: object, now: datetime
                     ) -> tuple[SeatView, list[int | None]] | None:
    """The common move: the mover's view of the new position, then the one
    statement that stores it (which commits by itself: no BEGIN, no COMMIT, two
    of the move's round trips).  The view comes first so that nothing can fail
    once the position is written: a request that dies leaves nothing written,
    as a transaction would have.  ``None``: the game changed since the look-up
    (another move, or an operator; see _ADVANCE)."""
    values, mail, params = _at_once_params(ctx, session, game, seats, seat, position, move, order, now,
                                           autopilot=False)
    _committed(game, values)  # what the view shows; if the write does not hold, the request ends here
    view = game_view(ctx, game, seats, seat, position=position)
    (stored, *ids), = prepared.rows(session.connection(), _at_once(len(mail)), params)
    if stored != 1:
        return None
    return view, outgoing(mail, ids)


def _write_then_view(ctx: Context, session: Session, game: Game, seats: list[Seat], seat: Seat,
                     position: rules.Game, move: Move, order: object, now: datetime
                     ) -> tuple[SeatView, list[int | None]] | None:
    """Any other move, in the transaction: its writes (:func:`store_move`),
    then the mover's view."""
    outbox = store_move(ctx, session, game, seats, seat, position, move, order, now, autopilot=False)
    if outbox is None:
        return None
    if seat.autopilot_streak:
        seat.autopilot_streak = 0
        session.add(seat)
    return game_view(ctx, game, seats, seat, position=position), outbox


# A move's writes, built once and run on the session's connection: the ORM's
# unit of work would cost more than the statements themselves on the busiest
# path of the service.  The game row is guarded by what the mover saw: its ply,
# and its position and status as they were read, since an operator changes
# those without a move (cancel; forget, which renames the player in the
# position): a move read before either must not write the old game back over it.
_GAME = table_of(Game)
_MOVE = table_of(MoveRecord)
_OUTBOX = table_of(Outbox)
_ADVANCE = update(_GAME).where(_GAME.c.id == bindparam("guard_id"), _GAME.c.ply == bindparam("guard_ply"),
                               _GAME.c.state == bindparam("guard_state"),
                               _GAME.c.status == GameStatus.ACTIVE)
_RECORD_MOVE = insert(_MOVE)
_GAME_FIELDS = ("ply", "state", "turn_seat", "deadline", "turn_started_at", "reminded_for", "status", "finished_at")
_MOVE_FIELDS = ("game_id", "ply", "position", "move", "order", "by_autopilot", "created_at")
_OUTBOX_FIELDS = ("kind", "event", "recipient", "game_id", "seat_id", "login_id", "message_id", "created_at",
                  "next_attempt_at", "status", "attempts", "language")


@lru_cache(maxsize=None)  # one per number of mails a move writes: a few (and pbem.core.prepared keeps each)
def _at_once(rows: int) -> Any:
    """On PostgreSQL, a move that does not end the game in one statement: the game
    advanced under its ply guard, the move recorded and ``rows`` outbox rows
    written, each only if the guard let the game advance (they select from it),
    answering how many games advanced and each new row's id (NULL for a twin)."""
    def typed(prefix: str, table: Any, names: tuple[str, ...]) -> list[Any]:
        return [bindparam(f"{prefix}{name}", type_=table.c[name].type) for name in names]

    advanced = (_ADVANCE.values(dict(zip(_GAME_FIELDS, typed("game_", _GAME, _GAME_FIELDS))))
                .returning(_GAME.c.id).cte("advanced"))
    moved = insert(_MOVE).from_select(
        list(_MOVE_FIELDS), select(*typed("move_", _MOVE, _MOVE_FIELDS)).select_from(advanced)).cte("moved")
    mails = [pg_insert(_OUTBOX).from_select(
        list(_OUTBOX_FIELDS), select(*typed(f"mail{k}_", _OUTBOX, _OUTBOX_FIELDS)).select_from(advanced))
        .on_conflict_do_nothing().returning(_OUTBOX.c.id).cte(f"mail{k}") for k in range(rows)]
    answers: list[Any] = [select(func.count()).select_from(advanced).scalar_subquery(),
                          *(select(m.c.id).scalar_subquery() for m in mails)]
    return select(*answers).add_cte(moved)


def store_move(ctx: Context, session: Session, game: Game, seats: list[Seat], seat: Seat,
               position: rules.Game, move: Move, order: object, now: datetime,
               *, autopilot: bool) -> list[int | None] | None:
    """Write the position after ``move`` if nobody stored a move first, then
    each pre-move that the turns coming set off (:func:`premoves.fire`); the mail
    and posts are those of the last position.  Returns the new outbox rows."""
    while True:
        if position.is_over() or not premoves.may_fire(session, seats, position):
            # The common case, the last move of the chain: on PostgreSQL the
            # position, the move and its mail are one statement.
            return _store_last(ctx, session, game, seats, seat, position, move, order, now, autopilot=autopilot)
        if not _store_one(ctx, session, game, seats, seat, position, move, order, now, autopilot=autopilot):
            return None  # the game changed since the look-up
        # The next player's pre-move, if they set one that is legal now: played
        # at once, under the same guard, and so on round the table.
        fired = premoves.fire(session, seats, position, now)
        if fired is None:
            return turn_mail(ctx, session, game, seats, position, now)
        seat, move, order = fired
        autopilot = False
        if seat.autopilot_streak:
            seat.autopilot_streak = 0  # their own choice, not the autopilot's
            session.add(seat)


def _writes(ctx: Context, game: Game, seats: list[Seat], seat: Seat, position: rules.Game, move: Move,
            order: object, now: datetime, autopilot: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The game's new values and the move's row."""
    over = position.is_over()
    charge_clock(game, seat, now)
    values: dict[str, Any] = dict(
        ply=position.ply, state=snapshots.write(position, game.state), turn_seat=position.turn,
        deadline=deadline_for(ctx, game, seats, position, now),
        turn_started_at=None if position.turn is None else turn_start(seats[position.turn], now),
        reminded_for=None, status=GameStatus.FINISHED if over else game.status,
        finished_at=now if over else game.finished_at,
    )
    record = dict(game_id=game.id, ply=game.ply, position=seat.position, move=str(move),
                  order=json.dumps(order) if order is not None else None, by_autopilot=autopilot, created_at=now)
    return values, record


def _store_last(ctx: Context, session: Session, game: Game, seats: list[Seat], seat: Seat,
                position: rules.Game, move: Move, order: object, now: datetime,
                *, autopilot: bool) -> list[int | None] | None:
    """A move's writes and the mail of the position it leaves (``None``: the game
    changed since the look-up, and nothing was written)."""
    conn = session.connection()
    if conn.dialect.name == "postgresql" and not position.is_over():
        values, mail, params = _at_once_params(ctx, session, game, seats, seat, position, move, order, now,
                                               autopilot=autopilot)
        stored, *ids = conn.execute(_at_once(len(mail)), params).one()
        if stored != 1:
            return None  # the game changed since the look-up: nothing was written
        _committed(game, values)
        return outgoing(mail, ids)
    if not _store_one(ctx, session, game, seats, seat, position, move, order, now, autopilot=autopilot):
        return None
    return turn_mail(ctx, session, game, seats, position, now)


def _at_once_params(ctx: Context, session: Session, game: Game, seats: list[Seat], seat: Seat,
                    position: rules.Game, move: Move, order: object, now: datetime, *, autopilot: bool
                    ) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """The game's new values, the mail of the position and :func:`_at_once`'s parameters."""
    values, record = _writes(ctx, game, seats, seat, position, move, order, now, autopilot)
    mail = planned_mail(ctx, session, game, seats, position, now)
    params = {"guard_id": game.id, "guard_ply": game.ply, "guard_state": game.state,
              **{f"game_{k}": v for k, v in values.items()},
              **{f"move_{k}": v for k, v in record.items()}}
    for k, row in enumerate(mail):
        params.update({f"mail{k}_{name}": row[name] for name in _OUTBOX_FIELDS})
    return values, mail, params


def _store_one(ctx: Context, session: Session, game: Game, seats: list[Seat], seat: Seat,
               position: rules.Game, move: Move, order: object, now: datetime, *, autopilot: bool) -> bool:
    """One move's writes under the guard (see _ADVANCE), statement by statement
    (``False``: the game changed since the look-up)."""
    values, record = _writes(ctx, game, seats, seat, position, move, order, now, autopilot)
    conn = session.connection()
    advanced = conn.execute(_ADVANCE, dict(values, guard_id=game.id, guard_ply=game.ply, guard_state=game.state))
    if advanced.rowcount != 1:
        return False  # the game changed since the look-up (see _ADVANCE)
    _committed(game, values)
    conn.execute(_RECORD_MOVE, record)
    if position.is_over():
        # The results and the ratings, with the move that ends the game (and only it).
        ratings.record_end(session, game, seats, position, now)
    return True


def _committed(game: Game, values: dict[str, Any]) -> None:
    for name, value in values.items():
        # The row now holds these: the loaded game says so without being
        # marked changed (which would write it again at the commit).
        set_committed_value(game, name, value)


def _already_played(session: Session, game: Game, seat: Seat, ply: int, move: Move, order: object) -> bool:
    row = session.exec(select(MoveRecord).where(MoveRecord.game_id == game.id, MoveRecord.ply == ply)).first()
    if row is None or row.position != seat.position or row.move != str(move):
        return False
    return order is None or row.order is None or json.loads(row.order) == order
