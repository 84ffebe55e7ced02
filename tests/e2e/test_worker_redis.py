"""End to end with the real parts: a Redis broker, a Celery worker, an SMTP
server.  Several turns are played through the service layer; every player must
get exactly the mail they should, delivered by the worker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterator

import pytest
import redis
from celery.contrib.testing.worker import start_worker
from sqlalchemy import update
from sqlmodel import col, select

from pbem import games
from pbem.people import signin
from pbem.core.db import session_scope
from pbem.core.models import MoveRecord, Outbox
from pbem.rules.tables import CLANS
from tests.support.clock import frozen_clock
from tests.support.brokers import broker_db, empty
from tests.support.config import BASE_URL, SECRET, redis_db
from tests.support.games import PLAYERS, new_game, play, seat_tokens, to_move
from tests.support.messages import parts
from tests.support.smtp import SmtpServer
from tests.support.tasks import drained, ran

ROOT = Path(__file__).resolve().parents[2]
EMAILS = {p["name"]: p["email"] for p in PLAYERS}


@pytest.fixture
def worker_app(database_url: str, smtp: SmtpServer, redis_url: str) -> Iterator[Any]:
    from pbem.web import create_app

    broker = broker_db(redis_db(2))
    app = create_app(smtp.config(database_url, BROKER_URL=broker))
    celery = app.extensions["celery"]
    assert not celery.conf.task_always_eager
    with start_worker(celery, pool="solo", concurrency=1, perform_ping_check=False,
                      loglevel="WARNING", shutdown_timeout=10):
        yield app
    app.extensions["pbem"].engine.dispose()
    empty(broker)


def wait_all_done(ctx: Any, timeout: float = 20.0) -> list[Outbox]:
    """Wait until no outbox row is pending (the worker has done them all)."""
    deadline = time.monotonic() + timeout
    while True:
        with session_scope(ctx.engine) as session:
            rows = list(session.exec(select(Outbox)))
        if all(r.status != "pending" for r in rows):
            return rows
        if time.monotonic() > deadline:
            raise AssertionError(f"still pending: {[(r.id, r.kind, r.event) for r in rows if r.status == 'pending']}")
        time.sleep(0.05)


def own_clan_only(text: str, own: str) -> None:
    assert f"Your secret clan: {own}." in text
    for clan in CLANS:
        if clan != own:
            assert f"secret clan: {clan}" not in text and f"clan {clan}" not in text


def _confirmed_game(ctx: Any, box: Any, timeout: float = 20.0) -> tuple[str, list[str]]:
    """A new game whose first player got their invitation and then accepted,
    which sends the others theirs."""
    game_id = games.start_game(ctx, games.parse_players(PLAYERS))
    assert [r.to for r in box.wait_for(1, timeout=timeout, kind="invite")] == [PLAYERS[0]["email"]]
    toks = seat_tokens(ctx, game_id)
    games.accept(ctx, toks[0])
    return game_id, toks


def test_turns_through_redis_and_a_worker(worker_app: Any, smtp: SmtpServer) -> None:
    ctx = worker_app.extensions["pbem"]
    box = smtp.collector
    game_id, toks = _confirmed_game(ctx, box)
    assert sorted(r.to for r in box.wait_for(3, kind="invite")) == sorted(EMAILS.values())
    for t in toks:
        games.accept(ctx, t)
    clans = {}
    for t in toks:
        view = games.seat_view(ctx, t)
        clans[view["you"]] = view["clan"]
    expected: dict[str, list[int]] = {name: [] for name in EMAILS}
    moves = 7
    for ply in range(moves + 1):
        t, view = to_move(ctx, toks)
        expected[view["you"]].append(ply)
        # The worker delivers this turn's mail: to the player to move, for this move.
        got = box.wait_for(ply + 1, kind="turn")
        latest = got[-1]
        assert latest.to == EMAILS[view["you"]]
        assert latest.message["Subject"].endswith(f"(move {ply + 1})")
        own_clan_only(parts(latest.message)["text"], clans[view["you"]])
        if ply < moves:
            games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
    rows = wait_all_done(ctx)
    drained(worker_app.extensions["celery"])  # anything extra has arrived by now
    for name, email in EMAILS.items():
        turns = box.messages(to=email, kind="turn")
        assert [int(m.message["Subject"].rsplit("move ", 1)[1].rstrip(")")) - 1 for m in turns] == expected[name]
        assert len(box.messages(to=email)) == 1 + len(expected[name])  # the invite and their turns
        for m in turns:
            own_clan_only(parts(m.message)["text"], clans[name])
    # Every row sent once, by its Message-ID.
    assert sorted(str(m.message["Message-ID"]) for m in box.messages()) == sorted(
        r.message_id for r in rows if r.status == "sent")
    assert {r.status for r in rows} == {"sent"}


def test_one_person_against_three_computers_on_the_worker(worker_app: Any, smtp: SmtpServer) -> None:
    """The computers' moves are the worker's tasks (``PBEM_BOT_DELAY`` 0 here):
    after each of Ann's moves the three play, and her next turn's mail comes."""
    ctx = worker_app.extensions["pbem"]
    box = smtp.collector
    ann = PLAYERS[0]
    game_id = games.start_game(ctx, games.parse_players(
        [ann, {"bot": "easy"}, {"bot": "medium"}, {"bot": "hard"}]), confirmed=True)
    token = next(t for t in seat_tokens(ctx, game_id) if games.seat_view(ctx, t)["you"] == ann["name"])
    turns = 0
    for _ in range(100):
        deadline = time.monotonic() + 30
        view = games.seat_view(ctx, token)
        while not (view["your_turn"] or view["finished"]):
            assert time.monotonic() < deadline, f"the computers stopped at move {view['ply']}"
            time.sleep(0.05)
            view = games.seat_view(ctx, token)
        if view["finished"]:
            break
        turns += 1
        latest = box.wait_for(turns, kind="turn")[-1]
        assert latest.to == ann["email"] and latest.message["Subject"].endswith(f"(move {view['ply'] + 1})")
        games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])
    assert view["finished"] and turns > 3
    box.wait_for(1, kind="game-over")
    rows = wait_all_done(ctx)
    drained(worker_app.extensions["celery"])  # anything extra has arrived by now
    # Only Ann was mailed: each of her turns once, and the end.
    assert {r.to for r in box.messages()} == {ann["email"]}
    assert len(box.messages(kind="turn")) == turns and len(box.messages(kind="game-over")) == 1
    assert {r.status for r in rows} == {"sent"}
    with session_scope(ctx.engine) as session:
        plies = [m.ply for m in session.exec(select(MoveRecord).order_by(col(MoveRecord.ply)))]
    assert plies == list(range(view["ply"]))  # every move once, none twice


def test_beat_tasks_run_on_the_worker(worker_app: Any, smtp: SmtpServer) -> None:
    """The clock's tasks as beat sends them: the deadline scan moves for an absent
    player (mail to all), the sweep hands a left-behind row to the worker."""
    ctx = worker_app.extensions["pbem"]
    celery = worker_app.extensions["celery"]
    now = frozen_clock(ctx)
    box = smtp.collector
    game_id, toks = new_game(ctx)
    box.wait_for(1, kind="turn")
    t, view = to_move(ctx, toks)
    now.advance(hours=view["turn_hours"], minutes=1)
    celery.send_task("pbem.clock.deadlines")
    deadlines = box.wait_for(3, kind="deadline")
    assert sorted(r.to for r in deadlines) == sorted(EMAILS.values())
    assert games.public_game(ctx, game_id)["ply"] == 1
    box.wait_for(2, kind="turn")
    # A row the relay never handed on (say, the broker blinked): the sweep finds it.
    ctx_relay = ctx.relay
    ctx.relay = lambda ids: None
    signin.request_login(ctx, PLAYERS[0]["email"])
    ctx.relay = ctx_relay
    ran(celery, "pbem.sweep_outbox")  # within its first minute the row is the relay's
    drained(celery)  # what the sweep handed on (nothing) has run
    assert box.messages(kind="login") == []
    now.advance(seconds=61)
    celery.send_task("pbem.sweep_outbox")
    (login,) = box.wait_for(1, kind="login")
    assert login.to == PLAYERS[0]["email"]
    rows = wait_all_done(ctx)
    assert len(box.messages()) == len([r for r in rows if r.status == "sent"])


def test_the_clock_goes_before_a_backlog_of_mail(database_url: str, smtp: SmtpServer, redis_url: str) -> None:
    """Beat's tasks have a queue of their own that a worker takes first: behind a
    backlog of mail the deadline scan would wait until it expired, and a reminder
    would come after its deadline."""
    from celery.signals import task_prerun

    from pbem.web import create_app

    broker = broker_db(redis_db(2))
    app = create_app(smtp.config(database_url, BROKER_URL=broker))
    celery = app.extensions["celery"]
    for n in range(30):  # rows that do not exist: each task finds nothing to send
        celery.send_task("pbem.deliver", args=[10_000_000 + n])
    celery.send_task("pbem.clock.deadlines")
    celery.send_task("pbem.sweep_outbox")
    client = redis.Redis.from_url(broker)
    assert (client.llen("celery"), client.llen("clock")) == (30, 2)
    order: list[str] = []

    def seen(sender: Any = None, **_: Any) -> None:
        order.append(sender.name)

    task_prerun.connect(seen, weak=False)
    try:
        with start_worker(celery, pool="solo", concurrency=1, perform_ping_check=False, loglevel="WARNING",
                          shutdown_timeout=10):
            end = time.monotonic() + 20
            while len(order) < 32 and time.monotonic() < end:
                time.sleep(0.05)
    finally:
        task_prerun.disconnect(seen)
        app.extensions["pbem"].engine.dispose()
        empty(broker)
    # Both first (taking turns between the queues would put a mail between them).
    assert len(order) == 32 and order[:2] == ["pbem.clock.deadlines", "pbem.sweep_outbox"], order[:3]


def test_what_the_sweep_hands_on_expires_by_the_next_sweep(database_url: str, smtp: SmtpServer) -> None:
    """A row still pending at the next sweep is handed on again then: the earlier
    copy expires instead of waiting in Redis (workers down, or a long backlog)."""
    import json

    from pbem.workers import tasks
    from pbem.web import create_app

    broker = broker_db(redis_db(2))
    app = create_app(smtp.config(database_url, BROKER_URL=broker, CLOCK_SECONDS=30.0))
    ctx = app.extensions["pbem"]
    now = frozen_clock(ctx)
    ctx.relay = lambda ids: None  # the relay's message is lost
    try:
        signin.request_login(ctx, PLAYERS[0]["email"])
        now.advance(minutes=2)
        with app.app_context():
            assert tasks.sweep_outbox() == 1
        (raw,) = redis.Redis.from_url(broker).lrange("celery", 0, -1)
        headers = json.loads(raw)["headers"]
        assert headers["task"] == "pbem.deliver" and headers["expires"] is not None
    finally:
        ctx.engine.dispose()
        empty(broker)


def test_a_channel_publishes_through_the_one_client_it_holds(database_url: str, smtp: SmtpServer) -> None:
    """kombu would build a Redis client for every message (pbem.workers.broker): a
    channel holds one over its pool, and makes another when kombu replaces the
    pool (after a fork); the task is published as before."""
    import json

    from pbem.web import create_app

    broker = broker_db(redis_db(2))
    app = create_app(smtp.config(database_url, BROKER_URL=broker))
    celery = app.extensions["celery"]
    try:
        with celery.connection_for_write() as conn:
            channel = conn.default_channel
            with channel.conn_or_acquire() as first, channel.conn_or_acquire() as again:
                assert first is again
            channel._after_fork()
            with channel.conn_or_acquire() as after_fork:
                assert after_fork is not first and after_fork.ping()
        with app.app_context():
            celery.tasks["pbem.deliver"].apply_async((1,), retry=False)
        (raw,) = redis.Redis.from_url(broker).lrange("celery", 0, -1)
        assert json.loads(raw)["headers"]["task"] == "pbem.deliver"
    finally:
        app.extensions["pbem"].engine.dispose()
        empty(broker)


def test_a_worker_given_its_queues_takes_the_clocks_first(caplog: pytest.LogCaptureFixture) -> None:
    """``-Q celery,clock`` keeps the order given: the clock's queue is moved first; a
    worker without it is told that beat's tasks need another."""
    from types import SimpleNamespace

    from pbem.workers.tasks import _clock_first, celery_init_app
    from flask import Flask

    flask_app = Flask("queues")
    flask_app.config.update(BROKER_URL="redis://127.0.0.1:1/0", BROKER_TIMEOUT=1, CLOCK_SECONDS=60.0)
    celery = celery_init_app(flask_app)
    worker = SimpleNamespace(app=celery)
    queues = celery.amqp.queues
    everything = ["clock", "celery", "inbound", "computer", "webhooks"]
    assert list(queues.consume_from) == everything  # no -Q: all of them, the clock's first, then the mail's
    _clock_first("w0@host", worker)
    assert list(queues.consume_from) == everything
    queues.select(["celery", "clock"])
    _clock_first("w1@host", worker)
    assert list(queues.consume_from) == ["clock", "celery"]
    queues.select(["webhooks", "celery", "computer", "clock"])
    _clock_first("w3@host", worker)
    assert list(queues.consume_from) == ["clock", "celery", "webhooks", "computer"]
    queues.select(["celery"])
    with caplog.at_level("WARNING", logger="pbem.workers.tasks"):
        _clock_first("w2@host", worker)
    assert list(queues.consume_from) == ["celery"]
    assert "w2@host does not consume the 'clock' queue" in caplog.text


