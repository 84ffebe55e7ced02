"""The tables of Web Push (``pbem.table.push``): a seat's subscription, the
browser's ``PushSubscription`` as it gave it.  A seat has at most one: the
device that subscribed last gets the pushes (subscribing again from another
device replaces it).  How the seat wants its turn announced is on the seat
itself (``Seat.push_mode``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime
from sqlmodel import Field, SQLModel

#: The longest push service address kept (the browsers' are under 500 characters).
MAX_ENDPOINT = 1000


class PushSubscription(SQLModel, table=True):
    __tablename__ = "push_subscription"

    id: int | None = Field(default=None, primary_key=True)
    seat_id: int = Field(foreign_key="seat.id", unique=True)
    #: The push service's address for this browser (https, checked like a webhook's).
    endpoint: str = Field(max_length=MAX_ENDPOINT)
    #: The browser's P-256 public key (65 bytes, base64url) and its 16-byte
    #: authentication secret (base64url), for RFC 8291's encryption.
    p256dh: str = Field(max_length=100)
    auth: str = Field(max_length=40)
    created_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
