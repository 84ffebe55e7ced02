"""The autopilot: a move for a person whose time ran out, stored like theirs."""

from __future__ import annotations

import random
from typing import Mapping

from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core import events
from ..core.events import Event
from ..core.models import GameStatus, MailChoice
from ..core.outbox import OutboxKind, enqueue
from ..core.vacation_tables import VacationBank
from ..people import vacation
from ..rules.bots import choose_move
from .announcing import computer_turn, hand_on
from .computer import CLOCK_BOT_SECONDS, autopilot_seed, computer_move
from .lookup import game_to_move_in, rules_game
from .moves import store_move
from .vacation_days import spend_day


def autopilot_move(ctx: Context, game_id: int, ply: int,
                   banks: Mapping[str, VacationBank | None] | None = None) -> str | None:
    """Move for the seat whose deadline for move ``ply`` has passed, stored
    exactly like a player's move (same ply guard); every player with mail on is
    told (``deadline`` mail) and the next turn mail goes out as usual.  Returns
    the move, or ``None`` when there is nothing to do (someone moved first, the
    deadline was moved, the game is over).  ``banks``: vacation banks read
    already (:func:`pbem.people.vacation.banks`), the mover's among them."""
    now = ctx.now()
    outbox: list[int | None] = []
    turn: tuple[int, int] | None = None
    with session_scope(ctx.engine) as session:
        if banks:
            session.info[vacation.KNOWN] = dict(banks)
        game, seats = game_to_move_in(session, game_id)
        if game is None or game.status != GameStatus.ACTIVE or game.ply != ply:
            return None
        deadline = as_utc(game.deadline)
        if deadline is None or deadline > now:
            return None
        position = rules_game(game)
        if position is None or position.turn is None:
            return None
        seat = seats[position.turn]
        computer = seat.bot is not None
        if spend_day(ctx, session, game, seat, deadline, now):
            return None  # a day of their vacation went on it instead (or another clock's did)
        if not computer:
            move, order = choose_move(position, random.Random(autopilot_seed(ctx.secret_key, game.seed, ply)))
            position.push(move, order)
            stored = store_move(ctx, session, game, seats, seat, position, move,
                                list(order) if order is not None else None, now, autopilot=True)
            if stored is None:
                return None
            outbox += stored
            seat.autopilot_streak += 1
            session.add(seat)
            for s in seats:
                if s.mail != MailChoice.NONE and s.bot is None:
                    outbox.append(enqueue(session, kind=OutboxKind.DEADLINE, event=events.key(Event.AUTOPILOT, ply),
                                          recipient=s.email, base_url=ctx.base_url, now=now, game_id=game_id,
                                          seat_id=s.id))
            turn = computer_turn(game, seats)
    if computer:
        # No worker moved for the computer in its time: the clock does, at its
        # level but briefly (it may have many such turns to catch up on).
        return computer_move(ctx, game_id, ply, seconds=CLOCK_BOT_SECONDS)
    ctx.relay(outbox)
    hand_on(ctx, turn)
    return str(move)
