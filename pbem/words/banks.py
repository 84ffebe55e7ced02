"""A correspondence clock's bank as people read it: "2 days 5 hours"."""

from __future__ import annotations

from . import ENGLISH, Words


def bank_text(hours: float | None, w: Words = ENGLISH) -> str:
    """The time in a bank, whole hours (down), in the reader's language; empty
    without a clock.

    >>> bank_text(53), bank_text(48.9), bank_text(5), bank_text(0.5), bank_text(None)
    ('2 days 5 hours', '2 days', '5 hours', '30 minutes', '')
    >>> bank_text(29, Words("hu")), bank_text(29, Words("pt"))
    ('1 nap 5 óra', '1 dia e 5 horas')
    """
    if hours is None:
        return ""
    whole = int(hours)
    if whole < 1:
        return w.n_("%(num)d minute", "%(num)d minutes", int(hours * 60))
    days, rest = divmod(whole, 24)
    day_text = w.n_("%(num)d day", "%(num)d days", days)
    hour_text = w.n_("%(num)d hour", "%(num)d hours", rest)
    if not days:
        return hour_text
    if not rest:
        return day_text
    # Translators: the time in a player's clock: "2 days" and "5 hours" (from their own sentences).
    return w._("%(days)s %(hours)s", days=day_text, hours=hour_text)
