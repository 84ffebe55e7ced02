"""The service layer: plain functions, one transaction each, that the web views,
the CLI and the workers call.  They speak in ids, tokens and dicts; they raise
:mod:`pbem.errors` for the edges to translate."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import random
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NoReturn, Sequence, cast, overload

from sqlalchemy import bindparam, func, insert, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import object_session
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from . import errors, metrics, ratings, rules, tokens, webhook_events
from .context import Context
from .db import as_utc, session_scope
from .drawing.style import BOARD_STYLES
from .language import (DEFAULT_LANGUAGE, LANGUAGES, UnknownLanguage, UnknownTimeZone, clean_language,
                       clean_time_zone)
from .models import Bounce, Game, Login, MoveRecord, Outbox, Seat, Suppression, table_of
from .outbox import enqueue
from .players import BadAddress, BadName, address_hash, clean_address, clean_name, mailbox_hash, suppression_hashes
from .rules import Move, RulesError
from .rules.bots import choose_move
from .rules.computer import Budget, Level, computer_move as decide
from .rules.deal import deal_game
from .rules.record import export_record
from .rules.tables import MAX_PLAYERS, MIN_PLAYERS
from .rules.views import GamePart, PlayerView, PublicView, SeatView, View, ViewPlayer, player_view, public_view
from .words import N_, n_

MAIL_CHOICES = ("every", "digest", "none")
MAX_TURN_HOURS = 24 * 30
#: The computer's levels, as the API and the forms name them.
LEVELS = tuple(lv.value for lv in Level)
#: Hard computer moves made in one hour, in all the games of one person (a
#: human seat's address), at full strength; each is a search of up to
#: BOT_SECONDS of a worker's CPU.  Beyond it, in the games of that person, the
#: hard level searches with HARD_SMALL_BUDGET until the hour's count drops:
#: it still plays well, for a tenth of the cost.
HARD_MOVES_PER_HOUR = 60
HARD_SMALL_BUDGET = Budget(playouts=240, seconds=0.08)
#: The names the computer's seats take, the first not taken by a person.
COMPUTER_NAMES = ("Ada", "Alan", "Grace", "Konrad", "Hedy", "Edsger", "Barbara", "Donald")
#: If no worker has moved for the computer this long after its pause, the
#: clock does (its deadline passes).
COMPUTER_GRACE = timedelta(minutes=2)
#: The hard player's time box when the clock moves for it (no worker did in time).
CLOCK_BOT_SECONDS = 0.2

log = logging.getLogger(__name__)


# -- reading ------------------------------------------------------------------


def seat_link(ctx: Context, seat: Seat) -> str:
    return f"{ctx.base_url}/play/{seat_token(ctx, seat)}"


def seat_token(ctx: Context, seat: Seat) -> str:
    return tokens.derive(ctx.secret_key, "seat", seat.token_salt)


def _refuse_seat_token() -> NoReturn:
    raise errors.Unauthorized(N_("this seat link is not valid: check that you copied the whole link"))


# Every seat of a game with the game, in seat order: one query rather than one for
# the game and one for its seats.  Built once; the filters below pick the game.
_SEATS_WITH_GAME = select(Seat, Game).join(Game, col(Game.id) == col(Seat.game_id)).order_by(col(Seat.position))
# Every request that carries a seat token starts with this one: the token's game.
_SEATS_OF_TOKEN = _SEATS_WITH_GAME.where(
    col(Seat.game_id) == select(Seat.game_id).where(col(Seat.token_hash) == bindparam("digest")).scalar_subquery())
_SEATS_OF_GAME = _SEATS_WITH_GAME.where(col(Seat.game_id) == bindparam("game_id"))


def seat_and_game(session: Session, token: object) -> tuple[Seat, Game, list[Seat]]:
    """The seat a token opens, its game, and all the game's seats in order."""
    if not tokens.well_formed(token):
        _refuse_seat_token()
    digest = tokens.digest(str(token))
    rows = session.exec(_SEATS_OF_TOKEN, params={"digest": digest}).all()
    seat = next((s for s, _ in rows if s.token_hash == digest), None)
    if seat is None:
        _refuse_seat_token()
    return seat, rows[0][1], [s for s, _ in rows]


def game_and_seats(session: Session, game_id: int | None) -> tuple[Game | None, list[Seat]]:
    """A game and its seats in seat order, in one query (``None`` and no seats if
    there is no such game)."""
    rows = session.exec(_SEATS_OF_GAME, params={"game_id": game_id}).all()
    if not rows:
        return None, []
    return rows[0][1], [s for s, _ in rows]


def _rules_game(game: Game) -> rules.Game | None:
    return rules.Game.from_json(json.loads(game.state)) if game.state else None


