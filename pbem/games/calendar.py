"""Private iCalendar feeds of deadlines (RFC 5545, written by ``icalendar``):
one per person (every running game of theirs) and one per seat (its game).

Calendar programs send no headers, so a feed's address carries its own token:
HMAC-derived from the secret key and a random salt (:mod:`pbem.core.tokens`),
only its SHA-256 stored.  It opens the feed and nothing else; the feed holds
no address, no seat link and no clan: each game's event is at its current
deadline, says whose move it is (names are public) and links to the game's
public page.

An event's UID is the game's and the seat's, so a calendar that reads the feed
again replaces the event when the deadline moves; its SEQUENCE grows with
each move and each later deadline of the same turn, and DTSTAMP is when the
feed was read."""

from __future__ import annotations

from datetime import datetime, timedelta
from urllib.parse import urlsplit

from icalendar import Alarm, Calendar, Event, Timezone
from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ..core import errors, tokens
from ..core.context import Context
from ..core.daily_tables import CalendarFeed
from ..core.db import as_utc, session_scope
from ..core.models import Game, GameStatus, MoveRecord, Seat
from ..words import N_, Words, names_text
from ..words.language import zone
from .daily import setting_in
from .lookup import seat_and_game
from .waiting import address_of

PURPOSE = "calendar"
#: The alarm goes this long before the deadline.
ALARM_BEFORE = timedelta(hours=1)
#: What a SEQUENCE gives each turn: the minutes a turn's deadline was moved later count within it.
_PER_TURN = 100_000


def _token(ctx: Context, feed: CalendarFeed) -> str:
    return tokens.derive(ctx.secret_key, PURPOSE, feed.token_salt)


def feed_links(ctx: Context, feed: CalendarFeed) -> dict[str, str]:
    """The feed's https address and the same as ``webcal://`` (which calendar
    programs take as "subscribe")."""
    url = f"{ctx.base_url}/calendar/{_token(ctx, feed)}.ics"
    return {"url": url, "webcal": "webcal://" + url.split("://", 1)[1]}


def _feed(session: Session, *, email: str | None = None, seat_id: int | None = None) -> CalendarFeed | None:
    where = col(CalendarFeed.email) == email if email is not None else col(CalendarFeed.seat_id) == seat_id
    return session.exec(select(CalendarFeed).where(where)).first()


def _made(ctx: Context, *, email: str | None = None, seat_id: int | None = None) -> CalendarFeed:
    """The feed, made now if there is none.  Two requests at once make one: the
    second finds the first's row after its insert fails on the unique key."""
    for _ in range(2):
        try:
            with session_scope(ctx.engine) as session:
                found = _feed(session, email=email, seat_id=seat_id)
                if found is not None:
                    return found
                salt = tokens.new_salt()
                feed = CalendarFeed(email=email, seat_id=seat_id, token_salt=salt,
                                    token_hash=tokens.digest(tokens.derive(ctx.secret_key, PURPOSE, salt)),
                                    created_at=ctx.now())
                session.add(feed)
                session.flush()
                session.expunge(feed)
                return feed
        except IntegrityError:
            continue
    raise errors.Conflict(N_("try again"), code="busy")


def seat_feed(ctx: Context, seat_token: object) -> dict[str, str]:
    """The links of a seat's feed (made on first asking); 401 for a bad seat token."""
    with session_scope(ctx.engine) as session:
        seat, _, _ = seat_and_game(session, seat_token)
        seat_id = seat.id
    return feed_links(ctx, _made(ctx, seat_id=seat_id))


def seat_feed_in(ctx: Context, session: Session, seat: Seat) -> dict[str, str] | None:
    """The links of a seat's feed if it was made (its page shows them; showing makes nothing)."""
    found = _feed(session, seat_id=seat.id)
    return feed_links(ctx, found) if found is not None else None


def person_feed(ctx: Context, email: str, *, make: bool) -> dict[str, str] | None:
    """The links of a person's feed (all their running games); made only with ``make``."""
    if make:
        return feed_links(ctx, _made(ctx, email=address_of(email)))
    with session_scope(ctx.engine) as session:
        found = _feed(session, email=address_of(email))
        return feed_links(ctx, found) if found is not None else None


# -- the feed ---------------------------------------------------------------------------


