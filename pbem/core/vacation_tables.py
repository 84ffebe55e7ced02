"""A person's vacation bank (issue 32): the days they may be away without the
autopilot moving for them, spent by pauses and, when a deadline lapses, a day
at a time (``pbem.people.vacation``).  A person is their address's mailbox
(``pbem.people.players.mailbox``); only its SHA-256 is kept, as the ratings keep it."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from .models import _when, utcnow


class VacationBank(SQLModel, table=True):
    """How many vacation days a person had at ``updated_at``; what has accrued
    since (``PBEM_VACATION_DAYS`` a year, never above a year's) is added when
    the row is next read to spend from it."""

    __tablename__ = "vacation_bank"

    id: int | None = Field(default=None, primary_key=True)
    address_hash: str = Field(max_length=64, unique=True, index=True)
    days: float = Field(default=0.0)
    updated_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))
