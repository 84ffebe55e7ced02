"""Web Push under open load: from a move to the push request reaching a local push
endpoint, beside the same move's turn mail reaching the SMTP sink.

The stack is the open-load section's (:mod:`bench.openloop`: gunicorn, a mail worker on
``clock,celery``, beat, PostgreSQL, Redis, the recording sink) and a worker for the
queue the pushes share with the webhooks (``webhooks``), which may post to 127.0.0.1
(``bench/stall_worker.py``: a public service refuses loopback push endpoints).  Every seat
of every game is subscribed, its endpoint a local HTTP server that answers ``201`` as a
push service does, and which decrypts each push with the subscription's key (one key
pair for all: the test's browser) to learn its game and ply.  The players move when
their *push* has come (the mail goes too, in the default mode "mail always").

1. Capacity: closed loop, 8 clients in 64 games.
2. Open loop at 50 % of it (Poisson arrivals): each move's ``200`` to its push at the
   endpoint, and to its turn mail at the sink (p50, p99)."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from . import gamedata
from .arrivals import Arrival, MailWatch, turn_ply
from .common import Figure, percentile
from .infra import BIN, HOST, Infra, dbapi_url
from .openloop import CAPACITY_GAMES, CLIENTS, Mover, closed_loop, open_loop, played_copies
from .stack import Stack, wait_sent

SHARE = 0.5


class Browser:
    """The subscribed browser's side: its P-256 key pair and auth secret, and the real
    decryptor (http-ece, RFC 8291 aes128gcm)."""

    def __init__(self) -> None:
        import os

        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec

        from pbem.core.vapid import b64url

        self.key = ec.generate_private_key(ec.SECP256R1())
        self.secret = os.urandom(16)
        self.p256dh = b64url(self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                                serialization.PublicFormat.UncompressedPoint))
        self.auth = b64url(self.secret)

    def read(self, body: bytes) -> dict[str, Any]:
        import http_ece

        return json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.secret,
                                           version="aes128gcm"))  # type: ignore[no-any-return]


class Endpoint:
    """A push service on 127.0.0.1: keeps each push's time and body, answers 201."""

    def __init__(self) -> None:
        self.got: list[tuple[float, str, bytes]] = []
        self.lock = threading.Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with endpoint.lock:
                    endpoint.got.append((time.time(), self.path, body))
                self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((HOST, 0), Handler)
        self.port = int(self.server.server_address[1])
        threading.Thread(target=self.server.serve_forever, daemon=True, name="push-endpoint").start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _subscribe_all(url: str, game_ids: list[int], port: int, p256dh: str, auth: str) -> dict[int, int]:
    """A subscription for every seat of the games; the seats' games by seat id."""
    import psycopg

    now = datetime.now(timezone.utc)
    with psycopg.connect(dbapi_url(url)) as conn:
        seats = conn.execute("SELECT id, game_id FROM seat WHERE game_id = ANY(%s)", (game_ids,)).fetchall()
        with conn.cursor().copy("COPY push_subscription (seat_id, endpoint, p256dh, auth, created_at) FROM STDIN") as cp:
            for seat_id, _game in seats:
                cp.write_row((seat_id, f"http://{HOST}:{port}/push/{seat_id}", p256dh, auth, now))
    return {int(s): int(g) for s, g in seats}