def feed_text(ctx: Context, token: object) -> bytes:
    """The iCalendar text of the feed a token opens.  A token of the wrong shape
    or one that opens no feed is 404 (never 401: the address names a document,
    and nothing tells a forged token from one that never was)."""
    if not isinstance(token, str) or not tokens.well_formed(token):
        raise _missing()
    with session_scope(ctx.engine) as session:
        feed = session.exec(select(CalendarFeed).where(CalendarFeed.token_hash == tokens.digest(token))).first()
        if feed is None:
            raise _missing()
        if feed.seat_id is not None:
            rows = session.exec(select(Seat, Game).join(Game, col(Game.id) == col(Seat.game_id))
                                .where(col(Seat.id) == feed.seat_id)).all()
            zone_name = (rows[0][0].time_zone if rows else None) or "UTC"
        else:
            assert feed.email is not None
            rows = session.exec(select(Seat, Game).join(Game, col(Game.id) == col(Seat.game_id))
                                .where(col(Seat.email) == feed.email, col(Seat.bot).is_(None),
                                       Game.status == GameStatus.ACTIVE)
                                .order_by(col(Game.deadline))).all()
            zone_name = setting_in(session, feed.email).time_zone
        running = [(s, g) for s, g in rows if g.status == GameStatus.ACTIVE and g.deadline is not None]
        ids = [g.id for _, g in running if g.id is not None]
        return bytes(_calendar(ctx, running, _names(session, ids), _turn_starts(session, ids), zone_name).to_ical())


def _missing() -> errors.NotFound:
    return errors.NotFound(N_("no such calendar"), code="not-found")


def _names(session: Session, game_ids: list[int]) -> dict[int, list[tuple[int, str, bool]]]:
    out: dict[int, list[tuple[int, str, bool]]] = {}
    if game_ids:
        for game_id, position, name, bot in session.exec(
                select(Seat.game_id, Seat.position, Seat.name, Seat.bot).where(col(Seat.game_id).in_(game_ids))):
            out.setdefault(game_id, []).append((position, name, bot is not None))
    return out


def _turn_starts(session: Session, game_ids: list[int]) -> dict[int, datetime]:
    """When each game's last move was made (a game not in it has had none)."""
    if not game_ids:
        return {}
    rows = session.exec(select(MoveRecord.game_id, func.max(MoveRecord.created_at))
                        .where(col(MoveRecord.game_id).in_(game_ids)).group_by(col(MoveRecord.game_id))).all()
    return {game_id: as_utc(at) for game_id, at in rows if at is not None}


def _calendar(ctx: Context, running: list[tuple[Seat, Game]], names: dict[int, list[tuple[int, str, bool]]],
              turn_starts: dict[int, datetime], zone_name: str) -> Calendar:
    tz = zone(zone_name)
    cal = Calendar.new(prodid="-//Clans by Mail//Deadlines//EN", name="Clans by Mail",
                       refresh_interval=timedelta(hours=1))
    # The zone the times are written in: the reader's (every calendar needs a component anyway).
    cal.add_component(Timezone.from_tzinfo(tz))
    host = urlsplit(ctx.base_url).hostname or "localhost"
    now = ctx.now()
    for seat, game in running:
        assert game.id is not None
        deadline = as_utc(game.deadline)
        assert deadline is not None
        w = Words(seat.language, zone_name)
        seated = sorted(names.get(game.id, []))
        mover = next((n for p, n, _ in seated if p == game.turn_seat), "")
        others = [w._("%(name)s (computer)", name=n) if bot else n for p, n, bot in seated if p != seat.position]
        yours = game.turn_seat == seat.position
        what = w._("Your turn") if yours else w._("%(name)s is to move", name=mover)
        summary = w._("Clans, game %(game)s: %(what)s", game=game.public_id, what=what)
        description = "\n".join([w._("the others: %(names)s", names=names_text(others, w)),
                                  w._("Due %(when)s", when=w.when(deadline))])
        event = Event.new(uid=f"{game.public_id}-{seat.position}@{host}", start=deadline.astimezone(tz),
                          stamp=now, sequence=_sequence(game, deadline, turn_starts.get(game.id)), summary=summary,
                          description=description, url=f"{ctx.base_url}/games/{game.public_id}")
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", summary)
        alarm.add("trigger", -ALARM_BEFORE)
        event.add_component(alarm)
        cal.add_component(event)
    return cal


def _sequence(game: Game, deadline: datetime, last_move: datetime | None) -> int:
    """Grows as the event changes: with each move (the turn's number), and within
    a turn as its deadline is moved later than the turn's own (a pause,
    ``pbem admin extend``: minutes later)."""
    started = last_move or as_utc(game.started_at) or deadline
    later = int((deadline - (started + timedelta(hours=game.turn_hours))).total_seconds() // 60)
    return game.ply * _PER_TURN + max(0, min(_PER_TURN - 1, later))
