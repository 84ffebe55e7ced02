"""The one view of a game for each viewer, that pages, API, mail, webhooks and the
computer use."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Sequence, overload

from sqlalchemy import bindparam
from sqlalchemy.orm import object_session
from sqlmodel import Session, col, select

from .. import rules
from ..core import errors
from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core.models import Bounce, Game, GameStatus, Seat
from ..people import vacation
from ..people.players import address_hash
from ..rules.record import export_record
from ..rules.views import GamePart, PlayerView, PublicView, SeatView, View, ViewPlayer, player_view, public_view
from ..words import N_
from .announcing import bank_left, game_clock
from .clock_options import Vacation
from .lookup import BOUNCES_KNOWN, game_and_seats, game_by_public_id, rules_game, seat_and_game


class SeatStatus(StrEnum):
    """The status a view says: the game's (:class:`GameStatus`), except that
    while it is invited a seat's view says whether that player accepted."""

    #: Not accepted yet (a seat's view), or not started (the public view).
    INVITED = GameStatus.INVITED.value
    #: A seat's view only: you accepted, others have not yet.
    WAITING = "waiting"
    ACTIVE = GameStatus.ACTIVE.value
    FINISHED = GameStatus.FINISHED.value
    EXPIRED = GameStatus.EXPIRED.value
    CANCELLED = GameStatus.CANCELLED.value


def seat_status(game_status: str, accepted: bool | None) -> SeatStatus:
    """What a view says of a game of ``game_status``: for a seat, whether it
    ``accepted``; ``None`` for the public view."""
    if game_status == GameStatus.INVITED and accepted is not None:
        return SeatStatus.WAITING if accepted else SeatStatus.INVITED
    return SeatStatus(game_status)


def status_for(game: Game, seat: Seat | None) -> SeatStatus:
    return seat_status(game.status, None if seat is None else seat.accepted_at is not None)


@overload
def game_view(ctx: Context, game: Game, seats: Sequence[Seat], viewer: Seat,
              *, position: rules.Game | None = None) -> SeatView: ...


@overload
def game_view(ctx: Context, game: Game, seats: Sequence[Seat], viewer: None,
              *, position: rules.Game | None = None) -> View: ...


def game_view(ctx: Context, game: Game, seats: Sequence[Seat], viewer: Seat | None,
              *, position: rules.Game | None = None) -> View:
    """The one view of a game for one viewer (a seat, or ``None`` for anyone):
    the rules' view plus the service's facts.  Pages, API and mail all use it.
    ``position``: the game's position when the caller holds it already (the one
    ``game.state`` stores), so that it is not parsed again."""
    if position is None:
        position = rules_game(game)
    if position is None:
        public: PublicView = {
            "ply": 0, "finished": False, "players": [
                {"seat": s.position, "name": s.name, "chips": 0, "clan": None,
                 "to_move": False, "final_score": None} for s in seats
            ],
            "huts": {}, "villages": [], "history": [], "last_move": None, "next": None,
            "next_seat": None, "clan_scores": {}, "epoch": 1, "end": None,
            "final_scores": None, "winners": None, "villages_founded": 0, "board": "classic",
        }
        own: PlayerView | None = None if viewer is None else {
            **public, "seat": viewer.position, "you": viewer.name, "clan": None, "your_turn": False,
            "legal_moves": [], "founding": {},
        }
    elif viewer is None:
        public, own = public_view(position), None
    else:
        public = own = player_view(position, viewer.position)
    now = ctx.now()
    # Whose mail bounces is for the table, not for anyone with the game's id.
    unreachable = set() if viewer is None else _unreachable(viewer, seats)
    players: list[ViewPlayer] = []
    for entry, seat in zip(public["players"], seats):
        paused = as_utc(seat.paused_until)
        bank = bank_left(game, seat, now)
        players.append({**entry, "accepted": seat.accepted_at is not None, "absent": absent(seat),
                        "paused_until": paused.isoformat() if paused and paused > now else None,
                        "unreachable": seat.id in unreachable, "bot": seat.bot, "bot_from": seat.bot_from,
                        "bank_hours": None if bank is None else round(bank.total_seconds() / 3600, 2)})
    deadline = as_utc(game.deadline)
    clock = game_clock(game)
    facts: GamePart = {
        "game": game.public_id,
        "status": status_for(game, viewer),
        "turn_hours": game.turn_hours,
        "deadline": deadline.isoformat() if deadline and game.status == GameStatus.ACTIVE else None,
        "clock": None if clock is None else {"days": clock.days, "increment_hours": clock.increment_hours,
                                             "max_days": clock.max_days},
        "weekends_off": game.weekends_off,
        "vacation": Vacation.OFF if game.vacation_off else Vacation.ON,
    }
    if viewer is None or own is None:
        return {**public, "players": players, **facts}
    view: SeatView = {**own, "players": players, **facts, "mail": viewer.mail,
                      "vacation_days_left": _vacation_left(ctx, viewer), "language": viewer.language,
                      "time_zone": viewer.time_zone, "board_style": viewer.board_style}
    return view


def _vacation_left(ctx: Context, viewer: Seat) -> int:
    """The viewer's whole vacation days (a person's, over all their games), read
    in the transaction that loaded their seat."""
    session = object_session(viewer)
    if viewer.bot is not None or not isinstance(session, Session):
        return 0
    return int(vacation.days_left(session, viewer.email, ctx.now(), ctx.config))


def absent(seat: Seat) -> bool:
    """The autopilot moved for them three times running (and the computer does not play the seat)."""
    return seat.autopilot_streak >= 3 and seat.bot is None


# Which of some addresses bounce: asked for every seat's view (each move's
# answer), and it mostly finds none.  Built once, as pbem.games.lookup's are.
_BOUNCING = select(Bounce.address_hash).where(col(Bounce.address_hash).in_(bindparam("hashes", expanding=True)),
                                              col(Bounce.bouncing_at).is_not(None))




def _unreachable(viewer: Seat, seats: Sequence[Seat]) -> set[int | None]:
    """The seats whose address bounces, read in the transaction that loaded the
    viewer's seat (every caller of ``game_view`` holds one)."""
    session = object_session(viewer)
    if not isinstance(session, Session):
        return set()
    hashes = {address_hash(s.email): s.id for s in seats}
    known = session.info.get(BOUNCES_KNOWN, {})
    if all(h in known for h in hashes):
        return {seat_id for h, seat_id in hashes.items() if known[h]}
    found = session.exec(_BOUNCING, params={"hashes": list(hashes)}).all()
    return {hashes[h] for h in found}


def seat_view(ctx: Context, token: object) -> SeatView:
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        return game_view(ctx, game, seats, seat)


def public_game(ctx: Context, public_id: object) -> View:
    """What anyone may see of the game with this public id."""
    with session_scope(ctx.engine) as session:
        game = game_by_public_id(session, public_id)
        _, seats = game_and_seats(session, game.id)
        return game_view(ctx, game, seats, None)


def export_game(ctx: Context, public_id: object) -> dict[str, Any]:
    """The game's ``clans-record/1``; clans only once it is over."""
    with session_scope(ctx.engine) as session:
        game = game_by_public_id(session, public_id)
        position = rules_game(game)
        if position is None:
            raise errors.Conflict(N_("game %(game)s has not started: it has no record yet"), game=public_id,
                                  code="not-started")
        return export_record(position, reveal=position.is_over())