def _status_for(game: Game, seat: Seat | None) -> str:
    if game.status == "invited" and seat is not None:
        return "invited" if seat.accepted_at is None else "waiting"
    return game.status


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
        position = _rules_game(game)
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
        players.append({**entry, "accepted": seat.accepted_at is not None, "absent": _absent(seat),
                        "paused_until": paused.isoformat() if paused and paused > now else None,
                        "unreachable": seat.id in unreachable, "bot": seat.bot, "bot_from": seat.bot_from})
    deadline = as_utc(game.deadline)
    facts: GamePart = {
        "game": game.public_id,
        "status": _status_for(game, viewer),
        "turn_hours": game.turn_hours,
        "deadline": deadline.isoformat() if deadline and game.status == "active" else None,
    }
    if viewer is None or own is None:
        return {**public, "players": players, **facts}
    view: SeatView = {**own, "players": players, **facts, "mail": viewer.mail,
                      "vacation_days_left": viewer.vacation_days_left, "language": viewer.language,
                      "time_zone": viewer.time_zone, "board_style": viewer.board_style}
    return view


def _absent(seat: Seat) -> bool:
    """The autopilot moved for them three times running (and the computer does not play the seat)."""
    return seat.autopilot_streak >= 3 and seat.bot is None


def _unreachable(viewer: Seat, seats: Sequence[Seat]) -> set[int | None]:
    """The seats whose address bounces, read in the transaction that loaded the
    viewer's seat (every caller of ``game_view`` holds one)."""
    session = object_session(viewer)
    if not isinstance(session, Session):
        return set()
    hashes = {address_hash(s.email): s.id for s in seats}
    found = session.exec(select(Bounce.address_hash).where(
        col(Bounce.address_hash).in_(list(hashes)), col(Bounce.bouncing_at).is_not(None))).all()
    return {hashes[h] for h in found}


def seat_view(ctx: Context, token: object) -> SeatView:
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        return game_view(ctx, game, seats, seat)


def game_by_public_id(session: Session, public_id: object) -> Game:
    game = None
    if tokens.is_public_id(public_id):
        game = session.exec(select(Game).where(Game.public_id == public_id)).first()
    if game is None:
        raise errors.NotFound(N_("there is no game %(game)s"), game=str(public_id)[:40])
    return game


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
        position = _rules_game(game)
        if position is None:
            raise errors.Conflict(N_("game %(game)s has not started: it has no record yet"), game=public_id,
                                  code="not-started")
        return export_record(position, reveal=position.is_over())


# -- starting -----------------------------------------------------------------


@dataclass(frozen=True)
class NewPlayer:
    name: str
    email: str
    #: Their mail's and seat page's language, and their time zone (``None``: not chosen).
    language: str = DEFAULT_LANGUAGE
    time_zone: str | None = None
    #: The computer's level for a computer's seat (no address: ``email`` is empty).
    bot: str | None = None


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
            language = clean_language(p.get("language") or default_language)
        except UnknownLanguage:
            raise errors.Invalid(N_("player %(number)d: the language must be one of %(languages)s"), number=n,
                                 languages=", ".join(LANGUAGES),
                                 code="invalid-language", player=n, field="language") from None
        zone_name = p.get("time_zone")
        try:
            zone_name = clean_time_zone(zone_name) if zone_name else None
        except UnknownTimeZone:
            raise errors.Invalid(N_("player %(number)d: the time zone must be an IANA name such as Europe/Budapest"),
                                 number=n, code="invalid-time-zone", player=n, field="time_zone") from None
        out.append(NewPlayer(name, email, language, zone_name))
    people = [p for p in out if p.bot is None]
    if not people:
        raise errors.Invalid(N_("a game needs at least one person: the computer cannot play alone"),
                             code="invalid-players", player=1, field="bot")
    if out[0].bot is not None:
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


def _name_computers(players: list[NewPlayer]) -> list[NewPlayer]:
    """Give each computer seat a name that no person in the game has."""
    taken = {p.name.lower() for p in players if p.bot is None}
    free = (name for name in COMPUTER_NAMES if name.lower() not in taken)
    return [NewPlayer(next(free), "", DEFAULT_LANGUAGE, None, p.bot) if p.bot is not None else p for p in players]


def start_game(ctx: Context, players: Sequence[NewPlayer], turn_hours: int | None = None,
               *, confirmed: bool = False, rematch_of: int | None = None) -> str:
    """Create a game and invite its players; it starts when all have accepted.
    Returns the game's public id.

    The first player is the one starting it.  Nobody else is mailed because an
    anonymous visitor asked: only the first player's invitation goes out, asking
    them to confirm, and the others' go when they accept.  ``confirmed``: the
    request comes from the first player signed in, so every invitation goes now.
    ``rematch_of``: the finished game this one replays (:mod:`pbem.rematch`);
    a game has one rematch, so a second is refused (``rematch-exists``)."""
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
        game = Game(public_id=tokens.public_id(), turn_hours=hours, created_at=now, seed=secrets.randbits(31),
                    rematch_of=rematch_of)
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
                vacation_days_left=ctx.config["VACATION_DAYS"],
                # The computer accepts at once.
                accepted_at=now if is_bot or (confirmed and position == 0) else None,
                language=p.language, time_zone=p.time_zone,
                bot=p.bot, bot_from=0 if is_bot else None, mail="none" if is_bot else "every",
            )
            session.add(seat)
            seats.append(seat)
        session.flush()
        invited = [s for s in seats[1:] if s.bot is None] if confirmed else seats[:1]
        outbox = [_invite(ctx, session, game, seat, now) for seat in invited]
        if all(s.accepted_at is not None for s in seats):
            # Signed in against the computer only: nobody else to wait for.
            game.status = "active"
            outbox += _start(ctx, session, game, seats, now)
        public_id = game.public_id
        computer = _computer_turn(game, seats)
    ctx.relay(outbox)
    _hand_on(ctx, computer)
    return public_id


