"""Starting a game: its players checked, the invitations, the acceptances, the deal."""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Sequence

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from .. import rules
from ..core import errors, tokens
from ..core.context import Context
from ..core.db import session_scope
from ..core.events import Event
from ..core.models import Game, GameStatus, MailChoice, Seat, Suppression
from ..core.outbox import OutboxKind, enqueue
from ..people.players import BadAddress, BadName, clean_address, clean_name, suppression_hashes
from ..rules.computer import Level
from ..rules.deal import deal_game
from ..rules.tables import MAX_PLAYERS, MIN_PLAYERS
from ..rules.views import SeatView
from ..words import N_
from ..words.language import (DEFAULT_LANGUAGE, LANGUAGES, UnknownLanguage, UnknownTimeZone, clean_language,
                              clean_time_zone)
from . import snapshots
from .announcing import computer_turn, deadline_for, hand_on, turn_mail, turn_start
from .clock_options import TimeOptions
from .lookup import seat_and_game
from .open_seats import Requirements, open_table
from .views import game_view


MAX_TURN_HOURS = 24 * 30
#: The computer's levels, as the API and the forms name them.
LEVELS = tuple(lv.value for lv in Level)


COMPUTER_NAMES = ("Ada", "Alan", "Grace", "Konrad", "Hedy", "Edsger", "Barbara", "Donald")


@dataclass(frozen=True)
class NewPlayer:
    name: str
    email: str
    #: Their mail's and seat page's language, and their time zone (``None``: not chosen).
    language: str = DEFAULT_LANGUAGE
    time_zone: str | None = None
    #: The computer's level for a computer's seat (no address: ``email`` is empty).
    bot: str | None = None
    #: A seat for anyone (``{"open": true}``): no name or address until a
    #: stranger joins from the lobby (:mod:`.lobby`).
    open: bool = False


def parse_players(raw: Any, default_language: str = DEFAULT_LANGUAGE) -> list[NewPlayer]:
    """Validate the players of a new game: 2-4, each a name and an email
    (:mod:`pbem.players` says what is allowed), and optionally a ``language``
    (else ``default_language``) and a ``time_zone``.  The first is the one starting it."""
    if not isinstance(raw, list) or not MIN_PLAYERS <= len(raw) <= MAX_PLAYERS:
        raise errors.Invalid(N_("a game needs %(min)d to %(max)d players"), min=MIN_PLAYERS, max=MAX_PLAYERS,
                             code="invalid-players")
    out = []
    for n, p in enumerate(raw, 1):
        if not isinstance(p, dict):
            raise errors.Invalid(N_("player %(number)d: expected a name and an email"), number=n,
                                 code="invalid-players", player=n, field="name")
        if p.get("bot") is not None:
            out.append(_computer_player(n, p))
            continue
        if p.get("open") is True:
            out.append(_open_seat(n, p))
            continue
        if p.get("open") not in (None, False):
            raise errors.Invalid(N_("player %(number)d: \"open\" is true (a seat for anyone) or absent"), number=n,
                                 code="invalid-players", player=n, field="open")
        try:
            name = clean_name(p.get("name"))
        except BadName as e:
            raise errors.Invalid(N_("player %(number)d: %(problem)s"), number=n, problem=e, code="invalid-players",
                                 player=n, field="name") from None
        try:
            email = clean_address(p.get("email"))
        except BadAddress as e:
            raise errors.Invalid(N_("player %(number)d: %(problem)s"), number=n, problem=e, code="invalid-email",
                                 player=n, field="email") from None
        try:
            # Absent or null: the default; anything else must be a language ("" too,
            # as the document says and as joining a table takes it).
            chosen = p.get("language")
            language = clean_language(default_language if chosen is None else chosen)
        except UnknownLanguage:
            raise errors.Invalid(N_("player %(number)d: the language must be one of %(languages)s"), number=n,
                                 languages=", ".join(LANGUAGES),
                                 code="invalid-language", player=n, field="language") from None
        zone_name = p.get("time_zone")
        try:
            zone_name = clean_time_zone(zone_name) if zone_name is not None else None
        except UnknownTimeZone:
            raise errors.Invalid(N_("player %(number)d: the time zone must be an IANA name such as Europe/Budapest"),
                                 number=n, code="invalid-time-zone", player=n, field="time_zone") from None
        out.append(NewPlayer(name, email, language, zone_name))
    people = [p for p in out if p.bot is None and not p.open]
    if not people:
        raise errors.Invalid(N_("a game needs at least one person: the computer cannot play alone"),
                             code="invalid-players", player=1, field="bot")
    if out[0].bot is not None or out[0].open:
        # The one starting the game is its first person (seats are drawn at the start anyway).
        out.remove(people[0])
        out.insert(0, people[0])
    if len({p.email.lower() for p in people}) != len(people):
        raise errors.Invalid(N_("every player needs an email address of their own"), code="invalid-players")
    if len({p.name.lower() for p in people}) != len(people):
        raise errors.Invalid(N_("every player needs a different name"), code="invalid-players")
    return _name_computers(out)


