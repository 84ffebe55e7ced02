"""A closed-loop HTTP load generator: N client threads, each on its own keep-alive
``http.client`` connection, each sending its next request as soon as the last one is
answered.  Latency is measured per request (request sent to body read); throughput counts
the requests that start after the warm-up and end before the stop."""

from __future__ import annotations

import http.client
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence
from urllib.parse import urlsplit

import orjson

from .common import percentile


class RequestFailed(Exception):
    pass


class Client:
    """One connection.  Subclasses implement :meth:`step` (one request); returning
    ``False`` means the client has no work left."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        # orjson, not json: the clients share two CPUs with the servers they
        # measure, and json took about three times as long to read a move's
        # answer (a view of 4-6 KB), time the service's moves per second paid.
        data = None if body is None else orjson.dumps(body)
        hdrs = {"Content-Type": "application/json"} if data is not None else {}
        hdrs.update(headers or {})
        try:
            self.conn.request(method, path, body=data, headers=hdrs)
            response = self.conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()  # reconnects on the next request
            raise
        if response.will_close:
            self.conn.close()
        return response.status, payload

    def step(self) -> bool:
        raise NotImplementedError

    def close(self) -> None:
        self.conn.close()


@dataclass
class LoadResult:
    clients: int
    seconds: float
    latencies: list[float]  # seconds, of the requests inside the window
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    exhausted: int = 0  # clients that ran out of work before the stop
    cpu_ms: float | None = None  # the server's CPU per request (warm-up included), when measured

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0

    def p(self, q: float) -> float:
        """Latency percentile in milliseconds."""
        return percentile(self.latencies, q) * 1000 if self.latencies else float("nan")

    def summary(self) -> dict[str, Any]:
        return {"clients": self.clients, "seconds": round(self.seconds, 3), "requests": len(self.latencies),
                "throughput": round(self.throughput, 1), "p50_ms": round(self.p(50), 2),
                "p90_ms": round(self.p(90), 2), "p99_ms": round(self.p(99), 2), "errors": self.errors,
                "error_samples": self.error_samples[:5], "exhausted_clients": self.exhausted,
                "server_cpu_ms_per_request": None if self.cpu_ms is None else round(self.cpu_ms, 3)}


def closed_loop(clients: Sequence[Client], seconds: float, warmup: float = 1.0,
                server: Sequence[int] = ()) -> LoadResult:
    """Run every client in its own thread for ``warmup + seconds``; with ``server`` (pids),
    also the CPU those processes spent per request."""
    from .infra import cpu_seconds

    start_gate = threading.Barrier(len(clients) + 1)
    lock = threading.Lock()
    samples: list[tuple[float, float]] = []
    errors: list[str] = []
    exhausted = [0]
    window: list[float] = []

    def run(client: Client) -> None:
        mine: list[tuple[float, float]] = []
        start_gate.wait()
        stop = window[1]
        try:
            while True:
                t0 = time.perf_counter()
                if t0 >= stop:
                    break
                try:
                    more = client.step()
                except Exception as e:  # noqa: BLE001 - counted and reported
                    with lock:
                        errors.append(f"{e.__class__.__name__}: {e}"[:300])
                    continue
                if not more:
                    with lock:
                        exhausted[0] += 1
                    break
                mine.append((t0, time.perf_counter()))
        finally:
            with lock:
                samples.extend(mine)

    threads = [threading.Thread(target=run, args=(c,), daemon=True) for c in clients]
    cpu_before = cpu_seconds(server)
    for t in threads:
        t.start()
    now = time.perf_counter()
    window.extend([now + warmup, now + warmup + seconds])
    start_gate.wait()
    for t in threads:
        t.join(seconds + warmup + 60)
    cpu = cpu_seconds(server) - cpu_before
    for c in clients:
        c.close()
    begin, end = window
    inside = [t1 - t0 for t0, t1 in samples if t0 >= begin and t1 <= end]
    return LoadResult(len(clients), end - begin, inside, len(errors), errors[:20], exhausted[0],
                      cpu * 1000 / len(samples) if server and samples else None)


# -- the clients of the move benchmark ---------------------------------------------


def legal_moves(huts: Mapping[str, Mapping[str, int]], neighbours: Mapping[int, Sequence[int]]) -> list[str]:
    """The legal moves of a position as a view shows it (``huts``: territory -> clan -> n):
    any occupied territory onto an adjacent occupied one, 7 or more huts only onto at
    least as many.  The API lists legal moves only for the seat to move, and its answer to
    a move is the mover's view, so the client that plays both seats works them out.

    >>> legal_moves({"1": {"red": 1}, "2": {"blue": 7}, "3": {"red": 2}}, {1: [2], 2: [1, 3], 3: [2]})
    ['1-2', '3-2']
    """
    sizes = {int(t): sum(h.values()) for t, h in huts.items() if h}
    out = []
    for s in sorted(sizes):
        n = sizes[s]
        for t in neighbours[s]:
            m = sizes.get(t)
            if m and (n < 7 or m >= n):
                out.append(f"{s}-{t}")
    return out


@dataclass
class GameRef:
    """A game a client plays, both seats: its id, tokens and the position it starts from."""

    game_id: int
    tokens: list[str]
    huts: dict[str, dict[str, int]]
    ply: int
    next_seat: int


class MoveClient(Client):
    """Plays its own games through ``POST /api/v1/seat/moves``, a random legal move each
    time, the token of whichever seat is to move; on to its next game when one ends."""

    def __init__(self, base_url: str, games: Sequence[GameRef], neighbours: Mapping[int, Sequence[int]],
                 seed: int) -> None:
        super().__init__(base_url)
        self.games = list(games)
        self.neighbours = neighbours
        self.rng = random.Random(seed)
        self.moves = 0
        self.games_finished = 0

    def step(self) -> bool:
        if not self.games:
            return False
        g = self.games[0]
        move = self.rng.choice(legal_moves(g.huts, self.neighbours))
        status, payload = self.request("POST", "/api/v1/seat/moves", {"move": move, "ply": g.ply},
                                       {"Authorization": f"Bearer {g.tokens[g.next_seat]}"})
        if status != 200:
            raise RequestFailed(f"{status} {payload[:200]!r} (game {g.game_id}, {move} at ply {g.ply})")
        view = orjson.loads(payload)
        self.moves += 1
        if view["finished"] or view["next_seat"] is None:
            self.games.pop(0)
            self.games_finished += 1
        else:
            g.huts, g.ply, g.next_seat = view["huts"], view["ply"], view["next_seat"]
        return True


class FloorClient(Client):
    """The floor: one small POST that inserts one row."""

    def __init__(self, base_url: str, seed: int) -> None:
        super().__init__(base_url)
        self.n = seed * 1_000_000

    def step(self) -> bool:
        self.n += 1
        status, payload = self.request("POST", "/insert", {"n": self.n, "note": "floor"})
        if status != 200:
            raise RequestFailed(f"{status} {payload[:200]!r}")
        orjson.loads(payload)
        return True
