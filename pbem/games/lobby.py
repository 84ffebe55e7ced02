"""The lobby: tables with open seats that strangers find and join by mail.

A table is listed while its game is invited, its creator has confirmed it and
one of its open seats is free.  Joining (:func:`join`) holds a free open seat
for ``LOBBY_HOLD_HOURS``: the joiner's name and address go into the seat with a
new seat link, and the invitation mail (kind ``table-invite``) carries that link;
accepting it is accepting any invitation (``games.accept``), and the last
acceptance starts the game as always.  While a seat is held, another joiner is
refused ``seat-taken``; once the hold has run out unaccepted, the next joiner
takes it over (the first holder's link stops working).  Nothing here shows an
address: seated players appear by display name with their reliability."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Sequence, TypedDict

from sqlalchemy import exists, func, or_, update
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from ..core import errors, tokens
from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core.events import Event, key
from ..core.lobby_tables import LobbySeat, LobbyTable
from ..core.match_tables import MatchRequest
from ..core.models import Game, GameStatus, MailChoice, Seat, Suppression
from ..core.outbox import OutboxKind, enqueue
from ..people import blocks, profiles
from ..people.players import BadAddress, BadName, clean_address, clean_name, mailbox, suppression_hashes
from ..people.reliability import ReliabilityView, rating_of, reliability_of
from ..rules.tables import MAX_PLAYERS, MIN_PLAYERS
from ..words import N_
from ..words.language import (DEFAULT_LANGUAGE, LANGUAGES, UnknownLanguage, UnknownTimeZone, clean_language,
                              clean_time_zone)
from .open_seats import Requirements
from .starting import MAX_TURN_HOURS

log = logging.getLogger(__name__)

TABLES_PER_PAGE = 20
#: How many joins one mailbox may hold unaccepted at once.
MAX_UNCONFIRMED_JOINS = 3


class SeatedPlayer(TypedDict):
    name: str
    #: The computer's level for a seat it plays, else ``None``.
    bot: str | None
    reliability: ReliabilityView | None


class TableView(TypedDict):
    id: str
    seats: int
    open_seats: int
    turn_hours: int
    language: str
    requirements: dict[str, float | None]
    created_at: str
    players: list[SeatedPlayer]


@dataclass(frozen=True)
class LobbyFilter:
    """What the listing is narrowed to (``None``: any)."""

    players: int | None = None
    max_turn_hours: int | None = None
    language: str | None = None


def _whole(raw: str | None, name: str, low: int, high: int) -> int | None:
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 6) or not low <= int(raw) <= high:
        raise errors.BadRequest(N_("%(name)s must be a whole number from %(low)d to %(high)d"), name=name,
                                low=low, high=high, code="bad-filter")
    return int(raw)


def parse_filter(players: str | None, max_turn_hours: str | None, language: str | None,
                 page: str | None) -> tuple[LobbyFilter, int]:
    """The listing's query parameters, checked (``400 bad-filter``; ``None``: not
    given, whereas an empty value is no value), and the page."""
    if language is not None and language not in LANGUAGES:
        raise errors.BadRequest(N_("the language must be one of %(languages)s"), languages=", ".join(LANGUAGES),
                                code="bad-filter")
    found = LobbyFilter(_whole(players, "players", MIN_PLAYERS, MAX_PLAYERS),
                        _whole(max_turn_hours, "max_turn_hours", 1, MAX_TURN_HOURS), language or None)
    return found, _whole(page, "page", 1, 10_000) or 1


def _free(now: datetime) -> Any:
    """An open seat nobody has accepted or holds now."""
    seat = aliased(Seat)
    return (select(LobbySeat.id).join(seat, col(seat.id) == col(LobbySeat.seat_id))
            .where(col(LobbySeat.game_id) == col(LobbyTable.game_id), col(seat.accepted_at).is_(None),
                   or_(col(LobbySeat.held_until).is_(None), col(LobbySeat.held_until) < now)))


def _confirmed() -> Any:
    """The game's creator (at seat 0 until it starts) has confirmed it."""
    creator = aliased(Seat)
    return select(creator.id).where(col(creator.game_id) == col(LobbyTable.game_id), col(creator.position) == 0,
                                    col(creator.accepted_at).is_not(None))


