"""Practice from here: a private game against the computer from another game's
position, which never touches that game and is never rated.

From a finished game's replay, any position but the last, in any seat: the
clans are the game's own (the end showed them to everyone).  From a running
game, its current position, in the practising player's own seat, with only
what that seat may see: its own clan, and the others' drawn again
(``secrets``' randomness) among the clans not ruled out for them
(:func:`pbem.rules.practice.redeal`, which is given the seat's view and
nothing else).

How it starts: the practice game's record is the original's board, set-up and
moves up to that position, with its own players and clans
(:func:`pbem.rules.practice.practice_record`), replayed by the rules; so its
record and replay are those of any game.  The moves before the practice began
are in its position's history; only the moves played in it are stored as its
moves (``MoveRecord``), and ``Game.practice_of`` / ``practice_ply`` say
where it came from.  Its other seats are the computer's from the start (so
the computer moves at once, as in any game against it), and
``Game.practice_of`` keeps it out of ratings and stats.

Each start counts against ``LIMIT_PRACTICE`` for the practising address (and,
on the web, ``LIMIT_NEW_GAMES`` for the client): a practice game costs the
computer's work."""

from __future__ import annotations

import logging
import random
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence, cast

from sqlmodel import Session, col, select

from ..core import errors, tokens
from ..core.context import Context
from ..core.db import session_scope
from ..core.links import seat_token
from ..core.models import Game, GameStatus, MailChoice, Seat
from ..people.players import BadName, clean_name
from ..rules import RulesError
from ..rules.practice import practice_record, redeal
from ..rules.record import export_record, play_record
from ..rules.views import PlayerView
from ..words import N_
from ..words.language import DEFAULT_LANGUAGE
from . import snapshots
from .announcing import computer_turn, deadline_for, hand_on, turn_mail
from .lookup import game_by_public_id, refuse_computer_seat, rules_game, seat_and_game
from .starting import COMPUTER_NAMES, LEVELS
from .views import game_view

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Practice:
    """A practice game just started."""

    #: Its public id.
    game: str
    #: The practising player's seat token in it.
    token: str


@dataclass(frozen=True)
class Origin:
    """Where a practice game came from, for its seat page."""

    #: The original game's public id, and the position (moves played) it started from.
    game: str
    ply: int


@dataclass(frozen=True)
class _Person:
    name: str
    email: str
    language: str
    time_zone: str | None


def practice_from_replay(ctx: Context, public_id: object, ply: object, seat: object, level: object,
                         email: str, language: str = DEFAULT_LANGUAGE) -> Practice:
    """Practise from position ``ply`` (0: the set-up) of a finished game, in
    seat ``seat`` (0 the first player), against the computer at ``level``.
    ``email``: the signed-in person practising (the caller checked the sign-in)."""
    _check_level(level)
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        original = game_by_public_id(session, public_id)
        ended = rules_game(original)
        if original.status != GameStatus.FINISHED or ended is None:
            raise errors.Conflict(N_("practice from the replay opens when the game is over; in a game you play, "
                                     "practise from your own seat's page"), code="not-finished")
        record = export_record(ended, reveal=True)
        moves = len(record["moves"])
        if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply < moves:
            raise errors.Invalid(N_("practice starts from a position before the end: move 0 to %(last)d"),
                                 last=moves - 1, code="no-such-position", field="ply")
        players = record["players"]
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(players):
            raise errors.Invalid(N_("there is no seat %(seat)s in this game"), seat=str(seat)[:12],
                                 code="invalid-seat", field="seat")
        person = _person(session, email, language)
        clans = [record["clans"][name] for name in players]
        ctx.limit("LIMIT_PRACTICE", [person.email])
        made, outbox, computer = _start(ctx, session, original, record, ply, seat, clans, person, str(level), now)
        source = original.public_id
    log.info("practice game %s started from move %d of finished game %s", made.game, ply, source,
             extra={"game": made.game})
    ctx.relay(outbox)
    hand_on(ctx, computer)
    return made


