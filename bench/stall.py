"""Stalling: the next player's turn-mail latency (a move's POST to the sink accepting the
other player's turn mail), p50 and p99, first with nothing else going on, then with four
MIME bombs and five slow webhooks in flight (issue 27, section 2).  Goal: no change
beyond noise.

The stack is the README's deployment: gunicorn, one Celery worker for the clock and the
mail (``-Q clock,celery``) and one for the work a stranger can make slow
(``-Q inbound,computer,webhooks``, five processes: five posts in flight at once), Redis, PostgreSQL, the recording SMTP sink.

- Slow webhooks: five json webhooks of the measured game, each to its own local receiver
  on 127.0.0.1 (allowed with ``PBEM_WEBHOOK_ALLOW``) that answers one byte a second;
  every move posts to all five.
- MIME bombs: before each move, four messages to the tag-less ``move@`` address (0.5 MB
  of part-field parameters; 500 and 2,000 nested multiparts; 1,000 parts) are stored as
  the receiver stores mail and handed to the workers, as if they had come in before the
  door checked them (the door itself refuses them with ``554``; ``tests/inbound/test_bombs.py``).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any, Callable

from . import gamedata
from .common import Figure, percentile
from .infra import BIN, HOST, Infra
from .load import Client
from .stack import Stack

#: Slow receivers and bombs in the hostile phase.
SLOW_WEBHOOKS = 5
BOMBS = 4


class SlowReceiver:
    """A local HTTP receiver that answers one byte a second (``HTTP/1.1 200 OK`` and so on,
    never finished within a post's deadline)."""

    ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"

    def __init__(self, every: float = 1.0) -> None:
        self.every = every
        self.connections = 0
        self.stopped = threading.Event()
        self.listener = socket.create_server((HOST, 0))
        self.listener.settimeout(0.2)
        self.port = int(self.listener.getsockname()[1])
        self.url = f"http://{HOST}:{self.port}/hook"
        threading.Thread(target=self._serve, daemon=True, name=f"slow-{self.port}").start()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                continue
            self.connections += 1
            threading.Thread(target=self._dribble, args=(conn,), daemon=True).start()

    def _dribble(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(5)
                conn.recv(65536)
                for byte in self.ANSWER:
                    if self.stopped.wait(self.every):
                        return
                    conn.sendall(bytes([byte]))
            except OSError:
                return  # the client gave up

    def stop(self) -> None:
        self.stopped.set()
        self.listener.close()


def bombs(to: str, n: int) -> list[bytes]:
    """Four kinds of hostile message to ``to`` (Message-IDs made unique by ``n``)."""
    head = f"From: mallory@bench.example\r\nTo: {to}\r\nMIME-Version: 1.0\r\n"
    params = "".join(f";\r\n p{i}=v{i}" for i in range(500_000 // 16)).encode()
    out = [(head + f"Message-ID: <params-{n}@bench.example>\r\nContent-Type: multipart/mixed; boundary=BB\r\n\r\n"
            "--BB\r\nContent-Type: text/plain").encode() + params + b"\r\n\r\n12-13\r\n--BB--\r\n"]
    for depth in (500, 2000):
        nest = [(head + f"Message-ID: <nest{depth}-{n}@bench.example>\r\n"
                 "Content-Type: multipart/mixed; boundary=b0\r\n\r\n").encode()]
        nest += [f"--b{i - 1}\r\nContent-Type: multipart/mixed; boundary=b{i}\r\n\r\n".encode() for i in range(1, depth)]
        nest.append(f"--b{depth - 1}\r\nContent-Type: text/plain\r\n\r\n12-13\r\n".encode())
        out.append(b"".join(nest))
    parts = b"".join(b"--BB\r\nContent-Type: text/plain\r\n\r\nhi\r\n" for _ in range(1000))
    out.append((head + f"Message-ID: <parts-{n}@bench.example>\r\n"
                "Content-Type: multipart/mixed; boundary=BB\r\n\r\n").encode() + parts + b"--BB--\r\n")
    return out


def run(infra: Infra, *, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    from celery import Celery

    from pbem.table import webhooks
    from pbem.inbound import addresses
    from pbem.inbound.store import store

    url = infra.database("stall")
    ctx = gamedata.context(url)
    ctx.config["WEBHOOK_ALLOW"] = HOST
    emails = {p["name"]: p["email"] for p in gamedata.PLAYERS[:2]}
    moves = 10 if quick else 30
    slow: list[SlowReceiver] = []
    toks: list[str] = []

    def fresh_game() -> None:
        """A new measured game (the last one ended), with the slow webhooks if there are."""
        toks[:] = gamedata.new_game(ctx, 2)[1]
        for receiver in slow:
            webhooks.add_webhook(ctx, toks[0], "json", receiver.url)

    fresh_game()

    stack = Stack(infra, url, settings={"PBEM_BOT_DELAY": "0"})
    stack.start_sink()
    web = stack.web("web", workers=2)
    stack.worker("mail", "-Q", "clock,celery", "-c", "1")
    # The same worker but for loopback webhooks being allowed (bench/stall_worker.py).
    stack.settings["PBEM_WEBHOOK_ALLOW"] = HOST
    stack._start("slow", "worker", [str(BIN / "celery"), "-A", "bench.stall_worker:celery", "worker", "-n", "slow@%h",
                                    "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
                                    "-Q", "inbound,computer,webhooks", "-c", str(SLOW_WEBHOOKS)])
    stack.wait_ready()
    producer = Celery("bench-stall", broker=infra.redis)
    producer.conf.broker_connection_timeout = 3
    to = addresses.address("move", None, addresses.domain(ctx.config))
    client = Client(web.base_url)

    def one_move() -> float:
        """A move by whoever is to move; seconds until the other's turn mail reached the sink."""
        view = json.loads(client.request("GET", "/api/v1/seat", None,
                                         {"Authorization": f"Bearer {toks[0]}"})[1])
        seat = view["next_seat"]
        mine = json.loads(client.request("GET", "/api/v1/seat", None,
                                         {"Authorization": f"Bearer {toks[seat]}"})[1])
        quiet = [m for m in mine["legal_moves"] if m not in mine["founding"]] or mine["legal_moves"]
        started = time.time()
        status, payload = client.request("POST", "/api/v1/seat/moves", {"move": quiet[0], "ply": mine["ply"]},
                                         {"Authorization": f"Bearer {toks[seat]}"})
        if status != 200:
            raise RuntimeError(f"move refused: {status} {payload[:200]!r}")
        after = json.loads(payload)
        if after["status"] != "active" or after["next_seat"] is None:
            fresh_game()
            return one_move()
        # Seats are dealt anew at the start: the player by name.
        nxt = emails[after["players"][after["next_seat"]]["name"]]
        end = started + 60
        while time.time() < end:
            got = [r.at for r in stack.received() if r.recipient == nxt and r.at >= started]
            if got:
                return min(got) - started
            time.sleep(0.01)
        raise RuntimeError(f"no turn mail to {nxt} within 60 s")

    for _ in range(2):  # warm-up: the workers' first tasks load everything
        one_move()
    quiet = [one_move() for _ in range(moves)]
    say(f"stall: quiet p50 {percentile(quiet, 50) * 1000:.0f} ms, p99 {percentile(quiet, 99) * 1000:.0f} ms")

    slow += [SlowReceiver() for _ in range(SLOW_WEBHOOKS)]
    bombs_sent = 0
    try:
        fresh_game()
        hostile = []
        for n in range(moves):
            for raw in bombs(to, n):
                row = store(ctx, to, "mallory@bench.example", raw)
                if row is not None:
                    producer.send_task("pbem.inbound.handle", args=(row,), queue="inbound")
                    bombs_sent += 1
            hostile.append(one_move())
        connections = sum(r.connections for r in slow)
    finally:
        for receiver in slow:
            receiver.stop()
    outcomes = _bomb_outcomes(url)
    say(f"stall: with {BOMBS} bombs and {SLOW_WEBHOOKS} slow webhooks in flight: p50 "
        f"{percentile(hostile, 50) * 1000:.0f} ms, p99 {percentile(hostile, 99) * 1000:.0f} ms; "
        f"{connections} slow posts made, bombs: {outcomes}")
    client.close()
    producer.close()
    ctx.engine.dispose()
    details = {"quiet_s": quiet, "hostile_s": hostile, "bombs_sent": bombs_sent, "bomb_outcomes": outcomes,
               "slow_connections": connections}
    note = (f"{moves} moves each; {SLOW_WEBHOOKS} webhooks answering 1 byte/s, {BOMBS} bombs per move "
            f"({bombs_sent} in all: {outcomes})")
    figures = [
        Figure("stall: turn mail p50, bombs+slow webhooks", percentile(hostile, 50) * 1000, "ms", 1.5, "max-ratio",
               percentile(quiet, 50) * 1000, "quiet p50", note=note),
        Figure("stall: turn mail p99, bombs+slow webhooks", percentile(hostile, 99) * 1000, "ms", 2.0, "max-ratio",
               percentile(quiet, 99) * 1000, "quiet p99"),
    ]
    return figures, {"stall": details}


def _bomb_outcomes(url: str) -> dict[str, int]:
    """What the workers made of the bombs (``pending``: not handled yet)."""
    import psycopg

    from .infra import dbapi_url

    end = time.monotonic() + 30
    with psycopg.connect(dbapi_url(url), autocommit=True) as conn:
        while True:
            rows = conn.execute("SELECT coalesce(outcome, status), count(*) FROM inbound GROUP BY 1").fetchall()
            found = {str(k): int(n) for k, n in rows}
            if "pending" not in found or time.monotonic() > end:
                return found
            time.sleep(0.2)


__all__ = ["run", "SlowReceiver", "bombs"]