def _computer_player(n: int, p: dict[str, Any]) -> NewPlayer:
    """A seat for the computer: ``{"bot": "easy" | "medium" | "hard"}`` (no address)."""
    level = p.get("bot")
    if level not in LEVELS:
        raise errors.Invalid(N_("player %(number)d: the computer's level must be one of %(levels)s"), number=n,
                             levels=", ".join(LEVELS), code="invalid-players", player=n,
                             field="bot")
    if set(p) != {"bot"}:
        # Its name is made up for it, and it has no address or language to refuse.
        raise errors.Invalid(N_("player %(number)d: a computer player is only its level, with no name or address"),
                             number=n, code="invalid-players", player=n, field="bot")
    return NewPlayer(name="", email="", bot=str(level))


def _open_seat(n: int, p: dict[str, Any]) -> NewPlayer:
    """A seat for anyone: ``{"open": true}`` (nothing else: the joiner brings their own)."""
    if p != {"open": True}:
        raise errors.Invalid(N_("player %(number)d: an open seat is only {\"open\": true}, with no name or address"),
                             number=n, code="invalid-players", player=n, field="open")
    return NewPlayer(name="", email="", open=True)


def _name_computers(players: list[NewPlayer]) -> list[NewPlayer]:
    """Give each computer seat a name that no person in the game has."""
    taken = {p.name.lower() for p in players if p.bot is None}
    free = (name for name in COMPUTER_NAMES if name.lower() not in taken)
    return [NewPlayer(next(free), "", DEFAULT_LANGUAGE, None, p.bot) if p.bot is not None else p for p in players]


def start_game(ctx: Context, players: Sequence[NewPlayer], turn_hours: int | None = None,
               *, confirmed: bool = False, rematch_of: int | None = None,
               requirements: Requirements = Requirements(), options: TimeOptions = TimeOptions()) -> str:
    """Create a game and invite its players; it starts when all have accepted.
    Returns the game's public id.

    The first player is the one starting it.  Nobody else is mailed because an
    anonymous visitor asked: only the first player's invitation goes out, asking
    them to confirm, and the others' go when they accept.  ``confirmed``: the
    request comes from the first player signed in, so every invitation goes now.
    ``rematch_of``: the finished game this one replays (:mod:`pbem.rematch`);
    a game has one rematch, so a second is refused (``rematch-exists``).
    Open seats make it a lobby table (:mod:`.open_seats`), with ``requirements``.
    ``options``: a correspondence clock (its first bank is then the game's
    ``turn_hours``), weekends off, no vacation (:mod:`.clock_options`)."""
    hours = ctx.config["TURN_HOURS"] if turn_hours is None else turn_hours
    if isinstance(hours, bool) or not isinstance(hours, int) or not 1 <= hours <= MAX_TURN_HOURS:
        raise errors.Invalid(N_("turn time must be 1 to %(max)d hours"), max=MAX_TURN_HOURS, code="invalid-turn-hours",
                             field="turn_hours")
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        _refuse_suppressed(session, players)
        # Counted once every check has passed (a refused start costs nobody a mail).
        if confirmed:
            ctx.limit("LIMIT_CONFIRMED_GAMES", [players[0].email])
        else:
            ctx.limit("LIMIT_CONFIRMATIONS", [players[0].email])
        clock = options.clock
        game = Game(public_id=tokens.public_id(), turn_hours=hours if clock is None else clock.days * 24,
                    created_at=now, seed=secrets.randbits(31), rematch_of=rematch_of,
                    clock_days=None if clock is None else clock.days,
                    clock_increment_hours=None if clock is None else clock.increment_hours,
                    clock_max_days=None if clock is None else clock.max_days,
                    weekends_off=options.weekends_off, vacation_off=options.vacation_off)
        session.add(game)
        try:
            session.flush()
        except IntegrityError:
            if rematch_of is None:
                raise
            raise errors.Conflict(N_("a rematch of this game has started already"), code="rematch-exists") from None
        assert game.id is not None  # the flush gave it one
        seats = []
        for position, p in enumerate(players):
            salt = tokens.new_salt()
            is_bot = p.bot is not None
            seat = Seat(
                game_id=game.id, position=position, name=p.name, email=p.email, token_salt=salt,
                token_hash=tokens.digest(tokens.derive(ctx.secret_key, "seat", salt)),
                bank_seconds=None if clock is None else int(clock.start.total_seconds()),
                # The computer accepts at once.
                accepted_at=now if is_bot or (confirmed and position == 0) else None,
                language=p.language, time_zone=p.time_zone,
                bot=p.bot, bot_from=0 if is_bot else None, mail=MailChoice.NONE if is_bot else MailChoice.EVERY,
            )
            session.add(seat)
            seats.append(seat)
        session.flush()
        open_table(session, game, seats, requirements)
        # An open seat has no address until someone joins from the lobby.
        invited = [s for s in seats[1:] if s.bot is None and s.email] if confirmed else seats[:1]
        outbox = [invite(ctx, session, game, seat, now) for seat in invited]
        if all(s.accepted_at is not None for s in seats):
            # Signed in against the computer only: nobody else to wait for.
            game.status = GameStatus.ACTIVE
            outbox += _start(ctx, session, game, seats, now)
        public_id = game.public_id
        computer = computer_turn(game, seats)
    ctx.relay(outbox)
    hand_on(ctx, computer)
    return public_id