def practice_from_seat(ctx: Context, token: object, level: object, ply: object = None) -> Practice:
    """Practise from the current position of the token's running game, in its
    own seat, against the computer at ``level``: the others' clans drawn again
    from what this seat may see.  ``ply``: the position the player saw (their
    page's); refused as ``stale`` if the game has moved on since."""
    _check_level(level)
    if ply is not None and (isinstance(ply, bool) or not isinstance(ply, int) or ply < 0):
        raise errors.BadRequest(N_("ply must be the number of moves you saw (a whole number)"), code="bad-request")
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, original, seats = seat_and_game(session, token)
        refuse_computer_seat(seat)
        position = rules_game(original)
        if original.status != GameStatus.ACTIVE or position is None:
            raise errors.Conflict(N_("practice from here works while the game is being played; once it is over, "
                                     "practise from any position of its replay"),
                                  code="not-started" if original.status == GameStatus.INVITED else "game-over")
        if ply is not None and ply != original.ply:
            raise errors.Conflict(
                N_("the game has moved on: you saw move %(seen)d, it is now at move %(ply)d; "
                   "reload to see the new position"), seen=ply + 1, ply=original.ply + 1, code="stale")
        # What this seat may see, and only that: its view (the clans it holds)
        # and the game's public record (no clans before the end).
        view = cast(PlayerView, game_view(ctx, original, seats, seat, position=position))
        record = export_record(position, reveal=False)
        clans = redeal(view, random.SystemRandom())
        person = _Person(seat.name, seat.email, seat.language, seat.time_zone)
        ctx.limit("LIMIT_PRACTICE", [seat.email])
        made, outbox, computer = _start(ctx, session, original, record, original.ply, seat.position, clans, person,
                                str(level), now)
        source, ply = original.public_id, original.ply
    log.info("practice game %s started from move %d of running game %s", made.game, ply, source,
             extra={"game": made.game})
    ctx.relay(outbox)
    hand_on(ctx, computer)
    return made


def origin_of(session: Session, game: Game) -> Origin | None:
    """Where a practice game came from (``None`` for any other game), in the caller's transaction."""
    if game.practice_of is None:
        return None
    found = session.exec(select(Game.public_id).where(col(Game.id) == game.practice_of)).first()
    return None if found is None else Origin(found, game.practice_ply or 0)


def _check_level(level: object) -> None:
    if level not in LEVELS:
        raise errors.Invalid(N_("the computer's level must be one of %(levels)s"), levels=", ".join(LEVELS),
                             code="invalid-level", field="level")


def _person(session: Session, email: str, language: str) -> _Person:
    """The signed-in person as their latest seat names them (a signed-in address
    has one: signing in needs a game)."""
    latest = session.exec(select(Seat).where(col(Seat.email) == email, col(Seat.bot).is_(None))
                          .order_by(col(Seat.id).desc()).limit(1)).first()
    if latest is None:
        raise errors.Unauthorized(N_("sign in first: ask for a sign-in link by email"), code="not-signed-in")
    try:
        name = clean_name(latest.name)
    except BadName:  # erased at their request (pbem admin forget) or from older rules
        name = "Player"
    return _Person(name, email, language, latest.time_zone)


def _start(ctx: Context, session: Session, original: Game, record: dict[str, Any], ply: int, seat_no: int,
           clans: Sequence[str], person: _Person, level: str, now: datetime
           ) -> tuple[Practice, list[int | None], tuple[int, int] | None]:
    """The practice game: made, dealt (the record replayed to ``ply``) and
    started in the caller's transaction.  Returns it, its first messages and
    the computer's turn, for the caller to hand on after the commit."""
    free = (name for name in COMPUTER_NAMES if name.lower() != person.name.lower())
    names = [person.name if n == seat_no else next(free) for n in range(len(clans))]
    try:
        position = play_record(practice_record(record, ply, names, clans))
    except RulesError as e:  # the original's own moves: they replay, or the original is broken
        raise errors.Conflict(N_("this position cannot be practised from"),
                              code="invalid-record") from e
    if position.is_over():
        raise errors.Conflict(N_("the game is over at this position: practise from an earlier one"),
                              code="game-over")
    game = Game(public_id=tokens.public_id(), status=GameStatus.ACTIVE, turn_hours=original.turn_hours,
                created_at=now, started_at=now, seed=secrets.randbits(31), practice_of=original.id,
                practice_ply=ply, ply=position.ply)
    session.add(game)
    session.flush()
    assert game.id is not None  # the flush gave it one
    seats = []
    for n, name in enumerate(names):
        salt = tokens.new_salt()
        mine = n == seat_no
        seat = Seat(game_id=game.id, position=n, name=name, email=person.email if mine else "",
                    token_salt=salt, token_hash=tokens.digest(tokens.derive(ctx.secret_key, "seat", salt)),
                    accepted_at=now, clan=clans[n], vacation_days_left=ctx.config["VACATION_DAYS"],
                    language=person.language if mine else DEFAULT_LANGUAGE,
                    time_zone=person.time_zone if mine else None,
                    bot=None if mine else level, bot_from=None if mine else 0,
                    mail=MailChoice.EVERY if mine else MailChoice.NONE)
        session.add(seat)
        seats.append(seat)
    session.flush()
    game.state = snapshots.write(position)
    game.turn_seat = position.turn
    game.deadline = deadline_for(ctx, game, seats, position, now)
    session.add(game)
    session.flush()
    outbox = turn_mail(ctx, session, game, seats, position, now)
    made = Practice(game.public_id, seat_token(ctx, seats[seat_no]))
    return made, outbox, computer_turn(game, seats)