def tables(ctx: Context, where: LobbyFilter = LobbyFilter(), page: int = 1,
           per_page: int = TABLES_PER_PAGE) -> tuple[list[TableView], bool]:
    """One page of the tables waiting for players, newest first; and whether there are more."""
    now = ctx.now()
    page = max(1, page)
    query = (select(LobbyTable, Game.public_id).join(Game, col(Game.id) == col(LobbyTable.game_id))
             .where(col(Game.status) == GameStatus.INVITED, exists(_free(now)), exists(_confirmed())))
    if where.players is not None:
        query = query.where(col(LobbyTable.seats) == where.players)
    if where.max_turn_hours is not None:
        query = query.where(col(LobbyTable.turn_hours) <= where.max_turn_hours)
    if where.language is not None:
        query = query.where(col(LobbyTable.language) == where.language)
    with session_scope(ctx.engine) as session:
        rows = session.exec(query.order_by(col(LobbyTable.created_at).desc(), col(LobbyTable.id).desc())
                            .offset((page - 1) * per_page).limit(per_page + 1)).all()
        more = len(rows) > per_page
        rows = rows[:per_page]
        return [_view(t, public_id, seats, lobby, people, now)
                for (t, public_id), seats, lobby, people in _around(session, [(t, p) for t, p in rows])], more


def _around(session: Session, found: Sequence[tuple[LobbyTable, str]]) -> list[
        tuple[tuple[LobbyTable, str], list[Seat], list[LobbySeat], dict[str, ReliabilityView]]]:
    """Each table with its game's seats, its open seats and its seated people's
    reliability: three queries for a whole page (four once someone has finished a game)."""
    ids = [t.game_id for t, _ in found]
    seats: dict[int, list[Seat]] = {i: [] for i in ids}
    lobby: dict[int, list[LobbySeat]] = {i: [] for i in ids}
    for seat in session.exec(select(Seat).where(col(Seat.game_id).in_(ids)).order_by(col(Seat.position))):
        seats[seat.game_id].append(seat)
    # Apart from the seats: joined to them, the planner reads the whole lobby_seat table.
    for held in session.exec(select(LobbySeat).where(col(LobbySeat.game_id).in_(ids))):
        lobby[held.game_id].append(held)
    seated = [s.email for group in seats.values() for s in group if s.accepted_at is not None and s.email]
    known = {k: v.as_json() for k, v in reliability_of(session, seated).items()}
    return [(t, seats[t[0].game_id], lobby[t[0].game_id], known) for t in found]


def _view(table: LobbyTable, public_id: str, seats: list[Seat], lobby: list[LobbySeat],
          people: dict[str, ReliabilityView], now: datetime) -> TableView:
    by_id = {s.id: s for s in seats}
    free = sum(1 for held in lobby if _is_free(by_id[held.seat_id], held, now))
    return {
        "id": public_id, "seats": table.seats, "open_seats": free, "turn_hours": table.turn_hours,
        "language": table.language,
        "requirements": Requirements(table.min_in_time, table.min_rating, table.max_rating).as_json(),
        "created_at": as_utc(table.created_at).isoformat(),
        # Who sits there already, by name: never an address.
        "players": [{"name": s.name, "bot": s.bot,
                     "reliability": people.get(s.email.lower()) if s.bot is None else None}
                    for s in seats if s.accepted_at is not None],
    }


def _is_free(seat: Seat, held: LobbySeat, now: datetime) -> bool:
    until = as_utc(held.held_until)
    return seat.accepted_at is None and (until is None or until < now)


def table(ctx: Context, public_id: object) -> TableView:
    """One table as the lobby shows it (``404`` when it is not a lobby table)."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        game, found = _lobby_game(session, public_id)
        _, seats, lobby, people = _around(session, [(found, game.public_id)])[0]
        return _view(found, game.public_id, seats, lobby, people, now)


def _lobby_game(session: Session, public_id: object) -> tuple[Game, LobbyTable]:
    game = None
    if tokens.is_public_id(public_id):
        game = session.exec(select(Game).where(col(Game.public_id) == public_id)).first()
    found = None if game is None else session.exec(
        select(LobbyTable).where(col(LobbyTable.game_id) == game.id)).first()
    if game is None or found is None:
        raise errors.NotFound(N_("there is no table %(game)s in the lobby"), game=str(public_id)[:40])
    return game, found


@dataclass(frozen=True)
class Joiner:
    name: str
    email: str
    language: str = DEFAULT_LANGUAGE
    time_zone: str | None = None


def parse_joiner(raw: dict[str, Any]) -> Joiner:
    """A joiner's name and address (``422`` as at the start form), language and time zone."""
    try:
        name = clean_name(raw.get("name"))
    except BadName as e:
        raise errors.Invalid(N_("%(problem)s"), problem=e, code="invalid-name", field="name") from None
    try:
        email = clean_address(raw.get("email"))
    except BadAddress as e:
        raise errors.Invalid(N_("%(problem)s"), problem=e, code="invalid-email", field="email") from None
    try:
        # Absent or null: the default; an empty value is no language (as the document says).
        language = clean_language(DEFAULT_LANGUAGE if raw.get("language") is None else raw.get("language"))
    except UnknownLanguage:
        raise errors.Invalid(N_("the language must be one of %(languages)s"), languages=", ".join(LANGUAGES),
                             code="invalid-language", field="language") from None
    zone = raw.get("time_zone")
    try:
        zone = None if zone is None else clean_time_zone(zone)
    except UnknownTimeZone:
        raise errors.Invalid(N_("the time zone must be an IANA name such as Europe/Budapest"),
                             code="invalid-time-zone", field="time_zone") from None
    return Joiner(name, email, language, zone)


