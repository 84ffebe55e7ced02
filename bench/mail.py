"""2. Turn mail: pending turn notices rendered (view, text, HTML, board PNG) and delivered
per second by Celery workers running pbem's ``pbem.deliver`` task, over SMTP to a local
aiosmtpd sink in its own process.  The floor sends a pre-built message of the same size
with smtplib to the same sink, one connection per message (as pbem's SMTP transport did
before a worker kept its connection open between messages)."""

from __future__ import annotations

import os
import random
import smtplib
import sys
import time
from typing import Any, Callable

from . import gamedata
from .common import Figure
from .infra import BIN, HOST, Infra, children, cpu_seconds, dbapi_url, free_port, service_env, wait_port
from .render_png import measure as measure_png


#: worker.py's Celery app (``-A worker`` alone would find its Flask ``app`` first).
WORKER_APP = "worker:celery"


def _outbox_ids(url: str, game_ids: list[int]) -> list[int]:
    import psycopg

    with psycopg.connect(dbapi_url(url)) as conn:
        rows = conn.execute("SELECT id FROM outbox WHERE status = 'pending' AND kind = 'turn' "
                            "AND game_id = ANY(%s) ORDER BY id", [game_ids]).fetchall()
        return [r[0] for r in rows]


def _statuses(conn: Any, ids: list[int]) -> dict[str, int]:
    rows = conn.execute("SELECT status, count(*) FROM outbox WHERE id = ANY(%s) GROUP BY status", [ids]).fetchall()
    return {s: n for s, n in rows}


def _wait_sent(url: str, ids: list[int], timeout: float) -> tuple[float, dict[str, int]]:
    """Seconds until no row of ``ids`` is pending (or the timeout), and their statuses."""
    import psycopg

    start = time.perf_counter()
    with psycopg.connect(dbapi_url(url), autocommit=True) as conn:
        while True:
            counts = _statuses(conn, ids)
            if not counts.get("pending") or time.perf_counter() - start > timeout:
                return time.perf_counter() - start, counts
            time.sleep(0.02)


