"""Background work as Celery tasks, and the relay that hands outbox rows to them.

Tasks take ids, re-read the database and check the world before acting.  With
no broker configured (the embedded default) Celery runs them in-process.

Nothing waits in the broker for long: deadlines and retry times live in the
database, and beat runs the clock (:mod:`pbem.workers.clock`) that scans them.  A task
retries itself only for short waits; anything longer is left to the sweep."""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta
from typing import Any, Callable, Iterable

from billiard.process import current_process  # type: ignore[import-untyped]  # no type information
from celery import Celery, Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.schedules import crontab
from celery.signals import celeryd_after_setup, worker_process_init, worker_process_shutdown, worker_shutdown
from flask import Flask, current_app
from sqlalchemy.exc import OperationalError

from . import broker as redis_broker, clock, daily_mail as daily
from .handoff import Handoff
from ..core.config import DEFAULTS, DELIVERY_TIME_LIMIT
from ..core.heap import freeze_started
from ..core.app_context import context
from ..core.models import DeliveryOutcome
from ..core.outbox import posts_among
from .. import games
from ..inbound import handling
from ..mail import delivery
from ..mail.transport import close_connections, transport_for
from ..mail.webhook_posts import webhook_rows
from .. import games

log = logging.getLogger(__name__)

#: The queues, in the order a worker takes them: the clock's (beat's periodic
#: tasks), the mail's (the default), then the work a stranger can make slow or
#: costly, each on its own: received mail, the computer's moves, webhook posts.
#: A worker given no ``-Q`` consumes them all in this order; the README's
#: deployment gives the last three workers of their own, so that mail and the
#: clock never wait behind them.
CLOCK_QUEUE = "clock"
DEFAULT_QUEUE = "celery"
INBOUND_QUEUE = "inbound"
COMPUTER_QUEUE = "computer"
WEBHOOK_QUEUE = "webhooks"
QUEUES = (CLOCK_QUEUE, DEFAULT_QUEUE, INBOUND_QUEUE, COMPUTER_QUEUE, WEBHOOK_QUEUE)
CLOCK_TASKS = ("pbem.sweep_outbox", "pbem.sweep_inbound", "pbem.clock.deadlines", "pbem.clock.digests",
               "pbem.clock.prune", "pbem.clock.tick", "pbem.clock.daily", "pbem.clock.quick_match")
ROUTES = {**{name: CLOCK_QUEUE for name in CLOCK_TASKS}, "pbem.inbound.handle": INBOUND_QUEUE,
          "pbem.computer.move": COMPUTER_QUEUE, "pbem.deliver_webhook": WEBHOOK_QUEUE}
#: A task waits for its own retry at most this long; later retries are the sweep's.
MAX_TASK_RETRY_DELAY = timedelta(minutes=10)


