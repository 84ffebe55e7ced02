"""The computer's seats: its moves (decided from the seat's view alone), its hourly
budget, and handing a seat to it."""

from __future__ import annotations

import hashlib
import hmac
import logging
import random
from datetime import datetime, timedelta
from typing import Sequence, cast

from sqlalchemy import func, update
from sqlmodel import Session, col, select

from ..core import errors
from ..core.context import Context
from ..core.db import session_scope
from ..core.models import Game, GameStatus, MailChoice, MoveRecord, Seat
from ..rules.computer import Budget, Level, computer_move as decide
from ..rules.views import PlayerView, SeatView
from ..words import N_
from .announcing import computer_turn, deadline_for, hand_on
from .lookup import game_and_seats, refuse_computer_seat, rules_game, seat_and_game
from .moves import store_move
from .starting import LEVELS
from .views import absent, game_view

log = logging.getLogger(__name__)


#: Hard computer moves made in one hour, in all the games of one person (a
#: human seat's address), at full strength; each is a search of up to
#: BOT_SECONDS of a worker's CPU.  Beyond it, in the games of that person, the
#: hard level searches with HARD_SMALL_BUDGET until the hour's count drops:
#: it still plays well, for a tenth of the cost.
HARD_MOVES_PER_HOUR = 60
HARD_SMALL_BUDGET = Budget(playouts=240, seconds=0.08)
#: The names the computer's seats take, the first not taken by a person.


#: The hard player's time box when the clock moves for it (no worker did in time).
CLOCK_BOT_SECONDS = 0.2


def autopilot_seed(secret_key: str, game_seed: int, ply: int, purpose: str = "autopilot") -> int:
    """The autopilot's (or the computer's, ``purpose="computer"``) random seed
    for one move: the same game and ply always give the same move.  Keyed with
    the secret key: the game's seed can be found from its public set-up, and
    with it anyone could replay the autopilot's choices for each guess of the
    absent player's clan."""
    mac = hmac.new(secret_key.encode(), f"{purpose}|{game_seed}|{ply}".encode(), hashlib.sha256)
    return int.from_bytes(mac.digest()[:8], "big")


def computer_move(ctx: Context, game_id: int, ply: int, *, seconds: float | None = None) -> str | None:
    """The computer's move in a seat it plays, for move ``ply``: decided from
    that seat's view (:func:`game_view`, as its page shows it, and nothing
    else) outside any transaction, then stored like a player's move (same ply
    guard: two workers deciding at once store one move).  Returns the move, or
    ``None`` when there is nothing to do (the game moved on, or is over, or it
    is a person's turn)."""
    with session_scope(ctx.engine) as session:
        game, seats = game_and_seats(session, game_id)
        if game is None or game.status != GameStatus.ACTIVE or game.ply != ply or game.turn_seat is None:
            return None
        seat = seats[game.turn_seat]
        if seat.bot is None:
            return None
        view = game_view(ctx, game, seats, seat)
        level = Level(seat.bot)
        rng = random.Random(autopilot_seed(ctx.secret_key, game.seed, ply, "computer"))
        spent = level is Level.HARD and hard_moves_spent(session, seats, ctx.now())
    # The seat's view is a rules' player view with more keys (its players'
    # entries extend the rules' entries; a list's invariance hides that from mypy).
    box = float(ctx.config["BOT_SECONDS"]) if seconds is None else min(seconds, float(ctx.config["BOT_SECONDS"]))
    budget = Budget(seconds=box)
    if spent:
        budget = Budget(playouts=HARD_SMALL_BUDGET.playouts, seconds=min(box, HARD_SMALL_BUDGET.seconds or box))
        log.info("game %s: a person's hour of hard computer moves is spent; move %d searched with a smaller "
                 "budget", game.public_id, ply + 1, extra={"game": game.public_id})
    move, order = decide(cast(PlayerView, view), level, rng, budget)
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        game, seats = game_and_seats(session, game_id)
        if game is None or game.status != GameStatus.ACTIVE or game.ply != ply:
            return None
        position = rules_game(game)
        assert position is not None and position.turn is not None  # an active game has a player to move
        seat = seats[position.turn]
        if seat.bot is None:
            return None
        position.push(move, order)
        outbox = store_move(ctx, session, game, seats, seat, position, move,
                            list(order) if order is not None else None, now, autopilot=False)
        if outbox is None:
            return None  # another worker stored it first
        computer = computer_turn(game, seats)
    log.info("the computer (%s) played move %d of game %s", level.value, ply + 1, game.public_id,
             extra={"game": game.public_id})
    ctx.relay(outbox)
    hand_on(ctx, computer)
    return str(move)


