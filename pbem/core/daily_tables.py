"""A person's own settings and links beside their seats' (issue 31): the daily
mail of the games waiting on them, and the private calendar feeds of their
deadlines.  A person is their address as seats store it (lower case); there
is no person table, each area keeps what it needs by address."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from .models import _when, utcnow


class DailyMail(SQLModel, table=True):
    """"One mail a day of every game where it is my turn", at an hour of the
    person's own zone.  ``last_day`` is the claim: the local date whose mail
    the clock decided (a beat claims it by changing it), so that two beats, or
    one running every minute, decide one mail a day."""

    __tablename__ = "daily_mail"

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(max_length=254, unique=True, index=True)
    on: bool = Field(default=False)
    #: The local hour (0-23) the mail goes at.
    hour: int = Field(default=8)
    #: An IANA zone; ``None``: their seats' zone (else UTC).
    time_zone: str | None = Field(default=None, max_length=64)
    #: The local date (ISO) of the last day decided (a mail written, or nothing waited).
    last_day: str | None = Field(default=None, max_length=10)
    updated_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))


class CalendarFeed(SQLModel, table=True):
    """A private iCalendar feed: a person's (``email``) or one seat's
    (``seat_id``).  Its token is HMAC-derived from the secret key and this
    salt, as seat tokens are: only the salt and the token's SHA-256 are kept,
    and the token opens nothing but the feed."""

    __tablename__ = "calendar_feed"

    id: int | None = Field(default=None, primary_key=True)
    email: str | None = Field(default=None, max_length=254, unique=True)
    seat_id: int | None = Field(default=None, foreign_key="seat.id", unique=True)
    token_salt: str = Field(max_length=64)
    token_hash: str = Field(max_length=64, unique=True)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))
