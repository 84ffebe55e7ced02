"""Background work as Celery tasks, and the relay that hands outbox rows to them.

Tasks take ids, re-read the database and check the world before acting.  With
no broker configured (the embedded default) Celery runs them in-process."""

from __future__ import annotations

import logging
from typing import Any, Iterable

from celery import Celery, Task, shared_task
from flask import Flask, current_app

log = logging.getLogger(__name__)


def _ctx() -> Any:
    return current_app.extensions["pbem"]


def _transport() -> Any:
    from .mail.transport import transport_for

    ctx = _ctx()
    return transport_for(ctx.config, ctx.engine)


@shared_task(name="pbem.deliver", bind=True, acks_late=True, reject_on_worker_lost=True,
             max_retries=8, soft_time_limit=60, time_limit=90, ignore_result=True)
def deliver(self: Task, outbox_id: int) -> str:
    """Deliver one outbox row.  A passing failure is retried with exponential
    backoff and jitter; the row's own schedule (``next_attempt_at``) is kept too,
    so the sweep finds it if this process dies."""
    from .mail.delivery import backoff, deliver as deliver_row

    outcome = deliver_row(_ctx(), outbox_id, _transport())
    if outcome == "retry" and not self.request.is_eager:
        raise self.retry(countdown=backoff(self.request.retries + 1).total_seconds())
    return outcome


@shared_task(name="pbem.sweep_outbox", ignore_result=True, soft_time_limit=240, time_limit=300)
def sweep_outbox() -> int:
    """Hand every pending row that is due to the workers (beat runs this)."""
    from .mail.delivery import due

    ids = due(_ctx())
    relay(ids)
    return len(ids)


def relay(ids: Iterable[int]) -> None:
    """After a commit: hand each new outbox row to a worker.  If the broker is
    down the rows stay pending in the database and the sweep sends them later;
    the change that wrote them is never undone for it."""
    task = current_app.extensions["celery"].tasks["pbem.deliver"]
    for outbox_id in ids:
        try:
            task.apply_async((outbox_id,), retry=False)
        except Exception as e:  # noqa: BLE001 - broker down: the sweep catches up
            log.warning("outbox %s left for the sweep: %s", outbox_id, e)


def celery_init_app(app: Flask) -> Celery:
    """A Celery app whose tasks run inside this Flask app's context."""

    class FlaskTask(Task):  # type: ignore[misc]
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            with app.app_context():
                return self.run(*args, **kwargs)

    broker = app.config["BROKER_URL"]
    celery = Celery(app.name, task_cls=FlaskTask)
    celery.conf.update(
        broker_url=broker or "memory://",
        task_always_eager=not broker,
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_connection_timeout=3,
        broker_connection_retry_on_startup=True,
        broker_transport_options={"socket_timeout": 3, "socket_connect_timeout": 3,
                                  "visibility_timeout": 3600},
        beat_schedule={
            "sweep-outbox": {"task": "pbem.sweep_outbox", "schedule": 60.0},
        },
    )
    celery.set_default()
    app.extensions["celery"] = celery

    def relay_in_app(ids: Iterable[int]) -> None:
        ids = list(ids)
        if not ids:
            return
        with app.app_context():
            relay(ids)

    celery.relay = relay_in_app  # type: ignore[attr-defined]
    return celery