def run(infra: Infra, *, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    from pbem.core import vapid

    seconds = 5.0 if quick else 20.0
    warmup = 1.0 if quick else 3.0
    count = 300 if quick else 1500
    played = played_copies(infra, "push", count)
    url, copies, closed, table, neighbours = played.url, played.copies, played.closed, played.table, played.neighbours

    endpoint = Endpoint()
    browser = Browser()
    game_of = _subscribe_all(url, [gid for gid, _ in copies], endpoint.port, browser.p256dh, browser.auth)
    mail_at: dict[tuple[int, int], float] = {}
    push_at: dict[tuple[int, int], float] = {}
    seen = [0]

    def read_pushes() -> None:
        """Each new push: decrypted, and the game it is for made ready (as a player moves
        once their phone said so)."""
        with endpoint.lock:
            new = endpoint.got[seen[0]:]
            seen[0] += len(new)
        for at, path, body in new:
            said = browser.read(body)
            gid = game_of[int(path.rsplit("/", 1)[1])]
            push_at.setdefault((gid, int(said["ply"])), at)
            arrival = Arrival(at, "", path, gid, "turn", f"ply:{said['ply']}")
            closed.on_arrival(arrival)
            table.on_arrival(arrival)

    stop = threading.Event()

    def pushes() -> None:
        while not stop.is_set():
            read_pushes()
            time.sleep(0.005)

    def on_mail(a: Arrival) -> None:
        p = turn_ply(a)
        if p is not None and a.game_id is not None:
            mail_at.setdefault((a.game_id, p), a.at)

    stack = Stack(infra, url, settings={"PBEM_VAPID_PRIVATE_KEY": vapid.raw_private(vapid.new_key())})
    stack.start_sink()
    web = stack.web("web")
    stack.worker("mail", "-Q", "clock,celery")
    stack.settings["PBEM_WEBHOOK_ALLOW"] = HOST
    stack._start("push", "worker", [str(BIN / "celery"), "-A", "bench.stall_worker:celery", "worker", "-n",
                                    "push@%h", "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
                                    "-Q", "inbound,computer,webhooks", "-c", "4"])
    stack.beat("beat")
    stack.wait_ready()
    watch = MailWatch(url, stack.record, on_mail).start()
    reader = threading.Thread(target=pushes, daemon=True, name="push-reader")
    reader.start()
    mover = Mover(web.base_url, neighbours, seed=31)
    try:
        capacity = closed_loop(mover, closed, clients=CLIENTS, seconds=seconds, warmup=warmup)
        wait_sent(url, 60)
        rate = SHARE * capacity.throughput
        phase = open_loop(mover, table, rate, seconds, warmup, seed=50)
        end = time.monotonic() + 30
        while time.monotonic() < end and any(k not in push_at or k not in mail_at for k in phase.moved):
            time.sleep(0.1)
    finally:
        stop.set()
        reader.join(5)
        watch.stop()
        endpoint.stop()
    if capacity.errors or phase.errors:
        raise RuntimeError(f"moves failed: {(capacity.errors + phase.errors)[:3]}")
    to_push = [push_at[k] - t for k, t in phase.moved.items() if k in push_at]
    to_mail = [mail_at[k] - t for k, t in phase.moved.items() if k in mail_at]
    missing = sum(1 for k in phase.moved if k not in push_at)
    say(f"push: capacity {capacity.throughput:.1f} moves/s; at {SHARE:.0%} ({rate:.1f} moves/s, open loop, "
        f"{len(phase.latencies)} moves): move to push p50 {percentile(to_push, 50):.3f} s, p99 "
        f"{percentile(to_push, 99):.3f} s; move to mail p50 {percentile(to_mail, 50):.3f} s, p99 "
        f"{percentile(to_mail, 99):.3f} s; {missing} pushes missing")
    note = (f"{rate:.1f} moves/s (50% of {capacity.throughput:.1f}), Poisson arrivals, every seat subscribed; "
            f"the same moves' turn mail: p50 {percentile(to_mail, 50):.2f} s, p99 {percentile(to_mail, 99):.2f} s")
    figures = [Figure("move to push at 50%: p50", percentile(to_push, 50), "s", 1.0, "max-value", note=note),
               Figure("move to push at 50%: p99", percentile(to_push, 99), "s", 3.0, "max-value",
                      note="the move's 200 to the encrypted push at a local endpoint (aes128gcm, VAPID)")]
    if missing:
        figures.append(Figure("move to push: pushes missing", missing, "pushes", 1, "max-value"))
    summary: dict[str, Any] = {"capacity": round(capacity.throughput, 1), "rate": round(rate, 1),
                               "moves": len(phase.latencies), "missing": missing,
                               "push_p50_s": round(percentile(to_push, 50), 3),
                               "push_p99_s": round(percentile(to_push, 99), 3),
                               "mail_p50_s": round(percentile(to_mail, 50), 3),
                               "mail_p99_s": round(percentile(to_mail, 99), 3)}
    return figures, {"push": summary}


__all__ = ["run", "Endpoint", "Browser"]