def hard_moves_spent(session: Session, seats: Sequence[Seat], now: datetime) -> bool:
    """Whether a person of this game (a human seat's address) has had
    :data:`HARD_MOVES_PER_HOUR` hard computer moves in the last hour, in all
    their games together (counted from the moves stored: no state of its own)."""
    people = sorted({s.email for s in seats if s.bot is None and s.email})
    if not people:
        return False
    for person in people:
        games = select(Seat.game_id).where(Seat.email == person, col(Seat.bot).is_(None))
        count = session.exec(
            select(func.count()).select_from(MoveRecord)
            .join(Seat, (col(Seat.game_id) == col(MoveRecord.game_id)) & (col(Seat.position) == col(MoveRecord.position)))
            .where(col(MoveRecord.game_id).in_(games), Seat.bot == Level.HARD.value,
                   col(MoveRecord.by_autopilot).is_(False), col(MoveRecord.created_at) >= now - timedelta(hours=1))
        ).one()
        if count >= HARD_MOVES_PER_HOUR:
            return True
    return False


def hand_to_computer(ctx: Context, token: object, level: object, seat_number: object = None) -> SeatView:
    """Let the computer play a seat for the rest of the game, at ``level``: the
    token's own seat, or (``seat_number``) an absent player's seat, which any
    other player of the game may hand over.  The seat gets no more mail; its
    link still shows the game.  Returns the view of the token's seat."""
    if level not in LEVELS:
        raise errors.Invalid(N_("the computer's level must be one of %(levels)s"),
                             levels=", ".join(LEVELS), code="invalid-level", field="bot")
    if seat_number is not None and (isinstance(seat_number, bool) or not isinstance(seat_number, int)):
        raise errors.BadRequest(N_("seat must be the number of a seat in this game"), code="bad-request")
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        if game.status != GameStatus.ACTIVE:
            raise errors.Conflict(N_("the computer can take a seat only while the game is being played"),
                                  code="not-started" if game.status == GameStatus.INVITED else "game-over")
        refuse_computer_seat(seat)
        target = seat
        if seat_number is None or seat_number == seat.position:
            if sum(1 for s in seats if s.bot is None) == 1:
                # A game the computer plays alone would only cost the workers.
                raise errors.Conflict(N_("you are the last person at this table: the computer does not play "
                                         "a game on its own"), code="last-person")
        else:
            found = next((s for s in seats if s.position == seat_number), None)
            if found is None:
                raise errors.Invalid(N_("there is no seat %(seat)d in this game"), seat=seat_number,
                                     code="invalid-seat", field="seat")
            target = found
            if target.bot is not None:
                raise errors.Conflict(N_("the computer plays that seat already"), code="computer-seat")
            if not absent(target):
                raise errors.Conflict(N_("only an absent player's seat can be handed to the computer "
                                         "(the autopilot has moved for them three times running)"),
                                      code="not-absent")
            if level == Level.EASY.value:
                # Someone else's seat must be played at least as well as the autopilot did.
                raise errors.Invalid(N_("another player's seat goes to the computer at medium or hard"),
                                     code="invalid-level", field="bot")
        target.bot = str(level)
        target.bot_from = game.ply
        target.mail = MailChoice.NONE
        target.talk_mail = False
        session.add(target)
        session.flush()
        if game.turn_seat == target.position:
            position = rules_game(game)
            assert position is not None
            # Only for the move it was loaded at: a move stored meanwhile (the
            # clock's, for an away seat) set the next player's deadline already.
            session.exec(update(Game).where(col(Game.id) == game.id, col(Game.ply) == game.ply)
                         .values(deadline=deadline_for(ctx, game, seats, position, now), reminded_for=None))
            session.refresh(game)
        log.info("seat %d of game %s handed to the computer (%s)", target.position, game.public_id, level,
                 extra={"game": game.public_id})
        view = game_view(ctx, game, seats, seat)
        computer = computer_turn(game, seats)
    hand_on(ctx, computer)
    return view
