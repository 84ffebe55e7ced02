"""A new game's time options, checked: a correspondence clock (``"clock":
{"days", "increment_hours", "max_days"}``), ``"weekends_off"`` and
``"vacation": "off"``.  A refusal names the field (``invalid-clock``,
``invalid-weekends-off``, ``invalid-vacation``) and changes nothing.

The limits: a bank starts with 1 to :data:`MAX_DAYS` days, gains 0 to
:data:`MAX_INCREMENT_HOURS` hours a move, and holds at most
:data:`MAX_BANK_DAYS` days (and never less than it started with): a turn of
more than two months would leave a table waiting for a season."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..core import errors
from ..words import N_
from .clocks import Clock

#: The most days a bank may start with (the longest fixed turn, 30 days).
MAX_DAYS = 30
#: The most hours a move may add (ten days).
MAX_INCREMENT_HOURS = 240
#: The most days a bank may ever hold.
MAX_BANK_DAYS = 60
class Vacation(StrEnum):
    """A game's ``"vacation"``: ``off``, no vacation is spent in it (tournament-style)."""

    ON = "on"
    OFF = "off"


VACATION_ON, VACATION_OFF = Vacation.ON, Vacation.OFF


@dataclass(frozen=True)
class TimeOptions:
    """A new game's clock (``None``: a fixed ``turn_hours``), weekends and vacation."""

    clock: Clock | None = None
    weekends_off: bool = False
    vacation_off: bool = False


def _whole(raw: dict[str, Any], name: str, low: int, high: int, default: int | None = None) -> int:
    value = raw.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise errors.Invalid(N_("%(name)s must be a whole number from %(low)d to %(high)d"),
                             name=f"clock.{name}", field=f"clock.{name}", low=low, high=high, code="invalid-clock")
    return value


def parse_clock(raw: object) -> Clock | None:
    """``{"days": D, "increment_hours": H, "max_days": M}`` (``increment_hours``
    0 and ``max_days`` D when left out), or ``None`` for no clock."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise errors.Invalid(N_("%(name)s must be an object with days, increment_hours and max_days"),
                             name="clock", field="clock", code="invalid-clock")
    unknown = sorted(set(raw) - {"days", "increment_hours", "max_days"})
    if unknown:
        raise errors.Invalid(N_("%(name)s is not a setting of the clock"), name=f"clock.{unknown[0]}",
                             field=f"clock.{unknown[0]}", code="invalid-clock")
    days = _whole(raw, "days", 1, MAX_DAYS)
    increment = _whole(raw, "increment_hours", 0, MAX_INCREMENT_HOURS, 0)
    most = _whole(raw, "max_days", 1, MAX_BANK_DAYS, days)
    if most < days:
        raise errors.Invalid(N_("%(name)s must be at least the days the clock starts with (%(days)d)"),
                             name="clock.max_days", field="clock.max_days", days=days, code="invalid-clock")
    return Clock(days=days, increment_hours=increment, max_days=most)


def parse_time_options(clock: object = None, weekends_off: object = None, vacation: object = None) -> TimeOptions:
    """A new game's clock, weekends and vacation as the API and the form give them."""
    parsed = parse_clock(clock)
    if weekends_off is not None and not isinstance(weekends_off, bool):
        raise errors.Invalid(N_("%(name)s must be true or false"), name="weekends_off", field="weekends_off",
                             code="invalid-weekends-off")
    if vacation is not None and vacation not in (VACATION_OFF, VACATION_ON):
        raise errors.Invalid(N_("%(name)s must be \"on\" or \"off\""), name="vacation", field="vacation",
                             code="invalid-vacation")
    return TimeOptions(parsed, bool(weekends_off), vacation == VACATION_OFF)
