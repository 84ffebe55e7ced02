"""Quick match: "seat me with strangers", by mail.

A request (:func:`request`) is the one seat of a game of its own, a pool game
that never starts (``pbem.core.match_tables``): the confirmation mail (kind
``match-confirm``) carries that seat's link, and accepting it (``games.accept``,
the page's button or ``POST /api/v1/seat/accept``) confirms the request.  At
once, in that transaction, the person is seated (:func:`_place`):

- at an open lobby table that fits (a player count they accept, their turn
  time, its requirements met, nobody blocked either way): their link moves into
  the table's open seat, which they have accepted; or else
- with the confirmed people waiting who accept the largest count they accept
  and the same turn time, nearest in rating, those of their language first,
  never two who blocked one another: the waiting seats move into a new game,
  which starts (it is a lobby table, so its players are strangers to one another
  as at any lobby table).

Either way the link of the confirmation mail now shows the game.  Otherwise
they wait; each later confirmation looks for them again, and :func:`retry`
(the clock) does too.  A request unconfirmed, or waiting, ``INVITE_DAYS`` after
its last acceptance expires with its pool game (the clock's ``prune``), with no
mail: the person may ask again."""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import exists, update
from sqlmodel import Session, col, select

from ..core import errors, tokens
from ..core.context import Context
from ..core.db import session_scope
from ..core.events import Event
from ..core.lobby_tables import LobbySeat, LobbyTable
from ..core.match_tables import MatchRequest
from ..core.models import Game, GameStatus, MailChoice, Seat
from ..core.outbox import OutboxKind, enqueue
from ..people import blocks, profiles
from ..people.players import mailbox
from ..people.reliability import rating_of
from ..rules.tables import MAX_PLAYERS, MIN_PLAYERS
from ..rules.views import SeatView
from ..words import N_
from . import lobby, substitutes
from .announcing import computer_turn, hand_on
from .lookup import seat_and_game
from .starting import MAX_TURN_HOURS, _start, accept as accept_invitation
from .views import game_view

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Wish:
    """Who asks, and what table they would sit at."""

    person: lobby.Joiner
    players: tuple[int, ...]
    turn_hours: int


def parse_wish(raw: dict[str, Any], default_turn_hours: int) -> Wish:
    """``{"name", "email", "players": [3, 4], "turn_hours", "language"?, "time_zone"?}``;
    ``422`` as at the start form."""
    person = lobby.parse_joiner(raw)
    counts = raw.get("players")
    if (not isinstance(counts, list) or not counts or len(counts) > MAX_PLAYERS
            or any(isinstance(n, bool) or not isinstance(n, int) or not MIN_PLAYERS <= n <= MAX_PLAYERS
                   for n in counts)):
        raise errors.Invalid(N_("players must list the player counts you accept, each %(min)d to %(max)d"),
                             min=MIN_PLAYERS, max=MAX_PLAYERS, code="invalid-players", field="players")
    hours = raw.get("turn_hours", default_turn_hours)
    if isinstance(hours, bool) or not isinstance(hours, int) or not 1 <= hours <= MAX_TURN_HOURS:
        raise errors.Invalid(N_("turn time must be 1 to %(max)d hours"), max=MAX_TURN_HOURS, code="invalid-turn-hours",
                             field="turn_hours")
    return Wish(person, tuple(sorted(set(counts))), hours)


