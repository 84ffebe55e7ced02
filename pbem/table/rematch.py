"""Rematch: "Play again" after the end starts a new game with the same players,
through :func:`games.start_game` like any game.  The player who asks is its
first player, confirmed at once; the others are invited by mail and accept as
for any game.  A finished game has at most one rematch (``Game.rematch_of`` is
unique): a second click, or another player's, leads to the one there is.

Who sits at the rematch: every person of the finished game (with their name,
address, language and time zone) and every seat the computer was given from
the start, at its level.  A person's seat that was handed to the computer
during the game goes back to that person: a rematch asks them again, and
nobody plays for them unless they accept.

People who blocked one another (``pbem.people.blocks``, either way) are never
seated together: such a game has no rematch (refused, ``blocked``, naming
nobody), rather than one without some of its players that nobody asked for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from sqlmodel import Session, col, select

from ..core import errors
from ..core.context import Context
from ..core.db import session_scope
from ..core.models import Game, GameStatus, Seat
from pbem.games.lookup import refuse_computer_seat, seat_and_game
from pbem.core.links import seat_token
from ..words import N_
from ..people import blocks, reachability
from .. import games


@dataclass(frozen=True)
class Rematch:
    #: The rematch's public id.
    game: str
    #: The asking player's own seat token in it (``None``: they have no seat there).
    token: str | None
    #: Whether this call started it (else it was there already).
    created: bool


def play_again(ctx: Context, token: object, *, before_start: Callable[[], None] = lambda: None) -> Rematch:
    """Start the rematch of the token's finished game, or find the one there is.
    ``before_start`` runs only when a new game is about to be made (the web's
    per-client limit on new games: a click that finds the rematch costs nothing)."""
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        refuse_computer_seat(seat)
        if game.status != GameStatus.FINISHED:
            raise errors.Conflict(N_("a rematch can start only when this game is over"), code="not-finished")
        found = _rematch_of(ctx, session, game, seat)
        if found is not None:
            return found
        for other in seats:
            if not other.email and not (other.bot is not None and other.bot_from == 0):
                # A person erased at their request (pbem admin forget): nobody to invite.
                raise errors.Conflict(N_("%(name)s has been erased from this service at their request, so a "
                                         "rematch cannot invite them: start a new game without them"),
                                      name=other.name, code="erased")
            if other.email and reachability.is_suppressed(session, other.email):
                raise errors.Conflict(N_("%(name)s has asked us never to send them mail, so a rematch cannot "
                                         "invite them: start a new game without them"), name=other.name,
                                      code="suppressed")
            if other.email and reachability.is_unreachable(session, other.email):
                raise errors.Conflict(N_("mail to %(name)s bounces, so a rematch could not invite them: start "
                                         "a new game without them"), name=other.name, code="unreachable")
        if blocks.blocked_pair(session, [s.email for s in seats if s.email]):
            # Never seated together again; which of them blocked whom is nobody's business.
            raise errors.Conflict(N_("some players of this game cannot be seated together again, so there is "
                                     "no rematch: start a new game with the players you choose"), code="blocked")
        # The one asking starts it (and so is confirmed); the others in their seats' order.
        ordered = [seat, *(s for s in seats if s.id != seat.id)]
        players: list[dict[str, Any]] = [
            {"bot": s.bot} if s.bot is not None and s.bot_from == 0 else
            {"name": s.name, "email": s.email, "language": s.language, "time_zone": s.time_zone}
            for s in ordered
        ]
        game_id, email, hours = game.id, seat.email, game.turn_hours
        # The same clock, weekends and vacation as the game it replays.
        options = games.TimeOptions(games.game_clock(game), game.weekends_off, game.vacation_off)
    assert game_id is not None  # a loaded game has its id
    parsed = games.parse_players(players)
    before_start()
    try:
        public_id = games.start_game(ctx, parsed, hours, confirmed=True, rematch_of=game_id, options=options)
    except errors.Conflict as e:
        if e.code != "rematch-exists":
            raise
        # Another player's click made it first: theirs is the rematch.
        with session_scope(ctx.engine) as session:
            seat, game, _ = seat_and_game(session, token)
            found = _rematch_of(ctx, session, game, seat)
        assert found is not None  # it exists: that is why this one was refused
        return found
    with session_scope(ctx.engine) as session:
        return Rematch(public_id, _own_token(ctx, session, public_id, email), created=True)


def _rematch_of(ctx: Context, session: Session, game: Game, seat: Seat) -> Rematch | None:
    rematch = session.exec(select(Game.public_id).where(col(Game.rematch_of) == game.id)).first()
    if rematch is None:
        return None
    return Rematch(rematch, _own_token(ctx, session, rematch, seat.email) if seat.email else None, created=False)


def _own_token(ctx: Context, session: Session, public_id: str, email: str) -> str | None:
    """The seat token of the person with this address in the game with this public id."""
    found = session.exec(select(Seat).join(Game, col(Game.id) == col(Seat.game_id))
                         .where(col(Game.public_id) == public_id, col(Seat.email) == email)).first()
    return None if found is None else seat_token(ctx, found)


def rematch_for_seat(ctx: Context, token: object) -> Rematch | None:
    """For a finished game's seat page: the rematch, with this player's own seat in it."""
    with session_scope(ctx.engine) as session:
        seat, game, _ = seat_and_game(session, token)
        return seat_rematch(ctx, session, game, seat)


def seat_rematch(ctx: Context, session: Session, game: Game, seat: Seat) -> Rematch | None:
    """:func:`rematch_for_seat` for a seat the caller has loaded, in the caller's transaction."""
    return _rematch_of(ctx, session, game, seat) if game.status == GameStatus.FINISHED else None


def public_rematch(ctx: Context, public_id: object) -> str | None:
    """For a finished game's public page: the rematch's public id (a public
    address; nobody's seat)."""
    with session_scope(ctx.engine) as session:
        game = games.game_by_public_id(session, public_id)
        if game.status != GameStatus.FINISHED:
            return None
        return session.exec(select(Game.public_id).where(col(Game.rematch_of) == game.id)).first()