def join(ctx: Context, public_id: object, joiner: Joiner) -> str:
    """Hold a free open seat of a lobby table for ``joiner`` and mail them its
    invitation; returns the table's id.  Every check comes before anything is
    written or counted, so a refusal changes nothing:

    - ``404 not-found``: no such table in the lobby (or its creator has not confirmed it);
    - ``409 full``: the game has started, expired or every open seat is accepted;
    - ``409 seat-taken``: every free open seat is held by someone who joined first;
    - ``409 already-seated``: this mailbox has a seat at the table already;
    - ``409 in-time-required`` / ``409 rating-out-of-range``: the table's requirements;
    - ``409 too-many-joins``: this mailbox holds ``MAX_UNCONFIRMED_JOINS`` unaccepted joins;
    - ``422`` ``invalid-name`` (a name taken at the table) or ``cannot-invite`` (the never-mail list)."""
    now = ctx.now()
    box = mailbox(joiner.email)
    with session_scope(ctx.engine) as session:
        game, found = _lobby_game(session, public_id)
        seats = list(session.exec(select(Seat).where(col(Seat.game_id) == game.id).order_by(col(Seat.position))))
        if not seats or seats[0].accepted_at is None:
            raise errors.NotFound(N_("there is no table %(game)s in the lobby"), game=game.public_id)
        lobby = list(session.exec(select(LobbySeat).where(col(LobbySeat.game_id) == game.id)
                                  .order_by(col(LobbySeat.id))))
        by_id = {s.id: s for s in seats}
        unaccepted = [held for held in lobby if by_id[held.seat_id].accepted_at is None]
        if game.status != GameStatus.INVITED or not unaccepted:
            raise errors.Conflict(N_("this table is full"), code="full")
        if any(s.email and mailbox(s.email) == box for s in seats):
            raise errors.Conflict(N_("you have a seat at this table already"), code="already-seated")
        free = [held for held in unaccepted if _is_free(by_id[held.seat_id], held, now)]
        if not free:
            raise errors.Conflict(N_("someone else joined first: this table's open seats are taken"),
                                  code="seat-taken")
        if any(s.name.lower() == joiner.name.lower() for s in seats if s.email or s.bot):
            raise errors.Invalid(N_("someone at this table is called %(name)s already: choose another name"),
                                 name=joiner.name, code="invalid-name", field="name")
        _refuse_suppressed(session, joiner.email)
        # Blocked people are never seated together, either way; the refusal names nobody.
        if blocks.any_blocked(session, joiner.email, [s.email for s in seats if s.email]):
            raise errors.Conflict(N_("you cannot join this table"), code="blocked")
        if found.min_in_time is not None or found.min_rating is not None or found.max_rating is not None:
            # A table's requirements are met by a record others may see.
            if profiles.hidden(session, joiner.email):
                raise errors.Conflict(N_("this table asks for a record: show your profile (My games) to join it"),
                                      code="profile-hidden")
        _check_requirements(session, found, joiner.email)
        holding = unaccepted_joins(session, box, now)
        # Unconfirmed quick-match requests count too (:mod:`.quick_match`).
        holding += unconfirmed_requests(session, box)
        if holding >= MAX_UNCONFIRMED_JOINS:
            log.warning("lobby table %s: a join refused, ***@%s holds %d unaccepted joins", game.public_id,
                        box.rpartition("@")[2], holding)
            raise errors.Conflict(N_("you have %(num)d tables waiting for your acceptance: accept or let them "
                                     "lapse before joining another"), num=int(holding), code="too-many-joins")
        # Counted once every check has passed (a refused join costs nobody a mail).
        ctx.limit("LIMIT_JOINS", [joiner.email])
        until = now + timedelta(hours=int(ctx.config["LOBBY_HOLD_HOURS"]))
        held = _claim(session, free, until, box, now)
        seat = by_id[held.seat_id]
        salt = tokens.new_salt()
        seat.name, seat.email, seat.language, seat.time_zone = joiner.name, joiner.email, joiner.language, \
            joiner.time_zone
        seat.token_salt, seat.token_hash = salt, tokens.digest(tokens.derive(ctx.secret_key, "seat", salt))
        seat.mail = MailChoice.EVERY
        session.add(seat)
        session.flush()
        outbox = [enqueue(session, kind=OutboxKind.TABLE_INVITE, event=key(Event.JOIN, held.id, int(until.timestamp())),
                          recipient=seat.email, base_url=ctx.base_url, now=now, game_id=game.id, seat_id=seat.id)]
        log.info("lobby table %s: an open seat is held until %s for ***@%s", game.public_id, until.isoformat(),
                 box.rpartition("@")[2])
        public = game.public_id
    ctx.relay(outbox)
    return public