def test_slow_work_is_published_to_queues_of_its_own(database_url: str, smtp: SmtpServer, redis_url: str) -> None:
    """Webhook posts, the computer's moves and received mail each go to their
    own queue, mail to the default one: a worker for mail and the clock never
    holds one of them (issue 27 §2)."""
    import json

    from pbem.workers import tasks
    from pbem.table import webhooks
    from pbem.inbound.store import store
    from pbem.web import create_app

    broker = broker_db(redis_db(2))
    app = create_app(smtp.config(database_url, BROKER_URL=broker, WEBHOOK_ALLOW="127.0.0.1", BOT_DELAY=0))
    ctx = app.extensions["pbem"]
    client = redis.Redis.from_url(broker)

    def queued() -> dict[str, list[str]]:
        found = {}
        for queue in ("celery", "clock", "inbound", "computer", "webhooks"):
            found[queue] = sorted(json.loads(raw)["headers"]["task"] for raw in client.lrange(queue, 0, -1))
        client.delete("celery", "inbound", "computer", "webhooks")
        return found

    try:
        _, toks = new_game(ctx)
        webhooks.add_webhook(ctx, toks[0], "json", "http://127.0.0.1:9/hook")
        queued()
        with session_scope(ctx.engine) as session:
            ids = [r.id for r in session.exec(select(Outbox)) if r.id is not None]
            hooks = [r.id for r in session.exec(select(Outbox).where(Outbox.kind == "webhook"))]
        play(ctx, toks, 1)
        after = queued()
        assert after["webhooks"] == ["pbem.deliver_webhook"] and "pbem.deliver" in after["celery"]
        assert "pbem.deliver_webhook" not in after["celery"] and after["inbound"] == after["computer"] == []
        with app.app_context():
            tasks.relay_inbound([store(ctx, "move@clans.example", "ann@example.org", b"Subject: x\r\n\r\nhi\r\n")
                                 or 0])
            tasks.computer_turn(1, 1)
            # The sweep splits its rows the same way.
            hour_ago = ctx.now() - timedelta(hours=1)
            with ctx.engine.begin() as conn:
                conn.execute(update(Outbox).values(status="pending", created_at=hour_ago, next_attempt_at=hour_ago))
            tasks.sweep_outbox()
        swept = queued()
        assert swept["inbound"] == ["pbem.inbound.handle"] and swept["computer"] == ["pbem.computer.move"]
        assert swept["webhooks"] == ["pbem.deliver_webhook"] * (len(hooks) + 1)
        assert swept["celery"].count("pbem.deliver") == len(ids) - len(hooks) + len(after["celery"])
    finally:
        ctx.engine.dispose()
        empty(broker)