def run(infra: Infra, *, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    from celery import Celery

    from pbem.mail.compose import compose
    from pbem.core.db import session_scope
    from pbem.core.models import Outbox

    url = infra.database("mail")
    ctx = gamedata.context(url)
    rng = random.Random(7)
    templates = []
    for plies in (10, 18, 26, 34):
        game_id, toks = gamedata.new_game(ctx, 3)
        gamedata.play(ctx, toks, plies, rng)
        templates.append(game_id)
    per_worker = int(os.environ.get("BENCH_MAIL_MESSAGES", 40 if quick else 120))
    batches = {1: per_worker, 2: 2 * per_worker}
    rounds = 1 if quick else 2
    warm = 4
    copies = gamedata.clone_games(url, templates, 1 + rounds * (warm * 3 + sum(batches.values())),
                                  pending_turn_mail=True)
    ids = _outbox_ids(url, [gid for gid, _ in copies])

    # The floor's message: a real turn notice of one of these games, built once.
    with session_scope(ctx.engine) as session:
        row = session.get(Outbox, ids[0])
        assert row is not None
        message = compose(ctx, session, row)
    assert message is not None
    # As the SMTP transport sends it.
    raw = message.wire()
    sender, recipient = str(message.get("From")), str(message.get("To"))
    ids = ids[1:]
    ctx.engine.dispose()
    png = measure_png(20 if quick else 50)
    say(f"mail: board PNG median {png['median_ms']:.1f} ms (cold {png['cold_ms']:.0f} ms), "
        f"{png['png_bytes'] / 1024:.0f} KiB; turn mail {len(raw) / 1024:.0f} KiB")

    port = free_port()
    sink = infra.spawn("smtp-sink", [sys.executable, "-m", "bench.smtp_sink", str(port)])
    wait_port(HOST, port, sink, 15)

    floor_seconds = 3.0 if quick else 5.0
    sent = 0
    start = time.perf_counter()
    while time.perf_counter() - start < floor_seconds:
        with smtplib.SMTP(HOST, port, timeout=20) as smtp:
            smtp.sendmail(sender, [recipient], raw)
        sent += 1
    floor_rate = sent / (time.perf_counter() - start)
    say(f"mail: floor (smtplib, pre-built {len(raw) / 1024:.0f} KiB message): {floor_rate:.0f} msg/s")

    queue = f"pbem-bench-{infra.run_id}"
    infra.redis_keys += [queue, f"_kombu.binding.{queue}", "unacked", "unacked_index"]
    producer = Celery("bench-producer", broker=infra.redis)
    producer.conf.broker_connection_timeout = 3
    env = service_env(url, infra.redis, PBEM_SMTP_HOST=HOST, PBEM_SMTP_PORT=str(port))
    app = WORKER_APP
    rates: dict[int, float] = {1: 0.0, 2: 0.0}
    raw_results: dict[str, Any] = {"floor_msgs_per_s": floor_rate, "message_bytes": len(raw), "png": png,
                                   "celery_app": app, "runs": []}
    # One worker and two take turns, so that a change in the machine's load hits both.
    for n in range(rounds):
        for concurrency, count in batches.items():
            warm_ids, ids = ids[: warm * concurrency], ids[warm * concurrency:]
            batch, ids = ids[:count], ids[count:]
            label = f"celery-c{concurrency}-{n}"
            proc = infra.spawn(label, [
                str(BIN / "celery"), "-A", app, "worker", "-c", str(concurrency), "-P", "prefork", "-Q", queue,
                "-n", f"bench{concurrency}-{n}-{infra.run_id}@%h", "--without-gossip", "--without-mingle",
                "--without-heartbeat", "--loglevel", os.environ.get("BENCH_CELERY_LOGLEVEL", "WARNING")], env)
            for i in warm_ids:
                producer.send_task("pbem.deliver", args=(i,), queue=queue)
            took, counts = _wait_sent(url, warm_ids, 60)
            if counts.get("pending") or proc.poll() is not None:
                raise RuntimeError(f"the Celery worker did not deliver the warm-up mail: {counts}; "
                                   f"see bench/data/logs/{label}.log")
            pool = children(proc.pid)
            spies = [infra.profile(f"mail-c{concurrency}-pool{w}", pid, count / max(floor_rate / 10, 1.0))
                     for w, pid in enumerate(pool)] if n == 0 else []
            # CPU per message of the pool, of Celery's main process and of the sink.
            cpu_before = [cpu_seconds(pool), cpu_seconds([proc.pid]), cpu_seconds([sink.pid])]
            for i in batch:
                producer.send_task("pbem.deliver", args=(i,), queue=queue)
            took, counts = _wait_sent(url, batch, 30 if quick else 90)
            cpu = [(after - before) * 1000 / max(len(batch), 1) for before, after in
                   zip(cpu_before, [cpu_seconds(pool), cpu_seconds([proc.pid]), cpu_seconds([sink.pid])])]
            for spy in spies:
                if spy is not None:
                    spy.wait(60)
            done = counts.get("sent", 0)
            rate = done / took
            rates[concurrency] = max(rates[concurrency], rate)
            infra.stop(proc)
            say(f"mail: {concurrency} worker process(es): {done}/{count} sent in {took:.1f} s = {rate:.1f} msg/s "
                f"{counts}; CPU per message: pool {cpu[0]:.1f} ms, Celery main {cpu[1]:.1f} ms, sink {cpu[2]:.1f} ms")
            raw_results["runs"].append({"processes": concurrency, "sent": done, "of": count, "seconds": took,
                                        "statuses": counts, "cpu_ms_per_message": {
                                            "pool": round(cpu[0], 2), "celery_main": round(cpu[1], 2),
                                            "sink": round(cpu[2], 2)}})
    infra.stop(sink)
    producer.close()
    figures = [
        Figure("mail: 1 worker, turn notices", rates[1], "msg/s", 0.25, "min-ratio", floor_rate,
               "smtplib pre-built", note=f"celery -A {app} worker -c 1; best of {rounds}",
               extra=raw_results),
        Figure("mail: board PNG median", png["median_ms"], "ms", 60.0, "max-value",
               note=f"{png['runs']} renders, p90 {png['p90_ms']:.1f} ms, cold {png['cold_ms']:.0f} ms"),
        Figure("mail: 2 workers vs 1", rates[2], "msg/s", 1.7, "min-ratio", rates[1], "1 worker",
               note=f"celery worker -c 2 (two pool processes); best of {rounds}"),
    ]
    return figures, {"mail": raw_results}


__all__ = ["run", "WORKER_APP"]
