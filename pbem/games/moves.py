"""Moving: a player's move checked by the rules and stored under the ply guard."""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import String, any_, bindparam, func, insert, update
from sqlalchemy.dialects.postgresql import ARRAY, insert as pg_insert
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from .. import rules
from ..core import errors, metrics
from ..core.context import Context
from ..core.db import session_scope
from ..core.models import Bounce, Game, GameStatus, MoveRecord, Outbox, Seat, table_of
from ..core.vacation_tables import VacationBank
from ..people import ratings
from ..people.players import address_hash, mailbox_hash
from ..people.vacation import KNOWN as VACATION_KNOWN
from ..rules import Move, RulesError
from ..rules.views import SeatView
from ..words import N_
from . import premoves
from .announcing import (charge_clock, computer_turn, deadline_for, hand_on, outgoing, planned_mail, turn_mail,
                         turn_start)
from .lookup import refuse_computer_seat, rules_game, seat_and_game
from .views import BOUNCES_KNOWN, game_view


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
_MOVE = table_of(MoveRecord)
_OUTBOX = table_of(Outbox)
_BOUNCE = table_of(Bounce)
_BANK = table_of(VacationBank)
_ADVANCE = update(_GAME).where(_GAME.c.id == bindparam("guard_id"), _GAME.c.ply == bindparam("guard_ply"))
_RECORD_MOVE = insert(_MOVE)
_GAME_FIELDS = ("ply", "state", "turn_seat", "deadline", "turn_started_at", "reminded_for", "status", "finished_at")
_MOVE_FIELDS = ("game_id", "ply", "position", "move", "order", "by_autopilot", "created_at")
_OUTBOX_FIELDS = ("kind", "event", "recipient", "game_id", "seat_id", "login_id", "message_id", "created_at",
                  "next_attempt_at", "status", "attempts", "language")


@lru_cache(maxsize=8)
def _at_once(rows: int) -> Any:
    """On PostgreSQL, a move that does not end the game in one statement: the game
    advanced under its ply guard, the move recorded and ``rows`` outbox rows
    written, each only if the guard let the game advance (they select from it),
    answering how many games advanced and each new row's id (NULL for a twin);
    and, for the mover's view that answers the move, which of the table's
    addresses bounce and the mover's vacation bank (its row: id, days, as of when)."""
    def typed(prefix: str, table: Any, names: tuple[str, ...]) -> list[Any]:
        return [bindparam(f"{prefix}{name}", type_=table.c[name].type) for name in names]

    advanced = (_ADVANCE.values(dict(zip(_GAME_FIELDS, typed("game_", _GAME, _GAME_FIELDS))))
                .returning(_GAME.c.id).cte("advanced"))
    moved = insert(_MOVE).from_select(
        list(_MOVE_FIELDS), select(*typed("move_", _MOVE, _MOVE_FIELDS)).select_from(advanced)).cte("moved")
    mails = [pg_insert(_OUTBOX).from_select(
        list(_OUTBOX_FIELDS), select(*typed(f"mail{k}_", _OUTBOX, _OUTBOX_FIELDS)).select_from(advanced))
        .on_conflict_do_nothing().returning(_OUTBOX.c.id).cte(f"mail{k}") for k in range(rows)]
    bank = _BANK.c.address_hash == bindparam("view_bank")
    answers: list[Any] = [select(func.count()).select_from(advanced).scalar_subquery(),
                          *(select(m.c.id).scalar_subquery() for m in mails),
                          select(func.array_agg(_BOUNCE.c.address_hash)).where(
                              _BOUNCE.c.address_hash == any_(bindparam("view_hashes", type_=ARRAY(String))),
                              _BOUNCE.c.bouncing_at.is_not(None)).scalar_subquery(),
                          select(_BANK.c.id).where(bank).scalar_subquery(),
                          select(_BANK.c.days).where(bank).scalar_subquery(),
                          select(_BANK.c.updated_at).where(bank).scalar_subquery()]
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
            return None  # another move was stored first
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
        ply=position.ply, state=json.dumps(position.to_json()), turn_seat=position.turn,
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
    """A move's writes and the mail of the position it leaves (``None``: another
    move was stored first, and nothing was written)."""
    conn = session.connection()
    if conn.dialect.name == "postgresql" and not position.is_over():
        values, record = _writes(ctx, game, seats, seat, position, move, order, now, autopilot)
        mail = planned_mail(ctx, session, game, seats, position, now)
        params = {"guard_id": game.id, "guard_ply": game.ply, **{f"game_{k}": v for k, v in values.items()},
                  **{f"move_{k}": v for k, v in record.items()}}
        for k, row in enumerate(mail):
            params.update({f"mail{k}_{name}": row[name] for name in _OUTBOX_FIELDS})
        hashes = sorted({address_hash(s.email) for s in seats})
        bank = mailbox_hash(seat.email) if seat.email else ""
        params.update(view_hashes=hashes, view_bank=bank)
        stored, *ids, bouncing, bank_id, days, banked_at = conn.execute(_at_once(len(mail)), params).one()
        if stored != 1:
            return None  # another move was stored first: nothing was written
        _committed(game, values)
        # What the mover's view asks, answered already (pbem.games.views).
        session.info.setdefault(BOUNCES_KNOWN, {}).update({h: h in (bouncing or ()) for h in hashes})
        if bank:
            session.info.setdefault(VACATION_KNOWN, {})[bank] = (
                None if bank_id is None else VacationBank(id=bank_id, address_hash=bank, days=days, updated_at=banked_at))
        return outgoing(mail, ids)
    if not _store_one(ctx, session, game, seats, seat, position, move, order, now, autopilot=autopilot):
        return None
    return turn_mail(ctx, session, game, seats, position, now)


def _store_one(ctx: Context, session: Session, game: Game, seats: list[Seat], seat: Seat,
               position: rules.Game, move: Move, order: object, now: datetime, *, autopilot: bool) -> bool:
    """One move's writes under the ply guard, statement by statement (``False``:
    another was stored first)."""
    values, record = _writes(ctx, game, seats, seat, position, move, order, now, autopilot)
    conn = session.connection()
    advanced = conn.execute(_ADVANCE, dict(values, guard_id=game.id, guard_ply=game.ply))
    if advanced.rowcount != 1:
        return False  # another move was stored first
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
