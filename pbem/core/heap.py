"""A server process's heap after start: what it made to start (the app, its
imports, the board's tables) lives as long as the process, yet every full
collection of the garbage collector walked it all again, about 170,000 objects
and 80 ms on the bench's machine, to free none of it.  In a gunicorn worker a
full collection came every 50 to 60 lobby listings and held that one request
up by 100 ms: the listing's p99 was a collection's length."""

from __future__ import annotations

import gc


def freeze_started() -> None:
    """Put what exists now out of the collector's sight for the process's life
    (:func:`gc.freeze`), once the garbage of the start is collected, so that it
    is not kept.  For a process that serves from here on: a gunicorn worker
    once it loaded the app, a Celery pool process once forked."""
    gc.collect()
    gc.freeze()