def _invite(ctx: Context, session: Session, game: Game, seat: Seat, now: datetime) -> int | None:
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
    return enqueue(session, kind="invite", event="invite", recipient=seat.email, base_url=ctx.base_url,
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


def is_suppressed(session: Session, address: str) -> bool:
    """Whether the address's mailbox is on the never-mail list (any ``+tag`` of it, any case)."""
    return session.exec(select(Suppression.id).where(
        col(Suppression.address_hash).in_(suppression_hashes(address)))).first() is not None


def is_unreachable(session: Session, address: str) -> bool:
    """Whether mail to the address bounces (:mod:`pbem.bounces`): it gets no more."""
    return session.exec(select(Bounce.id).where(Bounce.address_hash == address_hash(address),
                                                col(Bounce.bouncing_at).is_not(None))).first() is not None


def never_mail(ctx: Context, token: object) -> None:
    """"Never email me again", from an invitation's link: the seat's address goes
    on the suppression list (no later game can name it, no mail goes to it) and
    the seat's mail is turned off."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, _, _ = seat_and_game(session, token)
        if not is_suppressed(session, seat.email):
            try:
                with session.begin_nested():  # two clicks at once: the second finds the row
                    session.add(Suppression(address_hash=mailbox_hash(seat.email), created_at=now))
            except IntegrityError:
                pass
        seat.mail = "none"
        session.add(seat)


#: Why an invitation can no longer be accepted, by the game's status.
_GAME_IS = {"active": N_("this game is active"), "finished": N_("this game is finished"),
            "expired": N_("this game is expired")}


def accept(ctx: Context, token: object) -> SeatView:
    """Accept the invitation; the last acceptance deals and starts the game."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        if seat.accepted_at is not None:  # accepting twice is accepting once
            return game_view(ctx, game, seats, seat)
        if game.status != "invited":
            raise errors.Conflict(_GAME_IS.get(game.status, N_("this game is %(status)s")), status=game.status,
                                  code="game-over")
        seat.accepted_at = now
        session.add(seat)
        session.flush()
        outbox: list[int | None] = []
        if seat.position == 0:
            # The one who started the game confirms it: now the others are asked.
            outbox = [_invite(ctx, session, game, s, now) for s in seats if s.accepted_at is None]
        if all(s.accepted_at is not None for s in seats):
            # Guarded like a move: only one acceptance may start the game.
            started = session.exec(
                update(Game).where(col(Game.id) == game.id, col(Game.status) == "invited")
                .values(status="active")
            )
            if started.rowcount == 1:
                outbox += _start(ctx, session, game, seats, now)
        session.refresh(game)
        view = game_view(ctx, game, seats, seat)
        computer = _computer_turn(game, seats)
    ctx.relay(outbox)
    _hand_on(ctx, computer)
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
    game.status = "active"
    game.started_at = now
    game.state = json.dumps(position.to_json())
    game.turn_seat = position.turn
    game.deadline = _deadline(ctx, game, seats, position, now)
    game.reminded_for = None
    session.add(game)
    session.flush()
    return _turn_mail(ctx, session, game, seats, position, now)


def _deadline(ctx: Context, game: Game, seats: Sequence[Seat], position: rules.Game,
              now: datetime) -> datetime | None:
    """When the seat to move runs out of time: ``turn_hours`` from now, or from the
    end of their pause if they are on vacation (``None`` once the game is over).
    The computer's time is its pause and a short grace: if no worker moved for
    it by then, the clock does."""
    if position.turn is None:
        return None
    if seats[position.turn].bot is not None:
        return now + timedelta(seconds=float(ctx.config["BOT_DELAY"])) + COMPUTER_GRACE
    paused = as_utc(seats[position.turn].paused_until)
    start = paused if paused is not None and paused > now else now
    return start + timedelta(hours=game.turn_hours)


def _turn_mail(ctx: Context, session: Session, game: Game, seats: list[Seat], position: rules.Game,
               now: datetime) -> list[int | None]:
    """The messages a new position calls for: the next player's turn, or the end
    (and the posts to the game's webhooks: the start, a person's turn, the end)."""
    turn = position.turn
    event = webhook_events.event_of(position.ply, turn is None, seats, turn)
    posts = [] if event is None else webhook_events.enqueue_posts(session, game, event, base_url=ctx.base_url,
                                                                  now=now)
    if turn is None:  # the game is over
        return posts + [enqueue(session, kind="game-over", event="over", recipient=s.email, seat_id=s.id,
                                base_url=ctx.base_url, now=now, game_id=game.id)
                        for s in seats if s.bot is None]
    seat = seats[turn]
    if seat.mail != "every" or seat.bot is not None:
        return posts
    return posts + [enqueue(session, kind="turn", event=f"ply:{position.ply}", recipient=seat.email,
                            seat_id=seat.id, base_url=ctx.base_url, now=now, game_id=game.id)]


# -- moving -------------------------------------------------------------------


def submit_move(ctx: Context, token: object, move: object, order: object, ply: object,
                *, strict: bool = False) -> SeatView:
    """Validate a move with the rules and store it in one transaction guarded by
    ``ply``; returns the mover's new view.  Resubmitting a move that was already
    accepted returns the current view and changes nothing."""
    try:
        view = _submit_move(ctx, token, move, order, ply, strict=strict)
    except errors.ServiceError as e:
        metrics.move(e.code)
        raise
    metrics.move("accepted")
    return view


def _submit_move(ctx: Context, token: object, move: object, order: object, ply: object,
                 *, strict: bool = False) -> SeatView:
    if isinstance(ply, bool) or not isinstance(ply, int) or ply < 0:
        raise errors.BadRequest(N_("ply must be the number of moves you saw (a whole number)"), code="bad-request")
    try:
        parsed = Move.parse(move, strict=strict)
    except RulesError as e:
        raise errors.MoveRefused(e) from e
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        if game.status == "invited":
            raise errors.Conflict(N_("the game starts when every player has accepted"), code="not-started")
        if ply != game.ply:
            if ply < game.ply and _already_played(session, game, seat, ply, parsed, order):
                return game_view(ctx, game, seats, seat)
        if game.status != "active":
            raise errors.Conflict(N_("the game is over"), code="game-over")
        if ply != game.ply:
            raise errors.Conflict(
                N_("the game has moved on: you saw move %(seen)d, it is now at move %(ply)d; "
                   "reload to see the new position"), seen=ply + 1, ply=game.ply + 1, code="stale")
        refuse_computer_seat(seat)
        position = _rules_game(game)
        assert position is not None and position.turn is not None  # an active game has a player to move
        if position.turn != seat.position:
            raise errors.Conflict(N_("it is %(name)s's turn, not yours"), name=seats[position.turn].name,
                                  code="not-your-turn")
        try:
            position.push(parsed, order)
        except RulesError as e:
            raise errors.MoveRefused(e) from e
        outbox = _store_move(ctx, session, game, seats, seat, position, parsed, order, now, autopilot=False)
        if outbox is None:
            raise errors.Conflict(N_("another move was stored first; reload to see it"), code="stale")
        if seat.autopilot_streak:
            seat.autopilot_streak = 0
            session.add(seat)
        view = game_view(ctx, game, seats, seat, position=position)
        computer = _computer_turn(game, seats)
    ctx.relay(outbox)
    _hand_on(ctx, computer)
    return view


# A move's writes, built once and run on the session's connection: the ORM's
# unit of work would cost more than the statements themselves on the busiest
# path of the service.  The game row is guarded by the ply the mover saw.
_GAME = table_of(Game)
_ADVANCE = update(_GAME).where(_GAME.c.id == bindparam("guard_id"), _GAME.c.ply == bindparam("guard_ply"))
_RECORD_MOVE = insert(table_of(MoveRecord))


def _store_move(ctx: Context, session: Session, game: Game, seats: list[Seat], seat: Seat,
                position: rules.Game, move: Move, order: object, now: datetime,
                *, autopilot: bool) -> list[int | None] | None:
    """Write the position after ``move`` if nobody stored a move first."""
    old_ply = game.ply
    over = position.is_over()
    values: dict[str, Any] = dict(
        ply=position.ply, state=json.dumps(position.to_json()), turn_seat=position.turn,
        deadline=_deadline(ctx, game, seats, position, now),
        reminded_for=None, status="finished" if over else game.status,
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
    return _turn_mail(ctx, session, game, seats, position, now)


def _already_played(session: Session, game: Game, seat: Seat, ply: int, move: Move, order: object) -> bool:
    row = session.exec(select(MoveRecord).where(MoveRecord.game_id == game.id, MoveRecord.ply == ply)).first()
    if row is None or row.position != seat.position or row.move != str(move):
        return False
    return order is None or row.order is None or json.loads(row.order) == order


# -- settings -----------------------------------------------------------------


def set_mail(ctx: Context, token: object, choice: object) -> SeatView:
    """Choose turn mail: every turn, a daily digest, or none."""
    if choice not in MAIL_CHOICES:
        raise errors.Invalid(N_("mail must be one of %(choices)s"), choices=", ".join(MAIL_CHOICES),
                             code="invalid-mail")
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        if choice != "none":  # an old mail's unsubscribe link still works
            refuse_computer_seat(seat)
        seat.mail = str(choice)
        session.add(seat)
        return game_view(ctx, game, seats, seat)


def set_language(ctx: Context, token: object, language: object, time_zone: object = None) -> SeatView:
    """Choose the language of this seat's page and mail and, if given, its time
    zone (an empty one leaves it as it is)."""
    try:
        code = clean_language(language)
    except UnknownLanguage:
        raise errors.Invalid(N_("the language must be one of %(languages)s"), languages=", ".join(LANGUAGES),
                             code="invalid-language", field="language") from None
    try:
        zone_name = clean_time_zone(time_zone) if time_zone else None
    except UnknownTimeZone:
        raise errors.Invalid(N_("the time zone must be an IANA name such as Europe/Budapest"),
                             code="invalid-time-zone", field="time_zone") from None
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        seat.language = code
        if zone_name:
            seat.time_zone = zone_name
        session.add(seat)
        return game_view(ctx, game, seats, seat)


def set_board_style(ctx: Context, token: object, style: object) -> SeatView:
    """Choose how this seat's page and the picture in its mail draw the board."""
    if not isinstance(style, str) or style not in BOARD_STYLES:
        raise errors.Invalid(N_("the board style must be one of %(choices)s"), choices=", ".join(BOARD_STYLES),
                             code="invalid-style", field="style")
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        seat.board_style = style
        session.add(seat)
        return game_view(ctx, game, seats, seat)


# -- signing in ---------------------------------------------------------------


def request_login(ctx: Context, email: object, language: str = DEFAULT_LANGUAGE) -> datetime | None:
    """Ask for a sign-in link for ``email``.  The same work whether or not the
    address has games (one outbox row, handed to the background), so neither the
    answer nor its timing tells who plays here: the worker looks the address up
    and writes the link (:func:`new_login`), or drops the row.

    A request too soon after the last one for the same address sends nothing
    and returns when the address may ask again (the page says so): that depends
    only on the requests, never on whether the address plays here."""
    try:
        address = clean_address(email)  # checked like a player's
    except BadAddress:
        raise errors.Invalid(N_("that is not an email address"), code="invalid-email") from None
    try:
        ctx.limit("LIMIT_LOGIN_MAIL", [address])
    except errors.RateLimited as e:
        # One sign-in mail per address per few minutes, whatever is asked.
        return ctx.now() + timedelta(seconds=e.clear_after)
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        row = enqueue(session, kind="login", event=f"login:{uuid.uuid4().hex}", recipient=address,
                      base_url=ctx.base_url, now=now, language=language)
    ctx.relay([row])
    return None


def new_login(ctx: Context, session: Session, address: str) -> Login | None:
    """A fresh sign-in link for an address that has games (``None`` otherwise),
    in the caller's transaction: the worker delivering a sign-in request."""
    # Only an address that accepted a seat or was really sent an invitation: a
    # game an anonymous visitor started (and nobody confirmed) names addresses
    # that never heard of us.
    accepted = select(Seat.id).where(col(Seat.email) == address, col(Seat.accepted_at).is_not(None))
    invited = select(Outbox.id).where(col(Outbox.recipient) == address, col(Outbox.kind) == "invite",
                                      col(Outbox.status) == "sent")
    if session.exec(accepted).first() is None and session.exec(invited).first() is None:
        return None
    now = ctx.now()
    salt = tokens.new_salt()
    login = Login(email=address, token_salt=salt, created_at=now,
                  token_hash=tokens.digest(tokens.derive(ctx.secret_key, "login", salt)),
                  expires_at=now + timedelta(minutes=ctx.config["LOGIN_MINUTES"]))
    session.add(login)
    session.flush()
    return login


def login_link(ctx: Context, login: Login) -> str:
    return f"{ctx.base_url}/signin/{tokens.derive(ctx.secret_key, 'login', login.token_salt)}"


def _login_for(session: Session, token: object, now: datetime) -> Login:
    if not tokens.well_formed(token):
        raise errors.Unauthorized(N_("this sign-in link is not valid"), code="invalid-link")
    login = session.exec(select(Login).where(Login.token_hash == tokens.digest(str(token)))).first()
    if login is None:
        raise errors.Unauthorized(N_("this sign-in link is not valid"), code="invalid-link")
    if login.used_at is not None:
        raise errors.Unauthorized(N_("this sign-in link has been used already; ask for a new one"),
                                  code="used-link")
    if as_utc(login.expires_at) <= now:
        raise errors.Unauthorized(N_("this sign-in link has expired; ask for a new one"), code="expired-link")
    if login.ended_at is not None:  # ended before it was used: signed out everywhere, or a seat link replaced
        raise errors.Unauthorized(N_("this sign-in link is not valid"), code="invalid-link")
    return login


def check_login(ctx: Context, token: object) -> str:
    """Whether a sign-in link is usable (for the page a GET shows); changes nothing."""
    with session_scope(ctx.engine) as session:
        return _login_for(session, token, ctx.now()).email


@dataclass(frozen=True)
class SignedIn:
    """A browser session opened by a sign-in link: the cookie holds both."""

    email: str
    login_id: int


def use_login(ctx: Context, token: object) -> SignedIn:
    """Spend a sign-in link (the page's POST): the session it opens."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        login = _login_for(session, token, now)
        spent = session.exec(
            update(Login).where(col(Login.id) == login.id, col(Login.used_at).is_(None)).values(used_at=now)
        )
        if spent.rowcount != 1:
            raise errors.Unauthorized(N_("this sign-in link has been used already"), code="used-link")
        assert login.id is not None  # a stored row
        return SignedIn(login.email, login.id)


def signed_in(ctx: Context, email: object, login_id: object) -> bool:
    """Whether a browser session is still good: its sign-in was used, has not
    been signed out of, and is younger than ``SESSION_DAYS``."""
    if not isinstance(email, str) or isinstance(login_id, bool) or not isinstance(login_id, int):
        return False
    since = ctx.now() - timedelta(days=ctx.config["SESSION_DAYS"])
    with session_scope(ctx.engine) as session:
        return session.exec(select(Login.id).where(
            col(Login.id) == login_id, col(Login.email) == email, col(Login.used_at).is_not(None),
            col(Login.used_at) > since, col(Login.ended_at).is_(None))).first() is not None


def _end_sessions(session: Session, email: str, now: datetime, *, keep: object = None) -> int:
    """End every browser session of ``email``, and every sign-in link for it not
    yet used, but the session ``keep`` (a login id): how many there were."""
    if not email:
        return 0
    query = update(Login).where(col(Login.email) == email, col(Login.ended_at).is_(None))
    if isinstance(keep, int) and not isinstance(keep, bool):
        query = query.where(col(Login.id) != keep)
    return int(session.exec(query.values(ended_at=now)).rowcount)


def sign_out_everywhere(ctx: Context, email: object) -> int:
    """"Sign out everywhere" on the signed-in dashboard: every session of the
    address ends (this one too), on every device, and a sign-in link not yet
    used opens nothing more.  How many there were."""
    if not isinstance(email, str):
        return 0
    with session_scope(ctx.engine) as session:
        return _end_sessions(session, email, ctx.now())


def sign_out(ctx: Context, login_id: object) -> None:
    """End a browser session for good: a copy of its cookie opens nothing."""
    if isinstance(login_id, bool) or not isinstance(login_id, int):
        return
    with session_scope(ctx.engine) as session:
        session.execute(update(Login).where(col(Login.id) == login_id, col(Login.ended_at).is_(None))
                        .values(ended_at=ctx.now()))


GAMES_PER_PAGE = 20


def games_of(ctx: Context, email: str, page: int = 1) -> tuple[list[dict[str, Any]], bool]:
    """One page of the games of the player with this email, newest first, with
    their links; and whether there are more.  Each says who the others are,
    who is to move or how it ended — from the game's public view, so nothing
    hidden shows — and, once over, its rematch (with this player's own seat in
    it) if one has started."""
    page = max(1, page)
    address = email.lower()
    with session_scope(ctx.engine) as session:
        rows = session.exec(
            select(Seat, Game).join(Game, col(Game.id) == col(Seat.game_id))
            .where(col(Seat.email) == address).order_by(col(Game.id).desc())
            .offset((page - 1) * GAMES_PER_PAGE).limit(GAMES_PER_PAGE + 1)
        ).all()
        more = len(rows) > GAMES_PER_PAGE
        rows = rows[:GAMES_PER_PAGE]
        # Every seat of these games, and the rematches of the finished ones with this
        # player's seat in each: a query each rather than some per game.
        seats: dict[int, list[Seat]] = {}
        for other in session.exec(select(Seat).where(col(Seat.game_id).in_([g.id for _, g in rows]))
                                  .order_by(col(Seat.game_id), col(Seat.position))):
            seats.setdefault(other.game_id, []).append(other)
        rematches: dict[int, dict[str, str | None]] = {}
        finished = [g.id for _, g in rows if g.status == "finished"]
        if finished:
            for of, public_id in session.exec(select(Game.rematch_of, Game.public_id)
                                              .where(col(Game.rematch_of).in_(finished))):
                assert of is not None  # selected by it
                rematches[of] = {"game": public_id, "link": None}
            for of, own in session.exec(select(Game.rematch_of, Seat).join(Seat, col(Seat.game_id) == col(Game.id))
                                        .where(col(Game.rematch_of).in_(finished), col(Seat.email) == address)):
                assert of is not None
                rematches[of]["link"] = seat_link(ctx, own)
        out = []
        for seat, game in rows:
            assert game.id is not None  # loaded
            view = game_view(ctx, game, seats[game.id], None)
            you = view["players"][seat.position]
            out.append({
                "game": game.public_id, "status": _status_for(game, seat), "ply": game.ply,
                # A seat handed to the computer is never the person's turn.
                "your_turn": game.status == "active" and game.turn_seat == seat.position and seat.bot is None,
                "players": [p["name"] for p in view["players"]], "link": seat_link(ctx, seat),
                "token": seat_token(ctx, seat), "name": seat.name,
                "others": [p["name"] for p in view["players"] if p["seat"] != seat.position],
                "next": view["next"] if game.status == "active" else None,
                "winners": view["winners"] if game.status == "finished" else None,
                # Clans are public once the game is over (the view has them only then).
                "result": {"clan": you["clan"], "final": you["final_score"], "chips": you["chips"],
                           "clan_score": view["clan_scores"].get(you["clan"], 0)}
                if game.status == "finished" and you["clan"] else None,
                "rematch": rematches.get(game.id),
                # "Play again" is a person's: a seat the computer plays has none.
                "can_rematch": game.status == "finished" and seat.bot is None,
            })
        return out, more


def replace_seat_link(ctx: Context, token: object, *, keep_login: object = None) -> str:
    """A leaked seat link can be replaced: the seat gets a new token, the old one
    stops working at once, and the new link is mailed to the seat's own address
    (never shown to whoever holds the old one).  Whoever had the link may have
    had more: every browser session signed in with the seat's address ends too
    (and its sign-in links not yet used), but ``keep_login``, the session of
    the browser asking, if it is one.  Returns the game's public id."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, game, _ = seat_and_game(session, token)
        # Counted per seat, not per token: each new link is a new token.
        ctx.limit("LIMIT_NEW_LINK", [f"seat:{seat.id}"])
        _end_sessions(session, seat.email, now, keep=keep_login)
        seat.token_salt = tokens.new_salt()
        seat.token_hash = tokens.digest(tokens.derive(ctx.secret_key, "seat", seat.token_salt))
        session.add(seat)
        session.flush()
        row = enqueue(session, kind="link", event=f"link:{uuid.uuid4().hex}", recipient=seat.email,
                      base_url=ctx.base_url, now=now, game_id=game.id, seat_id=seat.id)
        public_id = game.public_id
    ctx.relay([row])
    return public_id


# -- the clock: vacations and the autopilot -------------------------------------


def pause_clock(ctx: Context, token: object, days: object) -> SeatView:
    """Pause this player's own clock for ``days`` days (from their vacation
    allowance for the game).  If it is their turn the deadline moves back by the
    pause; a turn that reaches them while paused starts its clock when the pause
    ends.  Everyone sees the pause (``paused_until`` in the view)."""
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise errors.Invalid(N_("days must be a whole number of days, at least 1"), code="invalid-days")
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        refuse_computer_seat(seat)
        if game.status != "active":
            raise errors.Conflict(N_("the clock runs only while the game is being played"),
                                  code="not-started" if game.status == "invited" else "game-over")
        if days > seat.vacation_days_left:
            raise errors.Invalid(n_("you have %(num)d vacation day left in this game",
                                    "you have %(num)d vacation days left in this game"),
                                 num=seat.vacation_days_left, code="invalid-days")
        pause = timedelta(days=days)
        paused = as_utc(seat.paused_until)
        seat.paused_until = (paused if paused and paused > now else now) + pause
        seat.vacation_days_left -= days
        session.add(seat)
        current = as_utc(game.deadline)
        if game.turn_seat == seat.position and current is not None:
            # The deadline moves with the pause, and a new deadline deserves a new reminder.
            game.deadline = current + pause
            game.reminded_for = None
            session.add(game)
        session.flush()
        return game_view(ctx, game, seats, seat)


def autopilot_seed(secret_key: str, game_seed: int, ply: int, purpose: str = "autopilot") -> int:
    """The autopilot's (or the computer's, ``purpose="computer"``) random seed
    for one move: the same game and ply always give the same move.  Keyed with
    the secret key: the game's seed can be found from its public set-up, and
    with it anyone could replay the autopilot's choices for each guess of the
    absent player's clan."""
    mac = hmac.new(secret_key.encode(), f"{purpose}|{game_seed}|{ply}".encode(), hashlib.sha256)
    return int.from_bytes(mac.digest()[:8], "big")


def autopilot_move(ctx: Context, game_id: int, ply: int) -> str | None:
    """Move for the seat whose deadline for move ``ply`` has passed, stored
    exactly like a player's move (same ply guard); every player with mail on is
    told (``deadline`` mail) and the next turn mail goes out as usual.  Returns
    the move, or ``None`` when there is nothing to do (someone moved first, the
    deadline was moved, the game is over)."""
    now = ctx.now()
    outbox: list[int | None] = []
    turn: tuple[int, int] | None = None
    with session_scope(ctx.engine) as session:
        game, seats = game_and_seats(session, game_id)
        if game is None or game.status != "active" or game.ply != ply:
            return None
        deadline = as_utc(game.deadline)
        if deadline is None or deadline > now:
            return None
        position = _rules_game(game)
        if position is None or position.turn is None:
            return None
        seat = seats[position.turn]
        computer = seat.bot is not None
        if not computer:
            move, order = choose_move(position, random.Random(autopilot_seed(ctx.secret_key, game.seed, ply)))
            position.push(move, order)
            stored = _store_move(ctx, session, game, seats, seat, position, move,
                                 list(order) if order is not None else None, now, autopilot=True)
            if stored is None:
                return None
            outbox += stored
            seat.autopilot_streak += 1
            session.add(seat)
            for s in seats:
                if s.mail != "none" and s.bot is None:
                    outbox.append(enqueue(session, kind="deadline", event=f"autopilot:{ply}", recipient=s.email,
                                          base_url=ctx.base_url, now=now, game_id=game_id, seat_id=s.id))
            turn = _computer_turn(game, seats)
    if computer:
        # No worker moved for the computer in its time: the clock does, at its
        # level but briefly (it may have many such turns to catch up on).
        return computer_move(ctx, game_id, ply, seconds=CLOCK_BOT_SECONDS)
    ctx.relay(outbox)
    _hand_on(ctx, turn)
    return str(move)


# -- the computer's seats -------------------------------------------------------


def refuse_computer_seat(seat: Seat) -> None:
    """A seat handed to the computer is the computer's: its link only shows the game."""
    if seat.bot is not None:
        raise errors.Conflict(N_("the computer plays this seat now"), code="computer-seat")


def _computer_turn(game: Game, seats: Sequence[Seat]) -> tuple[int, int] | None:
    """``(game id, ply)`` if the computer is to move in this game."""
    turn = game.turn_seat
    if game.status != "active" or turn is None or game.id is None or seats[turn].bot is None:
        return None
    return game.id, game.ply


def _hand_on(ctx: Context, turn: tuple[int, int] | None) -> None:
    """After the commit: let a worker move for the computer."""
    if turn is not None:
        ctx.computer(*turn)


def computer_move(ctx: Context, game_id: int, ply: int, *, seconds: float | None = None) -> str | None:
    """The computer's move in a seat it plays, for move ``ply``: decided from
    that seat's view (:func:`game_view`, as its page shows it, and nothing
    else) outside any transaction, then stored like a player's move (same ply
    guard: two workers deciding at once store one move).  Returns the move, or
    ``None`` when there is nothing to do (the game moved on, or is over, or it
    is a person's turn)."""
    with session_scope(ctx.engine) as session:
        game, seats = game_and_seats(session, game_id)
        if game is None or game.status != "active" or game.ply != ply or game.turn_seat is None:
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
        if game is None or game.status != "active" or game.ply != ply:
            return None
        position = _rules_game(game)
        assert position is not None and position.turn is not None  # an active game has a player to move
        seat = seats[position.turn]
        if seat.bot is None:
            return None
        position.push(move, order)
        outbox = _store_move(ctx, session, game, seats, seat, position, move,
                             list(order) if order is not None else None, now, autopilot=False)
        if outbox is None:
            return None  # another worker stored it first
        computer = _computer_turn(game, seats)
    log.info("the computer (%s) played move %d of game %s", level.value, ply + 1, game.public_id,
             extra={"game": game.public_id})
    ctx.relay(outbox)
    _hand_on(ctx, computer)
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
        if game.status != "active":
            raise errors.Conflict(N_("the computer can take a seat only while the game is being played"),
                                  code="not-started" if game.status == "invited" else "game-over")
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
            if not _absent(target):
                raise errors.Conflict(N_("only an absent player's seat can be handed to the computer "
                                         "(the autopilot has moved for them three times running)"),
                                      code="not-absent")
            if level == Level.EASY.value:
                # Someone else's seat must be played at least as well as the autopilot did.
                raise errors.Invalid(N_("another player's seat goes to the computer at medium or hard"),
                                     code="invalid-level", field="bot")
        target.bot = str(level)
        target.bot_from = game.ply
        target.mail = "none"
        target.talk_mail = False
        session.add(target)
        session.flush()
        if game.turn_seat == target.position:
            position = _rules_game(game)
            assert position is not None
            # Only for the move it was loaded at: a move stored meanwhile (the
            # clock's, for an away seat) set the next player's deadline already.
            session.exec(update(Game).where(col(Game.id) == game.id, col(Game.ply) == game.ply)
                         .values(deadline=_deadline(ctx, game, seats, position, now), reminded_for=None))
            session.refresh(game)
        log.info("seat %d of game %s handed to the computer (%s)", target.position, game.public_id, level,
                 extra={"game": game.public_id})
        view = game_view(ctx, game, seats, seat)
        computer = _computer_turn(game, seats)
    _hand_on(ctx, computer)
    return view
