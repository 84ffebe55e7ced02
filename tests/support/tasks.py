"""Waiting for a Celery worker running in this process (``celery.contrib.testing``)
to have done something: an event to wait for, never a sleep after which
"nothing happened" would prove nothing on a slow machine."""

from __future__ import annotations

import threading
import uuid
from typing import Any

from celery.signals import task_postrun

#: An outbox row that never exists: delivering it does nothing.
NO_ROW = 2**31 - 1


def ran(celery: Any, name: str, *args: Any, timeout: float = 30.0) -> None:
    """Send the task ``name`` and wait until the worker has run it."""
    wanted = uuid.uuid4().hex
    done = threading.Event()

    def seen(task_id: str | None = None, **_: Any) -> None:
        if task_id == wanted:
            done.set()

    task_postrun.connect(seen, weak=False)
    try:
        celery.send_task(name, args=list(args), task_id=wanted)
        assert done.wait(timeout), f"the worker did not run {name} within {timeout} s"
    finally:
        task_postrun.disconnect(seen)


def drained(celery: Any, timeout: float = 30.0) -> None:
    """Wait until the worker has run every task queued in the default queue
    before now: one that does nothing goes in behind them, and the worker
    (one, solo) takes a queue in order."""
    ran(celery, "pbem.deliver", NO_ROW, timeout=timeout)