def _task(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """Celery's ``shared_task`` with these options.  Celery has no type
    information, so to mypy the task it makes is ``Any``."""
    decorator: Callable[[Callable[..., Any]], Any] = shared_task(**options)
    return decorator


_DELIVERY = dict(bind=True, acks_late=True, reject_on_worker_lost=True,
                 autoretry_for=(OperationalError, ConnectionError), retry_backoff=5, retry_backoff_max=600,
                 retry_jitter=True, max_retries=8, soft_time_limit=60, time_limit=DELIVERY_TIME_LIMIT,
                 ignore_result=True)


@_task(name="pbem.deliver", **_DELIVERY)
def deliver(self: Task, outbox_id: int) -> str:
    """Deliver one outbox row.  A passing SMTP failure is retried at the row's
    own next attempt time (exponential backoff with jitter, kept in the
    database) when that is soon; otherwise, or if this process dies, the sweep
    finds the row.  A turn mail postponed while its reader is on their page is
    tried again the same way when their presence would lapse.  A database that
    cannot be reached is retried with backoff."""
    return _deliver(self, outbox_id)


@_task(name="pbem.deliver_webhook", **_DELIVERY)
def deliver_webhook(self: Task, outbox_id: int) -> str:
    """Deliver one outbox row that is a webhook's post, as :func:`deliver` does,
    on the webhooks' queue (a slow receiver holds only workers of that queue)."""
    return _deliver(self, outbox_id)


def _deliver(self: Task, outbox_id: int) -> str:
    ctx = context()
    outcome = delivery.deliver(ctx, outbox_id, transport_for(ctx.config, ctx.engine))
    if (outcome in (DeliveryOutcome.RETRY, DeliveryOutcome.POSTPONED) and not self.request.is_eager
            and self.request.retries < self.max_retries):
        when = delivery.next_attempt(ctx, outbox_id)
        if when is not None:
            wait = max(when - ctx.now(), timedelta(0))
            if wait <= MAX_TASK_RETRY_DELAY:
                raise self.retry(countdown=wait.total_seconds() + 1)
    return outcome


@_task(name="pbem.computer.move", acks_late=True, reject_on_worker_lost=True,
       autoretry_for=(OperationalError,), retry_backoff=2, retry_backoff_max=60, retry_jitter=True, max_retries=5,
       soft_time_limit=60, time_limit=90, ignore_result=True)
def computer_move(game_id: int, ply: int) -> str | None:
    """The computer's move at move ``ply`` of a game, if it is still the
    computer's turn there (a repeated or late task finds the game moved on and
    does nothing; two at once store one move).  If this never runs, the clock
    moves for the computer at its deadline."""
    return games.computer_move(context(), game_id, ply)


@_task(name="pbem.sweep_outbox", ignore_result=True, soft_time_limit=240, time_limit=300)
def sweep_outbox() -> int:
    """Hand every pending row that is due to the workers (beat runs this)."""
    every = float(current_app.config["CLOCK_SECONDS"])
    return len(clock.sweep_outbox(context(), handoff=lambda ids: _publish_outbox(ids, expires=every)))


@_task(name="pbem.inbound.handle", acks_late=True, reject_on_worker_lost=True, soft_time_limit=60,
       time_limit=90, ignore_result=True)
def handle_inbound(inbound_id: int) -> str:
    """Handle one received message (a reply, table talk, a bounce), at most once.
    It does not retry itself: a message whose handling failed stays pending with
    its next try's time, and the sweep hands it on then.  One that ran out of
    time is given up on, never tried again (it would only cost the time again)."""
    return handling.handle(context(), inbound_id, time_limit=(SoftTimeLimitExceeded,))


@_task(name="pbem.sweep_inbound", ignore_result=True, soft_time_limit=240, time_limit=300)
def sweep_inbound() -> int:
    """Hand on every received message still pending (beat runs this): the
    broker or a worker was down when it came, or its handling failed."""
    return len(clock.sweep_inbound(context(), handoff=_swept("pbem.inbound.handle", "inbound")))


@_task(name="pbem.clock.deadlines", ignore_result=True, soft_time_limit=240, time_limit=300)
def deadlines() -> dict[str, int]:
    """The autopilot for every passed deadline, then the reminders that are due."""
    ctx = context()
    return {"autopilot": len(clock.expire_deadlines(ctx)), "reminders": len(clock.send_reminders(ctx))}


@_task(name="pbem.clock.digests", ignore_result=True, soft_time_limit=600, time_limit=660)
def digests() -> int:
    """The daily digests (at most one per player, game and day however often it runs)."""
    return len(clock.send_digests(context()))


@_task(name="pbem.clock.daily", ignore_result=True, soft_time_limit=240, time_limit=300)
def daily_mail() -> int:
    """The people's daily mail whose hour it is (one per person and local day however often it runs)."""
    return len(daily.send_daily(context()))


@_task(name="pbem.clock.prune", ignore_result=True, soft_time_limit=600, time_limit=660)
def prune() -> dict[str, int]:
    """Retention: expire games nobody accepted, delete old sign-ins and mail."""
    return clock.prune(context())


@_task(name="pbem.clock.quick_match", ignore_result=True, soft_time_limit=240, time_limit=300)
def quick_match() -> int:
    """Seat whoever waits in the quick match pool and can be seated now (a table
    opened since they confirmed; matching at confirmation time does the rest)."""
    return games.quick_match.retry(context())


@_task(name="pbem.clock.tick", ignore_result=True, soft_time_limit=600, time_limit=660)
def tick() -> dict[str, int]:
    """All the periodic work once (for an operator: ``celery call pbem.clock.tick``)."""
    return clock.tick(context())


def relay(ids: Iterable[int], posts: frozenset[int] | None = None) -> None:
    """After a commit: hand each new outbox row to a worker.  If the broker is
    down the rows stay pending in the database and the sweep sends them later;
    the change that wrote them is never undone for it.

    A broker that does not answer would make every move wait for the socket
    time-out (``BROKER_TIMEOUT``), so after a failed publish the relay leaves new
    rows to the sweep for ``BROKER_PAUSE`` seconds without trying.

    Webhook posts go to their own task and queue (:func:`_publish_outbox`):
    ``posts`` names them when the change that wrote the rows knew."""
    _publish_outbox(ids, posts=posts)


def _publish_outbox(ids: Iterable[int], expires: float | None = None, posts: frozenset[int] | None = None) -> None:
    """Outbox rows to the workers: the webhooks' posts to ``pbem.deliver_webhook``
    (its queue), mail to ``pbem.deliver``.  Which is which is one look-up by
    primary key; if the database cannot say, everything goes to ``pbem.deliver``,
    which delivers either kind."""
    ids = list(ids)
    hooks: set[int] = set()
    if posts is not None:
        hooks = set(posts & set(ids))
    else:
        try:
            hooks = set(webhook_rows(context(), ids))
        except OperationalError as e:
            log.warning("outbox %s: could not tell webhook posts from mail (%s)", ", ".join(map(str, ids)), e)
    mail = [i for i in ids if i not in hooks]
    if mail:
        _publish("pbem.deliver", "outbox", mail, expires)
    if hooks:
        _publish("pbem.deliver_webhook", "outbox", [i for i in ids if i in hooks], expires)


def computer_turn(game_id: int, ply: int) -> None:
    """After a commit that left the computer to move: a worker moves for it
    after ``BOT_DELAY`` seconds.  If the broker is down, the clock moves for it
    at its deadline (the pause and a short grace)."""
    celery = current_app.extensions["celery"]
    if time.monotonic() < celery.pbem_paused_until:
        log.info("computer's move %d of game %s left for the clock (broker failed recently)", ply, game_id)
        return
    try:
        celery.tasks["pbem.computer.move"].apply_async((game_id, ply), retry=False,
                                                       countdown=float(current_app.config["BOT_DELAY"]))
    except Exception as e:  # noqa: BLE001 - broker down: the clock catches up
        celery.pbem_paused_until = time.monotonic() + float(current_app.config["BROKER_PAUSE"])
        log.warning("computer's move %d of game %s left for the clock (broker unreachable: %s)", ply, game_id, e)


def relay_inbound(ids: Iterable[int]) -> None:
    """After the receiver stored messages: hand each to a worker, as :func:`relay`
    does outbox rows (and the sweep catches up the same way)."""
    _publish("pbem.inbound.handle", "inbound", ids)


def _swept(task_name: str, what: str) -> Callable[[Iterable[int]], None]:
    """The sweep's hand-off: like the relay's, but each task expires when the next
    sweep is due, which hands the row on again if it is still pending.  Rows
    waiting behind a long backlog (or for workers that are down) are handed out
    at every sweep; without an expiry those copies would pile up in Redis."""
    every = float(current_app.config["CLOCK_SECONDS"])
    return lambda ids: _publish(task_name, what, ids, expires=every)


def _publish(task_name: str, what: str, ids: Iterable[int], expires: float | None = None) -> None:
    celery = current_app.extensions["celery"]
    ids = list(ids)
    if time.monotonic() < celery.pbem_paused_until:
        log.info("%s %s left for the sweep (broker failed recently)", what, ", ".join(map(str, ids)))
        return
    task = celery.tasks[task_name]
    handoff = celery.pbem_handoff
    for n, row_id in enumerate(ids):
        try:
            if handoff is not None:
                handoff.publish(task, row_id, expires)
            else:
                task.apply_async((row_id,), retry=False, expires=expires)
        except Exception as e:  # noqa: BLE001 - broker down: the sweep catches up
            # One failure is enough to know: don't make the caller wait for each row.
            celery.pbem_paused_until = time.monotonic() + float(current_app.config["BROKER_PAUSE"])
            log.warning("%s %s left for the sweep (broker unreachable: %s); relay paused for %s s",
                        what, ", ".join(map(str, ids[n:])), e, current_app.config["BROKER_PAUSE"])
            return


def beat_schedule(seconds: float = DEFAULTS["CLOCK_SECONDS"]) -> dict[str, dict[str, Any]]:
    """What ``celery -A pbem.worker beat`` runs: the sweeps and the deadline scan
    every ``seconds`` (``CLOCK_SECONDS``).  Each entry expires before the next
    one is due, so a backlog built while no worker ran is not replayed."""
    every = {"schedule": seconds, "options": {"expires": seconds * 0.9}}
    return {
        "sweep-outbox": {"task": "pbem.sweep_outbox", **every},
        "sweep-inbound": {"task": "pbem.sweep_inbound", **every},
        "deadlines-and-reminders": {"task": "pbem.clock.deadlines", **every},
        # Hourly and idempotent: the day's digest goes at the first run after
        # DIGEST_HOUR (UTC), even if beat was down at that hour.
        "daily-digest": {"task": "pbem.clock.digests", "schedule": crontab(minute=7),
                         "options": {"expires": 3000}},
        # Every few minutes and idempotent: each person's hour in their own zone
        # (zones are not all whole hours from UTC).
        "daily-mail": {"task": "pbem.clock.daily", "schedule": crontab(minute="*/5"),
                       "options": {"expires": 240}},
        # Hourly; a run that a time limit cut short is finished by the next.
        "retention": {"task": "pbem.clock.prune", "schedule": crontab(minute=37),
                      "options": {"expires": 3000}},
        # Every few minutes; idempotent (a seated request is never seated again).
        "quick-match": {"task": "pbem.clock.quick_match", "schedule": crontab(minute="*/10"),
                        "options": {"expires": 540}},
    }


def _clock_first(sender: str, instance: Any, **_: Any) -> None:
    """A worker started with ``-Q`` consumes its queues in the order given there:
    the clock's goes first whatever it is (else it waits behind the mail again),
    then the mail's, then the others as given; a worker without the clock's
    says so, since beat's tasks need some worker that has it.  Without ``-Q``
    a worker consumes every queue in the order of :data:`QUEUES`."""
    queues = instance.app.amqp.queues
    chosen = list(queues.consume_from)
    first = [name for name in (CLOCK_QUEUE, DEFAULT_QUEUE) if name in chosen]
    queues.select([*first, *(name for name in chosen if name not in first)])
    if CLOCK_QUEUE not in chosen:
        log.warning("worker %s does not consume the %r queue: sweeps, deadlines and reminders run only on "
                    "workers that do", sender, CLOCK_QUEUE)


celeryd_after_setup.connect(_clock_first)


def _close_smtp(**_: Any) -> None:
    """A stopping worker process says QUIT on the SMTP connections it kept open."""
    close_connections()


# A pool process stopping (prefork), and a worker stopping (its own process's).
worker_process_shutdown.connect(_close_smtp)
worker_shutdown.connect(_close_smtp)


def _freeze_start(**_: Any) -> None:
    """A prefork pool process, just forked, freezes what it was started with
    (:func:`pbem.core.heap.freeze_started`), as gunicorn's workers do.  Not the
    worker's own process, which the solo pool also sends this in: that may be a
    program that made a worker among other things (the tests do), whose heap is
    not all for life."""
    if current_process().name != "MainProcess":
        freeze_started()


worker_process_init.connect(_freeze_start)


def celery_init_app(app: Flask) -> Celery:
    """A Celery app whose tasks run inside this Flask app's context."""

    class FlaskTask(Task):  # type: ignore[misc]
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            with app.app_context():
                return self.run(*args, **kwargs)

    broker = app.config["BROKER_URL"]
    timeout = float(app.config["BROKER_TIMEOUT"])
    celery = Celery(app.name, task_cls=FlaskTask)
    celery.pbem_paused_until = 0.0  # see relay()
    # Outbox rows go to a Redis broker as Celery would write them, for less (handoff.py).
    celery.pbem_handoff = Handoff(celery, broker, timeout) if str(broker).startswith("redis://") else None
    celery.conf.update(
        broker_url=broker or "memory://localhost/",
        # A Redis broker through kombu's transport with its client held
        # (pbem.workers.broker): the same messages, built for less.
        broker_transport=redis_broker.TRANSPORT if str(broker).startswith("redis://") else None,
        task_always_eager=not broker,
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        # Every network call has a time limit: the broker's connection and sockets
        # (publishing while Redis is down fails in seconds, not minutes).
        broker_connection_timeout=3,
        broker_connection_retry_on_startup=True,
        # Publishing (the relay, after a commit) tries a down broker once more,
        # briefly, and gives up: the rows wait in the outbox for the sweep.
        broker_transport_options={"socket_timeout": timeout, "socket_connect_timeout": min(timeout, 3),
                                  "visibility_timeout": 3600, "max_retries": 1,
                                  "interval_start": 0.1, "interval_step": 0.2, "interval_max": 0.5,
                                  # A worker takes the clock's queue first, then the rest.
                                  "queue_order_strategy": "priority"},
        # The clock's tasks have a queue of their own, which every worker consumes
        # before the default one: behind a backlog of mail they would wait until
        # they expire, and a reminder would come after its deadline (bench hosts).
        # Received mail, the computer's moves and webhook posts have queues of
        # their own (QUEUES): a worker given none of them is never held by them.
        task_queues={name: {"routing_key": name} for name in QUEUES},
        task_default_queue=DEFAULT_QUEUE,
        task_routes={name: {"queue": queue} for name, queue in ROUTES.items()},
        broker_pool_limit=4,
        worker_cancel_long_running_tasks_on_connection_loss=True,
        timezone="UTC",
        enable_utc=True,
        # create_app set up logging already (pbem.core.logs: the format, the masking):
        # the worker keeps it rather than putting its own handler in its place.
        worker_hijack_root_logger=False,
        beat_schedule=beat_schedule(float(app.config["CLOCK_SECONDS"])),
    )
    celery.set_default()
    app.extensions["celery"] = celery

    def relay_in_app(ids: Iterable[int | None]) -> None:
        new = [i for i in ids if i is not None]
        if not new:
            return
        with app.app_context():
            relay(new, posts=posts_among(ids))

    def relay_inbound_in_app(ids: Iterable[int]) -> None:
        new = list(ids)
        if not new:
            return
        with app.app_context():
            relay_inbound(new)

    # Without a broker the task runs inline, and a computer's move that leaves
    # the next computer to move would call this again from inside itself: a
    # table of computers would nest one call per move.  So a call made while one
    # runs in this thread only queues its turn, and the outer call plays them in
    # order.  With a broker, publishing returns at once and the queue stays empty.
    turns = threading.local()

    def computer_in_app(game_id: int, ply: int) -> None:
        queue: list[tuple[int, int]] | None = getattr(turns, "queue", None)
        if queue is not None:
            queue.append((game_id, ply))
            return
        turns.queue = queue = [(game_id, ply)]
        try:
            while queue:
                with app.app_context():
                    computer_turn(*queue.pop(0))
        finally:
            turns.queue = None

    celery.relay = relay_in_app
    celery.computer = computer_in_app
    # The receiver's hand-off (``pbem inbound``, the demo): rows of the inbound table.
    celery.relay_inbound = relay_inbound_in_app
    return celery