def test_celery_a_worker_command(database_url: str, smtp: SmtpServer, redis_url: str, tmp_path: Path) -> None:
    """``celery -A worker worker`` as an operator runs it, configured only by
    PBEM_* variables, delivers the mail the web app decides."""
    from pbem.web import create_app

    broker = broker_db(redis_db(3))
    env = {**os.environ, "PBEM_DATABASE_URL": database_url, "PBEM_BROKER_URL": broker,
           "PBEM_SMTP_HOST": smtp.host, "PBEM_SMTP_PORT": str(smtp.port), "PBEM_MAILBOX": "0",
           "PBEM_SECRET_KEY": SECRET, "PBEM_BASE_URL": BASE_URL, "PYTHONPATH": str(ROOT)}
    celery_bin = Path(sys.executable).with_name("celery")
    log = open(tmp_path / "worker.log", "w")
    proc = subprocess.Popen([str(celery_bin), "-A", "worker", "worker", "--pool", "solo", "--loglevel", "INFO",
                             "--without-gossip", "--without-mingle", "--without-heartbeat"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    app = create_app(smtp.config(database_url, BROKER_URL=broker))
    try:
        ctx = app.extensions["pbem"]
        game_id, toks = _confirmed_game(ctx, smtp.collector, timeout=40)
        got = smtp.collector.wait_for(3, timeout=40, kind="invite")
        assert sorted(r.to for r in got) == sorted(EMAILS.values())
        assert seat_tokens(ctx, game_id)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        app.extensions["pbem"].engine.dispose()
        empty(broker)
    text = (tmp_path / "worker.log").read_text()
    assert "pbem.deliver" in text and "Traceback" not in text, text[-3000:]


def test_worker_module_exposes_the_apps(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``worker.celery`` and ``worker.app`` are the Celery app (what ``celery -A``
    looks for); beat's schedule names registered tasks."""
    import importlib

    monkeypatch.setenv("PBEM_DATABASE_URL", f"sqlite:///{tmp_path / 'w.sqlite3'}")
    monkeypatch.setenv("PBEM_BROKER_URL", "redis://127.0.0.1:1/0")
    monkeypatch.setenv("PBEM_SECRET_KEY", SECRET)
    monkeypatch.setenv("PBEM_CLOCK_SECONDS", "5")
    sys.modules.pop("worker", None)
    worker = importlib.import_module("worker")
    try:
        assert worker.celery is worker.app is worker.flask_app.extensions["celery"]
        schedule = worker.celery.conf.beat_schedule
        assert {e["task"] for e in schedule.values()} == {"pbem.sweep_outbox", "pbem.sweep_inbound",
                                                         "pbem.clock.deadlines", "pbem.clock.digests",
                                                         "pbem.clock.prune", "pbem.clock.daily",
                                                         "pbem.clock.quick_match"}
        for entry in schedule.values():
            assert entry["task"] in worker.celery.tasks
            assert worker.celery.amqp.router.route({}, entry["task"])["queue"].name == "clock"
        deliver = worker.celery.tasks["pbem.deliver"]
        assert deliver.acks_late and deliver.reject_on_worker_lost
        assert worker.celery.conf.broker_transport_options["socket_timeout"]
        for name in ("sweep-outbox", "sweep-inbound", "deadlines-and-reminders"):
            # PBEM_CLOCK_SECONDS; each run expires before the next is due
            assert schedule[name]["schedule"] == 5.0 and schedule[name]["options"]["expires"] == 4.5
        handle = worker.celery.tasks["pbem.inbound.handle"]
        assert handle.acks_late and handle.reject_on_worker_lost
    finally:
        worker.flask_app.extensions["pbem"].engine.dispose()
        sys.modules.pop("worker", None)