def request(ctx: Context, wish: Wish) -> None:
    """Put ``wish`` in the pool, unconfirmed, and mail its confirmation.  A
    refusal changes nothing: ``409 already-waiting`` (this mailbox has a request
    in the pool), ``409 too-many-joins`` (its unaccepted joins and unconfirmed
    requests reach ``lobby.MAX_UNCONFIRMED_JOINS``), ``422 cannot-invite``."""
    now = ctx.now()
    person = wish.person
    box = mailbox(person.email)
    with session_scope(ctx.engine) as session:
        waiting = session.exec(
            select(MatchRequest.id).join(Game, col(Game.id) == col(MatchRequest.game_id))
            .where(col(MatchRequest.mailbox) == box, col(MatchRequest.seated_at).is_(None),
                   col(Game.status) == GameStatus.INVITED)).first()
        if waiting is not None:
            raise errors.Conflict(N_("you are waiting for a quick match already"), code="already-waiting")
        lobby.refuse_suppressed(session, person.email)
        holding = lobby.unaccepted_joins(session, box, now) + lobby.unconfirmed_requests(session, box)
        if holding >= lobby.MAX_UNCONFIRMED_JOINS:
            log.warning("quick match: a request refused, ***@%s holds %d unconfirmed joins", box.rpartition("@")[2],
                        holding)
            raise errors.Conflict(N_("you have %(num)d tables waiting for your acceptance: accept or let them "
                                     "lapse before joining another"), num=int(holding), code="too-many-joins")
        # Counted once every check has passed, with the joins (a refused request costs nobody a mail).
        ctx.limit("LIMIT_JOINS", [person.email])
        game = Game(public_id=tokens.public_id(), turn_hours=wish.turn_hours, created_at=now,
                    seed=secrets.randbits(31))
        session.add(game)
        session.flush()
        assert game.id is not None
        salt = tokens.new_salt()
        seat = Seat(game_id=game.id, position=0, name=person.name, email=person.email, token_salt=salt,
                    token_hash=tokens.digest(tokens.derive(ctx.secret_key, "seat", salt)),
                    vacation_days_left=ctx.config["VACATION_DAYS"], language=person.language,
                    time_zone=person.time_zone, mail=MailChoice.EVERY)
        session.add(seat)
        session.flush()
        assert seat.id is not None
        session.add(MatchRequest(game_id=game.id, seat_id=seat.id, mailbox=box,
                                 players=",".join(str(n) for n in wish.players), turn_hours=wish.turn_hours,
                                 language=person.language, created_at=now))
        outbox = [enqueue(session, kind=OutboxKind.MATCH_CONFIRM, event=Event.INVITE, recipient=person.email,
                          base_url=ctx.base_url, now=now, game_id=game.id, seat_id=seat.id)]
        log.info("quick match: ***@%s asks for %s players, %d hours a move", box.rpartition("@")[2],
                 "/".join(map(str, wish.players)), wish.turn_hours)
    ctx.relay(outbox)


