"""A person's daily mail: one mail at an hour of their own zone listing every
game where it is their turn, instead of a turn mail per game (issue 31).

It is a setting of the person (their address), beside the per-seat ones: on or
off, the hour, the zone (their seats' zone unless they chose one).  While it is
on, their turn mail is the daily one (:data:`pbem.mail.kinds.TurnMail`
checks :func:`replaces_turn_mail`); reminders and the game's end still come.

Its ``List-Unsubscribe`` link carries a token that can do nothing but switch
the daily mail off: ``<row id>.<HMAC of the id under the secret key>``, nothing
stored."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from ..core import errors, tokens
from ..core.context import Context
from ..core.daily_tables import DailyMail
from ..core.db import session_scope
from ..core.models import Seat
from ..words import N_
from ..words.language import DEFAULT_LANGUAGE, DEFAULT_TIME_ZONE, UnknownTimeZone, clean_time_zone, zone
from .waiting import address_of

PURPOSE = "daily-unsubscribe"
#: The hour a new setting offers.
DEFAULT_HOUR = 8


@dataclass(frozen=True)
class DailySetting:
    """What the dashboard shows and the clock reads."""

    on: bool
    hour: int
    #: The zone the hour is in: the one chosen, else their seats'.
    time_zone: str
    #: Whether the zone was chosen (else it follows their seats').
    chosen_zone: bool


def seats_zone(session: Session, email: str) -> str:
    """The zone of the person's newest seat that has one (else UTC)."""
    found = session.exec(select(Seat.time_zone).where(col(Seat.email) == address_of(email),
                                                      col(Seat.time_zone).is_not(None))
                         .order_by(col(Seat.id).desc()).limit(1)).first()
    return found or DEFAULT_TIME_ZONE


def seats_zone_of(ctx: Context, email: str) -> str:
    with session_scope(ctx.engine) as session:
        return seats_zone(session, email)


def seats_language(session: Session, email: str) -> str:
    """The language of the person's newest seat: what a mail about no single
    game of theirs speaks."""
    found = session.exec(select(Seat.language).where(col(Seat.email) == address_of(email))
                         .order_by(col(Seat.id).desc()).limit(1)).first()
    return found or DEFAULT_LANGUAGE


def row_of(session: Session, email: str) -> DailyMail | None:
    return session.exec(select(DailyMail).where(DailyMail.email == address_of(email))).first()


def setting_in(session: Session, email: str) -> DailySetting:
    row = row_of(session, email)
    zone = (row.time_zone if row is not None else None)
    return DailySetting(on=bool(row and row.on), hour=row.hour if row is not None else DEFAULT_HOUR,
                        time_zone=zone or seats_zone(session, email), chosen_zone=zone is not None)


def setting_of(ctx: Context, email: str) -> DailySetting:
    with session_scope(ctx.engine) as session:
        return setting_in(session, email)


def clean_hour(value: object) -> int:
    text = str(value if value is not None else "").strip()
    if not text.isdigit() or not 0 <= int(text) <= 23:
        raise errors.Invalid(N_("choose an hour from 0 to 23"), code="invalid-hour")
    return int(text)


def set_daily(ctx: Context, email: str, *, on: bool, hour: object, time_zone: object) -> DailySetting:
    """Turn the daily mail on or off at ``hour`` in ``time_zone`` (empty: their
    seats' zone).  Bad values change nothing (422)."""
    chosen_hour = clean_hour(hour)
    zone: str | None = None
    if str(time_zone or "").strip():
        try:
            zone = clean_time_zone(time_zone)
        except UnknownTimeZone:
            raise errors.Invalid(N_("the time zone must be an IANA name such as Europe/Budapest"), code="invalid-time-zone") from None
    with session_scope(ctx.engine) as session:
        row = row_of(session, email)
        if row is None:
            row = DailyMail(email=address_of(email))
        row.on, row.hour, row.time_zone, row.updated_at = on, chosen_hour, zone, ctx.now()
        if on:
            # Not today any more if today's hour has passed: turning it on sends
            # nothing at once; the first mail goes at the next such hour.
            row.last_day = _passed_today(ctx.now(), chosen_hour, zone or seats_zone(session, email))
        session.add(row)
        session.flush()
        return setting_in(session, email)


def _passed_today(now: datetime, hour: int, zone_name: str) -> str | None:
    local = now.astimezone(zone(zone_name))
    return local.date().isoformat() if local.hour >= hour else None


#: People's daily-mail switches a transaction has read already
#: (``session.info[KNOWN][address_of(email)]``), e.g. with the rest of a mail's
#: reader (:mod:`pbem.mail.reader`).
KNOWN = "pbem.daily_known"


def replaces_turn_mail(session: Session, email: str) -> bool:
    """Whether the person's turn mail is their daily mail now."""
    known = session.info.get(KNOWN, {})
    if address_of(email) in known:
        return bool(known[address_of(email)])
    return session.exec(select(DailyMail.id).where(DailyMail.email == address_of(email),
                                                   col(DailyMail.on).is_(True))).first() is not None


# -- the link that switches it off ---------------------------------------------------


def token_for(secret_key: str, row_id: int) -> str:
    return f"{row_id}.{tokens.derive(secret_key, PURPOSE, str(row_id))}"


def unsubscribe_link(ctx: Context, row_id: int) -> str:
    return f"{ctx.base_url}/unsubscribe/daily/{token_for(ctx.secret_key, row_id)}"


def _row_by_token(session: Session, ctx: Context, token: object) -> DailyMail:
    if isinstance(token, str) and "." in token:
        number, _, mac = token.partition(".")
        if number.isdigit() and len(number) < 12 and tokens.well_formed(mac) and hmac.compare_digest(
                tokens.derive(ctx.secret_key, PURPOSE, number).encode(), mac.encode()):
            row = session.get(DailyMail, int(number))
            if row is not None:
                return row
    raise errors.Unauthorized(N_("this link is not valid: check that you copied the whole link"))


def daily_by_token(ctx: Context, token: object) -> tuple[bool, str]:
    """Whether the daily mail a link names is on, and its person's language
    (for the page); 401 for a bad link.  Changes nothing."""
    with session_scope(ctx.engine) as session:
        row = _row_by_token(session, ctx, token)
        return row.on, seats_language(session, row.email)


def stop_by_token(ctx: Context, token: object) -> str:
    """Switch the daily mail a link names off (401 for a bad link, changing
    nothing); the person's language."""
    with session_scope(ctx.engine) as session:
        row = _row_by_token(session, ctx, token)
        row.on, row.updated_at = False, ctx.now()
        session.add(row)
        return seats_language(session, row.email)