def unaccepted_joins(session: Session, box: str, now: datetime) -> int:
    """How many open seats ``box`` holds unaccepted."""
    return int(session.exec(
        select(func.count()).select_from(LobbySeat).join(Seat, col(Seat.id) == col(LobbySeat.seat_id))
        .join(Game, col(Game.id) == col(LobbySeat.game_id))
        .where(col(LobbySeat.mailbox) == box, col(LobbySeat.held_until) >= now, col(Seat.accepted_at).is_(None),
               col(Game.status) == GameStatus.INVITED)).one())


def unconfirmed_requests(session: Session, box: str) -> int:
    """How many quick-match requests of ``box`` wait for their confirmation."""
    return int(session.exec(
        select(func.count()).select_from(MatchRequest).join(Game, col(Game.id) == col(MatchRequest.game_id))
        .where(col(MatchRequest.mailbox) == box, col(MatchRequest.confirmed_at).is_(None),
               col(Game.status) == GameStatus.INVITED)).one())


def _claim(session: Session, free: list[LobbySeat], until: datetime, box: str, now: datetime) -> LobbySeat:
    """Hold the first free seat that is still free when written: two joins at once
    for the last seat hold it once (the other is refused ``seat-taken``)."""
    for held in free:
        took = session.exec(update(LobbySeat).where(
            col(LobbySeat.id) == held.id,
            or_(col(LobbySeat.held_until).is_(None), col(LobbySeat.held_until) < now)
        ).values(mailbox=box, held_until=until).execution_options(synchronize_session=False))
        if took.rowcount == 1:
            session.refresh(held)
            return held
    raise errors.Conflict(N_("someone else joined first: this table's open seats are taken"), code="seat-taken")


def _refuse_suppressed(session: Session, email: str) -> None:
    found = session.exec(select(Suppression.id)
                         .where(col(Suppression.address_hash).in_(suppression_hashes(email)))).first()
    if found is not None:
        raise errors.Invalid(N_("%(email)s cannot be invited"), email=email, code="cannot-invite", field="email")


def _check_requirements(session: Session, found: LobbyTable, email: str) -> None:
    """The table's requirements.  Someone with no move in a finished game has no
    share of moves in time: they meet no minimum share (a table that asks for
    one asks for a record)."""
    if found.min_in_time is not None:
        share = reliability_of(session, [email])[email.strip().lower()].in_time_share
        if share is None or share < found.min_in_time:
            raise errors.Conflict(N_("this table asks for players who made at least %(share)d%% of their moves in "
                                     "time"), share=round(found.min_in_time * 100), code="in-time-required")
    if found.min_rating is not None or found.max_rating is not None:
        rating = rating_of(session, email)
        low = found.min_rating if found.min_rating is not None else float("-inf")
        high = found.max_rating if found.max_rating is not None else float("inf")
        if not low <= rating <= high:
            raise errors.Conflict(N_("this table asks for a rating between %(low)s and %(high)s"),
                                  low=found.min_rating if found.min_rating is not None else "-",
                                  high=found.max_rating if found.max_rating is not None else "-",
                                  code="rating-out-of-range")


def from_lobby(session: Session, game: Game) -> bool:
    """Whether the players of ``game`` met in the lobby: it, or a game it is the
    rematch of (and so on back), was a lobby table."""
    seen: set[int] = set()
    current: int | None = game.id
    while current is not None and current not in seen:
        seen.add(current)
        if session.exec(select(LobbyTable.id).where(col(LobbyTable.game_id) == current)).first() is not None:
            return True
        current = session.exec(select(Game.rematch_of).where(col(Game.id) == current)).first()
    return False


def strangers(session: Session, game: Game, seats: Sequence[Seat], reader: Seat) -> list[SeatedPlayer]:
    """The people seated at a lobby table, for a joiner's invitation: by name,
    with their reliability (never an address)."""
    seated = [s for s in seats if s.accepted_at is not None and s.id != reader.id]
    known = reliability_of(session, [s.email for s in seated if s.email])
    return [{"name": s.name, "bot": s.bot,
             "reliability": known[s.email.lower()].as_json() if s.bot is None and s.email else None}
            for s in seated]


# Quick match (:mod:`.quick_match`) seats people at lobby tables with these.
free_seat = _free
creator_confirmed = _confirmed
claim = _claim
refuse_suppressed = _refuse_suppressed
check_requirements = _check_requirements
is_free = _is_free
