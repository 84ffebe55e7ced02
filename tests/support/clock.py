"""A frozen clock: ``ctx.now`` that the test moves by hand."""

from __future__ import annotations

from typing import Any


class Clock:
    """A settable ``ctx.now``."""

    def __init__(self, start: Any) -> None:
        self.at = start

    def __call__(self) -> Any:
        return self.at

    def advance(self, **delta: float) -> Any:
        from datetime import timedelta

        self.at = self.at + timedelta(**delta)
        return self.at


def frozen_clock(ctx: Any) -> Clock:
    """Replace the context's clock with one the test moves by hand."""
    from pbem.models import utcnow

    clock = Clock(utcnow())
    ctx.now = clock
    return clock
