"""A frozen clock (``ctx.now`` that the test moves by hand), and waiting in real
time for another thread or server."""

from __future__ import annotations

import time
from typing import Any, Callable


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
    from pbem.core.models import utcnow

    clock = Clock(utcnow())
    ctx.now = clock
    return clock


def wait_until(check: Callable[[], Any], timeout: float = 15.0) -> Any:
    """Poll ``check`` (real time: another thread, a server) until it gives
    something true, and return that; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s")