def invite(ctx: Context, session: Session, game: Game, seat: Seat, now: datetime) -> int | None:
    """The invitation of a seat.  The one who started the game asked for their
    own; the others' count against ``LIMIT_INVITES`` for their address, and one
    over it waits for the limit's next window (the sweep sends it then) rather
    than refusing the acceptance that caused it."""
    due = now
    if seat.position != 0:
        try:
            ctx.limit("LIMIT_INVITES", [seat.email])
        except errors.RateLimited as e:
            due = now + timedelta(seconds=e.clear_after)
    return enqueue(session, kind=OutboxKind.INVITE, event=Event.INVITE, recipient=seat.email, base_url=ctx.base_url,
                   now=now, game_id=game.id, seat_id=seat.id, due=due)


def _refuse_suppressed(session: Session, players: Sequence[NewPlayer]) -> None:
    """Refuse a game naming an address on the never-mail list.  The answer says
    that the address cannot be invited, never why: whoever starts a game may be
    a stranger to the address, who must not learn that it opted out."""
    hashes = {h: n for n, p in reversed(list(enumerate(players, 1))) if p.bot is None
              for h in suppression_hashes(p.email)}
    found = session.exec(select(Suppression.address_hash)
                         .where(col(Suppression.address_hash).in_(list(hashes)))).all()
    if found:
        n = min(hashes[h] for h in found)
        raise errors.Invalid(N_("player %(number)d: %(email)s cannot be invited"), number=n,
                             email=players[n - 1].email, code="cannot-invite", player=n, field="email")


_GAME_IS = {GameStatus.ACTIVE: N_("this game is active"), GameStatus.FINISHED: N_("this game is finished"),
            GameStatus.EXPIRED: N_("this game is expired")}


def accept(ctx: Context, token: object) -> SeatView:
    """Accept the invitation; the last acceptance deals and starts the game."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        if seat.accepted_at is not None:  # accepting twice is accepting once
            return game_view(ctx, game, seats, seat)
        if game.status != GameStatus.INVITED:
            raise errors.Conflict(_GAME_IS.get(game.status, N_("this game is %(status)s")), status=game.status,
                                  code="game-over")
        seat.accepted_at = now
        session.add(seat)
        session.flush()
        outbox: list[int | None] = []
        if seat.position == 0:
            # The one who started the game confirms it: now the others are asked.
            outbox = [invite(ctx, session, game, s, now) for s in seats if s.accepted_at is None and s.email]
        if all(s.accepted_at is not None for s in seats):
            # Guarded like a move: only one acceptance may start the game.
            started = session.exec(
                update(Game).where(col(Game.id) == game.id, col(Game.status) == GameStatus.INVITED)
                .values(status=GameStatus.ACTIVE)
            )
            if started.rowcount == 1:
                outbox += _start(ctx, session, game, seats, now)
        session.refresh(game)
        view = game_view(ctx, game, seats, seat)
        computer = computer_turn(game, seats)
    ctx.relay(outbox)
    hand_on(ctx, computer)
    return view


def _start(ctx: Context, session: Session, game: Game, seats: list[Seat], now: datetime) -> list[int | None]:
    # The huts (public) follow the stored seed; the clans come from the system's
    # random source, so nothing stored or shown lets anyone recompute them.
    deal = deal_game([s.name for s in seats], random.Random(game.seed), secret=random.SystemRandom())
    # Seats are renumbered so that the drawn first player sits at 0: play goes
    # round in seat order, and the game's record (which starts with the first
    # player) has exactly the service's seat order.
    n = len(seats)
    for seat in seats:
        seat.position += n  # out of the way of the unique (game, position)
        session.add(seat)
    session.flush()
    for seat, clan in zip(seats, deal.clans):
        seat.position = (seat.position - n - deal.first) % n
        seat.clan = clan
        session.add(seat)
    session.flush()
    seats.sort(key=lambda s: s.position)
    position = rules.Game(deal.board, [s.name for s in seats], {t: [c] for t, c in deal.setup},
                          clans=[s.clan for s in seats], first=0)
    game.status = GameStatus.ACTIVE
    game.started_at = now
    game.state = snapshots.write(position)
    game.turn_seat = position.turn
    game.deadline = deadline_for(ctx, game, seats, position, now)
    game.turn_started_at = None if position.turn is None else turn_start(seats[position.turn], now)
    game.reminded_for = None
    session.add(game)
    session.flush()
    return turn_mail(ctx, session, game, seats, position, now)