def accept(ctx: Context, token: object) -> SeatView:
    """Accept an invitation (``games.accept``): a quick-match request's seat is
    confirmed and seated at once if it can be; a volunteer's holding seat takes
    over the away seat it was offered (:mod:`.substitutes`); any other seat is
    accepted as always."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        found = session.exec(select(MatchRequest).where(col(MatchRequest.game_id) == game.id)).first()
        handled = True
        if found is not None and game.status == GameStatus.INVITED and found.confirmed_at is None:
            found.confirmed_at = seat.accepted_at = now
            found.rating = rating_of(session, seat.email)
            session.add_all([found, seat])
            session.flush()
            log.info("quick match: request %d confirmed", found.id)
            outbox, game = _place(ctx, session, found, seat, now)
            seats = list(session.exec(select(Seat).where(col(Seat.game_id) == game.id)
                                      .order_by(col(Seat.position))))
            view = game_view(ctx, game, seats, seat)
            computer = computer_turn(game, seats)
        elif (offer := substitutes.offer_of(session, game)) is not None and game.status == GameStatus.INVITED:
            # A volunteer takes over an away seat: their link now opens it.
            outbox, game, seats, seat = substitutes.take(ctx, session, offer, seat, now)
            view = game_view(ctx, game, seats, seat)
            computer = computer_turn(game, seats)
        else:
            handled = False
    if not handled:
        return accept_invitation(ctx, token)
    ctx.relay(outbox)
    hand_on(ctx, computer)
    return view


def retry(ctx: Context) -> int:
    """Seat whoever waits and can be seated now (the clock's, after anything
    missed: e.g. a table opened since); returns how many were seated."""
    now = ctx.now()
    seated = 0
    with session_scope(ctx.engine) as session:
        ids = session.exec(_waiting().order_by(col(MatchRequest.confirmed_at))).all()
    for request_id in ids:
        with session_scope(ctx.engine) as session:
            found = session.get(MatchRequest, request_id)
            if found is None or found.seated_at is not None:
                continue
            seat = session.get(Seat, found.seat_id)
            assert seat is not None
            outbox, game = _place(ctx, session, found, seat, now)
            if found.seated_at is not None:
                seated += 1
            computer = computer_turn(game, list(session.exec(select(Seat).where(col(Seat.game_id) == game.id))))
        ctx.relay(outbox)
        hand_on(ctx, computer)
    return seated


def _waiting() -> Any:
    """Confirmed requests waiting in the pool (their pool game not expired)."""
    return (select(MatchRequest.id).join(Game, col(Game.id) == col(MatchRequest.game_id))
            .where(col(MatchRequest.confirmed_at).is_not(None), col(MatchRequest.seated_at).is_(None),
                   col(Game.status) == GameStatus.INVITED))


def _place(ctx: Context, session: Session, found: MatchRequest, seat: Seat,
           now: datetime) -> tuple[list[int | None], Game]:
    """Seat ``found`` at a lobby table, else with people waiting; the outbox rows
    and the game its seat link now shows (its pool game while it waits)."""
    placed = _at_table(ctx, session, found, seat, now) or _with_waiting(ctx, session, found, seat, now)
    if placed is None:
        pool = session.get(Game, found.game_id)
        assert pool is not None
        return [], pool
    return placed


def _at_table(ctx: Context, session: Session, found: MatchRequest, seat: Seat,
              now: datetime) -> tuple[list[int | None], Game] | None:
    """An open seat of a lobby table that fits, oldest table first."""
    candidates = session.exec(
        select(Game, LobbyTable).join(LobbyTable, col(LobbyTable.game_id) == col(Game.id))
        .where(col(Game.status) == GameStatus.INVITED, col(LobbyTable.turn_hours) == found.turn_hours,
               col(LobbyTable.seats).in_(found.counts()), exists(lobby.free_seat(now)),
               exists(lobby.creator_confirmed()))
        .order_by(col(LobbyTable.created_at), col(LobbyTable.id)).limit(20)).all()
    for game, table in candidates:
        seats = list(session.exec(select(Seat).where(col(Seat.game_id) == game.id).order_by(col(Seat.position))))
        people = [s for s in seats if s.email]
        if any(mailbox(s.email) == found.mailbox for s in people) or any(
                s.name.lower() == seat.name.lower() for s in seats if s.email or s.bot):
            continue
        if blocks.any_blocked(session, seat.email, [s.email for s in people]):
            continue
        if table.min_in_time is not None or table.min_rating is not None or table.max_rating is not None:
            if profiles.hidden(session, seat.email):
                continue
            try:
                lobby.check_requirements(session, table, seat.email)
            except errors.Conflict:
                continue
        by_id = {s.id: s for s in seats}
        free = [held for held in session.exec(select(LobbySeat).where(col(LobbySeat.game_id) == game.id)
                                              .order_by(col(LobbySeat.id)))
                if lobby.is_free(by_id[held.seat_id], held, now)]
        try:
            held = lobby.claim(session, free, now + timedelta(hours=int(ctx.config["LOBBY_HOLD_HOURS"])),
                               found.mailbox, now)
        except errors.Conflict:
            continue
        return _take_seat(ctx, session, found, seat, game, seats, by_id[held.seat_id], now), game
    return None


def _take_seat(ctx: Context, session: Session, found: MatchRequest, seat: Seat, game: Game, seats: list[Seat],
               target: Seat, now: datetime) -> list[int | None]:
    """Move the request's link into ``target``, accepted; the last acceptance starts the game."""
    salt, digest, email = seat.token_salt, seat.token_hash, seat.email
    # The pool seat gives its link up (a link opens one seat): a dead hash nobody holds the token of.
    seat.token_hash = tokens.digest(secrets.token_urlsafe(32))
    seat.email = ""
    session.add(seat)
    session.flush()
    target.name, target.email, target.language, target.time_zone = seat.name, email, \
        seat.language, seat.time_zone
    target.token_salt, target.token_hash, target.accepted_at, target.mail = salt, digest, now, MailChoice.EVERY
    session.add(target)
    _seated(session, found, game, now)
    session.flush()
    log.info("quick match: request %d seated at lobby table %s", found.id, game.public_id)
    if all(s.accepted_at is not None for s in seats):
        started = session.exec(update(Game).where(col(Game.id) == game.id, col(Game.status) == GameStatus.INVITED)
                               .values(status=GameStatus.ACTIVE))
        if started.rowcount == 1:
            session.refresh(game)
            return _start(ctx, session, game, seats, now)
    return []


