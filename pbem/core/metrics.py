"""What the service counts for an operator's Prometheus (``GET /metrics`` when
``PBEM_METRICS=1``): moves, mail, replies, webhook posts and request times,
counted where they happen; the outbox and the games in play, read from the
database when the page is asked for.

With several processes (gunicorn's workers, Celery's) each writes its counts to
files in ``PROMETHEUS_MULTIPROC_DIR`` and any one of them serves the sum
(prometheus-client's multiprocess mode); without it, a process serves its own.
Labels are codes and kinds, never a game, a person or an address: a label's
every value is a series kept for ever.  Nor may a label tell anything of one:
a sign-in mail is sent for an address that plays here and dropped for one that
does not, so sign-in mails are counted once each as ``handled``, whatever
became of them (:func:`mail`)."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from typing import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from .models import DeliveryOutcome, Game, GameStatus, Outbox, OutboxStatus
from .outbox import OutboxKind

MOVES = Counter("pbem_moves", "Moves offered by players: accepted, or refused with the refusal's code", ["outcome"])
MAIL = Counter("pbem_mail", "Delivery attempts of outbox rows by kind: sent, retry, failed, skipped, postponed", ["kind", "outcome"])
INBOUND = Counter("pbem_inbound", "Mail received and handled, by outcome (the handler's first word)", ["outcome"])
REQUESTS = Histogram("pbem_request_seconds", "Time to answer a web request, by route and method",
                     ["route", "method"], buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0))


def multiprocess() -> bool:
    return bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))


def move(outcome: str) -> None:
    MOVES.labels(outcome=outcome).inc()


#: What every sign-in mail is counted as, sent or dropped (see :func:`mail`).
LOGIN_OUTCOME = "handled"


def mail(kind: str, outcome: str) -> None:
    if kind == OutboxKind.LOGIN:
        # Sent (the address plays here), skipped (it does not), retried or failed
        # (only a sent one can be): the counts would tell a watcher of /metrics
        # whether an address they asked a link for is known.  One count per mail,
        # when it is done with, the same either way.
        if outcome == DeliveryOutcome.RETRY:
            return
        outcome = LOGIN_OUTCOME
    MAIL.labels(kind=kind, outcome=outcome).inc()


def inbound(word: str) -> None:
    # An outcome may carry details ("refused:not-your-turn"): the details stay
    # in the log, a label takes the word (``pbem.inbound.outcomes.word_of``).
    INBOUND.labels(outcome=word).inc()


class StateCollector(Collector):
    """The outbox and the games, read from the database at each scrape (one
    process answers, so these are never summed across processes)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def collect(self) -> Iterator[GaugeMetricFamily]:
        now = datetime.now(timezone.utc)
        with Session(self.engine) as session:
            pending, oldest = session.exec(
                select(func.count(), func.min(Outbox.created_at)).where(Outbox.status == OutboxStatus.PENDING)).one()
            failed = session.exec(select(func.count()).where(Outbox.status == OutboxStatus.FAILED)).one()
            active = session.exec(select(func.count()).select_from(Game)
                                  .where(col(Game.status) == GameStatus.ACTIVE)).one()
        if oldest is not None and oldest.tzinfo is None:
            oldest = oldest.replace(tzinfo=timezone.utc)
        yield GaugeMetricFamily("pbem_outbox_pending", "Outbox rows waiting to be sent", value=pending)
        yield GaugeMetricFamily("pbem_outbox_oldest_pending_seconds", "Age of the oldest row waiting to be sent",
                                value=(now - oldest).total_seconds() if oldest is not None else 0.0)
        yield GaugeMetricFamily("pbem_outbox_failed", "Outbox rows given up on (kept until retention)", value=failed)
        yield GaugeMetricFamily("pbem_games_active", "Games in play", value=active)


def exposition(engine: Engine) -> bytes:
    """The text of ``GET /metrics``: every process's counts, and the state now."""
    registry = CollectorRegistry()
    if multiprocess():
        MultiProcessCollector(registry)
    else:
        for collector in (MOVES, MAIL, INBOUND, REQUESTS):
            registry.register(collector)
    registry.register(StateCollector(engine))
    return generate_latest(registry)