def _seated(session: Session, found: MatchRequest, game: Game, now: datetime) -> None:
    """Mark ``found`` seated, guarded: two confirmations at once may pick the same
    waiting person; the second is refused (``409 busy``, nothing written) and may try again."""
    took = session.exec(update(MatchRequest).where(col(MatchRequest.id) == found.id,
                                                   col(MatchRequest.seated_at).is_(None))
                        .values(seated_at=now, seated_game_id=game.id).execution_options(synchronize_session=False))
    if took.rowcount != 1:
        raise errors.Conflict(N_("someone else was seated at the same moment: please try again"), code="busy")
    session.refresh(found)
    # The pool game is over: it never started and has nobody waiting in it.
    session.exec(update(Game).where(col(Game.id) == found.game_id).values(status=GameStatus.EXPIRED)
                 .execution_options(synchronize_session=False))


def _with_waiting(ctx: Context, session: Session, found: MatchRequest, seat: Seat,
                  now: datetime) -> tuple[list[int | None], Game] | None:
    """A new game of ``found`` and confirmed people waiting: the largest count
    everyone accepts that enough people wait for."""
    rows = session.exec(
        select(MatchRequest, Seat).join(Seat, col(Seat.id) == col(MatchRequest.seat_id))
        .where(col(MatchRequest.id).in_(_waiting()), col(MatchRequest.id) != found.id,
               col(MatchRequest.turn_hours) == found.turn_hours, col(MatchRequest.mailbox) != found.mailbox)).all()
    if not rows:
        return None
    mine = found.rating or 0.0
    # Their language first, then the nearest rating, then who waited longest.
    rows = sorted(rows, key=lambda r: (r[0].language != found.language, abs((r[0].rating or 0.0) - mine),
                                       r[0].confirmed_at or now, r[0].id or 0))
    apart = blocks.blocked_pairs(session, [seat.email] + [s.email for _, s in rows])
    for n in sorted(found.counts(), reverse=True):
        group = _pick(found, seat, [r for r in rows if n in r[0].counts()], n, apart)
        if group is not None:
            return _new_game(ctx, session, found.turn_hours, found.language, [(found, seat)] + group, now)
    return None


def _pick(found: MatchRequest, seat: Seat, rows: list[tuple[MatchRequest, Seat]], n: int,
          apart: set[frozenset[str]]) -> list[tuple[MatchRequest, Seat]] | None:
    """The first ``n - 1`` of ``rows`` with different names and boxes, no two blocked."""
    group: list[tuple[MatchRequest, Seat]] = []
    emails, names, boxes = [blocks.normal(seat.email)], {seat.name.lower()}, {found.mailbox}
    for r, s in rows:
        email = blocks.normal(s.email)
        if s.name.lower() in names or r.mailbox in boxes or any(frozenset((email, e)) in apart for e in emails):
            continue
        group.append((r, s))
        emails.append(email)
        names.add(s.name.lower())
        boxes.add(r.mailbox)
        if len(group) == n - 1:
            return group
    return None


def _new_game(ctx: Context, session: Session, turn_hours: int, language: str,
              group: list[tuple[MatchRequest, Seat]], now: datetime) -> tuple[list[int | None], Game]:
    """Move the group's pool seats into a new game, which starts: a lobby table
    with no open seat (so never listed), whose players met as strangers."""
    game = Game(public_id=tokens.public_id(), turn_hours=turn_hours, created_at=now, seed=secrets.randbits(31),
                status=GameStatus.ACTIVE)
    session.add(game)
    session.flush()
    assert game.id is not None
    session.add(LobbyTable(game_id=game.id, seats=len(group), turn_hours=turn_hours, language=language,
                           created_at=now))
    seats = []
    for position, (found, seat) in enumerate(group):
        seat.game_id, seat.position = game.id, position
        session.add(seat)
        seats.append(seat)
        _seated(session, found, game, now)
    session.flush()
    log.info("quick match: requests %s seated together in game %s", ",".join(str(f.id) for f, _ in group),
             game.public_id)
    return _start(ctx, session, game, seats, now), game
