"""Open-loop load on the production stack: moves arrive at fixed rates, whatever the
service's answers, and each next player's turn mail is timed to the SMTP sink.

The stack is one web host (gunicorn, sync workers), one Celery worker and one beat with
their default settings, PostgreSQL, Redis and the recording sink (:mod:`bench.stack`).
Its games are copies of real two-player games, each played by players who move only once
their turn mail has come, as players by mail do.

1. **Capacity**: closed loop, 8 clients moving in whichever of 64 games is ready: the moves
   a second the stack sustains *with* its mail.  A game is ready again only when the next
   player's mail has come, so at most 64 moves wait for their mail: if the worker falls
   behind the web, the loop slows to the worker's pace instead of piling up mail.
2. **Open loop** at 25 %, 50 % and 75 % of that capacity: arrivals are a Poisson process at
   the rate; each arrival takes a ready game and its move is sent from a pool large enough
   never to wait for a free thread.  A move's latency runs from its *scheduled* time to its
   answer, so a stalled server is not hidden by a client that waited for it (coordinated
   omission).  An arrival that finds no ready game is counted, not delayed.
3. **Move to mail**: for every move of a phase, from its ``200`` to the moment the sink
   accepted the next player's turn mail.

Between phases the outbox drains, so one rate's backlog does not land on the next."""

from __future__ import annotations

import json
import random
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

from . import gamedata
from .arrivals import Arrival, MailWatch, turn_ply
from .common import Figure, percentile
from .infra import Infra
from .load import Client, legal_moves
from .stack import Stack, wait_sent

RATES = (0.25, 0.50, 0.75)
#: The capacity loop's clients and games in play (see above).
CLIENTS = 8
CAPACITY_GAMES = 64


@dataclass
class Game:
    game_id: int
    tokens: list[str]
    huts: dict[str, dict[str, int]]
    ply: int
    next_seat: int
    mail_ply: int  # the latest ply whose turn mail has come
    finished: bool = False
    busy: bool = False


@dataclass
class Phase:
    """What one phase measured: latencies in seconds of the moves scheduled inside its
    window, the time of each move's ``200`` by (game, ply after it), and the rest."""

    name: str
    rate: float | None
    seconds: float
    latencies: list[float] = field(default_factory=list)
    moved: dict[tuple[int, int], float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    starved: int = 0  # arrivals that found no game ready
    to_mail: list[float] = field(default_factory=list)
    mail_missing: int = 0

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.seconds

    def ms(self, p: float) -> float:
        return percentile(self.latencies, p) * 1000 if self.latencies else float("nan")

    def mail_s(self, p: float) -> float:
        return percentile(self.to_mail, p) if self.to_mail else float("nan")

    def summary(self) -> dict[str, Any]:
        return {"rate": None if self.rate is None else round(self.rate, 1), "seconds": self.seconds,
                "moves": len(self.latencies), "throughput": round(self.throughput, 1),
                "p50_ms": round(self.ms(50), 2), "p90_ms": round(self.ms(90), 2), "p99_ms": round(self.ms(99), 2),
                "max_ms": round(max(self.latencies) * 1000, 1) if self.latencies else None,
                "starved": self.starved, "errors": len(self.errors), "error_samples": self.errors[:3],
                "move_to_mail_p50_s": round(self.mail_s(50), 3), "move_to_mail_p99_s": round(self.mail_s(99), 3),
                "move_to_mail_max_s": round(max(self.to_mail), 3) if self.to_mail else None,
                "mail_missing": self.mail_missing}


class Table:
    """The games and which are ready: a game is ready when the turn mail of its current
    ply has come and no move of it is in flight."""

    def __init__(self, games: list[Game]) -> None:
        self.games = {g.game_id: g for g in games}
        self.ready: deque[Game] = deque(g for g in games if g.mail_ply >= g.ply)
        self.lock = threading.Lock()
        self.arrived: dict[tuple[int, int], float] = {}  # (game, ply) -> first turn mail's time
        self.available = threading.Condition(self.lock)

    def on_arrival(self, a: Arrival) -> None:
        p = turn_ply(a)
        game = self.games.get(a.game_id) if a.game_id is not None else None
        if p is None or game is None:
            return
        with self.lock:
            self.arrived.setdefault((game.game_id, p), a.at)
            if p > game.mail_ply:
                game.mail_ply = p
            if not game.busy and not game.finished and game.mail_ply >= game.ply and game not in self.ready:
                self.ready.append(game)
                self.available.notify()

    def take(self, wait: float = 0.0) -> Game | None:
        with self.lock:
            if not self.ready and wait:
                self.available.wait(wait)
            if not self.ready:
                return None
            game = self.ready.popleft()
            game.busy = True
            return game

    def moved(self, game: Game, view: dict[str, Any] | None) -> None:
        with self.lock:
            game.busy = False
            if view is not None:
                game.huts, game.ply = view["huts"], view["ply"]
                game.finished = bool(view["finished"]) or view["next_seat"] is None
                if not game.finished:
                    game.next_seat = view["next_seat"]
            if not game.finished and game.mail_ply >= game.ply:
                self.ready.append(game)
                self.available.notify()


class Mover:
    """Sends one move of a game; one keep-alive-less connection per thread (gunicorn's
    sync workers close after each answer)."""

    def __init__(self, base_url: str, neighbours: dict[int, list[int]], seed: int) -> None:
        self.base_url, self.neighbours = base_url, neighbours
        self.local = threading.local()
        self.rng = random.Random(seed)
        self.rng_lock = threading.Lock()

    def move(self, table: Table, game: Game) -> tuple[float, dict[str, Any] | None, str | None]:
        """Returns the time of the answer, the mover's view (on ``200``) and an error."""
        client = getattr(self.local, "client", None)
        if client is None:
            client = self.local.client = Client(self.base_url)
        with self.rng_lock:
            move = self.rng.choice(legal_moves(game.huts, self.neighbours))
        try:
            status, payload = client.request("POST", "/api/v1/seat/moves", {"move": move, "ply": game.ply},
                                             {"Authorization": f"Bearer {game.tokens[game.next_seat]}"})
        except Exception as e:  # noqa: BLE001 - counted
            table.moved(game, None)
            return time.time(), None, f"{e.__class__.__name__}: {e}"
        done = time.time()
        if status != 200:
            table.moved(game, None)
            return done, None, f"{status} {payload[:200]!r} (game {game.game_id}, {move} at ply {game.ply})"
        view = json.loads(payload)
        table.moved(game, view)
        return done, view, None


def closed_loop(mover: Mover, table: Table, clients: int, seconds: float, warmup: float) -> Phase:
    phase = Phase("capacity", None, seconds)
    lock = threading.Lock()
    start = time.perf_counter()
    begin, end = start + warmup, start + warmup + seconds

    def run() -> None:
        while (t0 := time.perf_counter()) < end:
            game = table.take(wait=0.5)
            if game is None:
                continue
            wall0 = time.time()
            done, view, error = mover.move(table, game)
            t1 = time.perf_counter()
            with lock:
                if error:
                    phase.errors.append(error)
                elif t0 >= begin and t1 <= end:
                    phase.latencies.append(done - wall0)
                    if view is not None and not view["finished"]:
                        phase.moved[(game.game_id, view["ply"])] = done

    threads = [threading.Thread(target=run, daemon=True) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + warmup + 60)
    return phase


def open_loop(mover: Mover, table: Table, rate: float, seconds: float, warmup: float, seed: int,
              pool: int = 64) -> Phase:
    """Poisson arrivals at ``rate`` a second for ``warmup + seconds``; only the arrivals
    scheduled after the warm-up count."""
    phase = Phase(f"{rate:.1f}/s", rate, seconds)
    rng = random.Random(seed)
    lock = threading.Lock()
    start = time.time() + 0.1
    begin, end = start + warmup, start + warmup + seconds

    def send(game: Game, scheduled: float) -> None:
        done, view, error = mover.move(table, game)
        with lock:
            if error:
                phase.errors.append(error)
            elif scheduled >= begin:
                phase.latencies.append(done - scheduled)
                if view is not None and not view["finished"]:
                    phase.moved[(game.game_id, view["ply"])] = done

    with ThreadPoolExecutor(max_workers=pool) as executor:
        at = start
        while True:
            at += rng.expovariate(rate)
            if at >= end:
                break
            pause = at - time.time()
            if pause > 0:
                time.sleep(pause)
            game = table.take()
            if game is None:
                if at >= begin:
                    phase.starved += 1
                continue
            executor.submit(send, game, at)
    return phase


def mail_times(phase: Phase, table: Table, wait: float) -> None:
    """Each move's time to the next player's turn mail (waiting up to ``wait`` seconds
    for the last ones)."""
    end = time.monotonic() + wait
    while time.monotonic() < end:
        with table.lock:
            missing = [k for k in phase.moved if k not in table.arrived]
        if not missing:
            break
        time.sleep(0.1)
    with table.lock:
        phase.to_mail = [table.arrived[k] - t for k, t in phase.moved.items() if k in table.arrived]
        phase.mail_missing = sum(1 for k in phase.moved if k not in table.arrived)


def handoff_ms(env: dict[str, str], n: int = 300) -> list[float]:
    """What the request pays for handing a new outbox row to Celery: ``ctx.relay`` (one
    publish to Redis) in a web app built as gunicorn builds it, timed ``n`` times.  The
    rows do not exist: the worker finds nothing to send."""
    from pbem.core.config import load_config
    from pbem.web import create_app

    app = create_app(load_config(environ=env))
    ctx = app.extensions["pbem"]
    out = []
    with app.app_context():
        for k in range(n):
            t0 = time.perf_counter()
            ctx.relay([10_000_000 + k])
            out.append((time.perf_counter() - t0) * 1000)
    ctx.engine.dispose()
    return out


@dataclass
class Played:
    """Copies of real two-player games ready to be played: the first ``CAPACITY_GAMES`` for
    the capacity loop, the rest for the open-load phases."""

    url: str
    copies: list[tuple[int, list[str]]]
    closed: Table
    table: Table
    neighbours: dict[int, list[int]]


def played_copies(infra: Infra, label: str, count: int) -> Played:
    """``count`` copies of 8 new two-player games in a database of their own (the
    templates retired), each ready to move: its first turn mail counts as come."""
    from pbem.rules import classic_board

    url = infra.database(label)
    templates = gamedata.templates(gamedata.context(url))
    copies = gamedata.clone_games(url, [t for t, _ in templates], count, history=True)
    gamedata.retire(url, [t for t, _ in templates])
    views = dict(templates)
    everyone = []
    for k, (gid, toks) in enumerate(copies):
        v = views[templates[k % len(templates)][0]]
        everyone.append(Game(gid, toks, v["huts"], v["ply"], v["next_seat"], v["ply"]))
    board = classic_board()
    return Played(url, copies, Table(everyone[:CAPACITY_GAMES]), Table(everyone[CAPACITY_GAMES:]),
                  {tid: sorted(board.neighbours(tid)) for tid in board.ids})


def run(infra: Infra, *, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    seconds = 5.0 if quick else 20.0
    warmup = 1.0 if quick else 3.0
    games = 300 if quick else 1500
    played = played_copies(infra, "openload", games)
    url, closed, table, neighbours = played.url, played.closed, played.table, played.neighbours

    stack = Stack(infra, url)
    stack.start_sink()
    web = stack.web("web")
    stack.worker("worker")
    stack.beat("beat")
    stack.wait_ready()
    watch = MailWatch(url, stack.record, lambda a: (closed.on_arrival(a), table.on_arrival(a))).start()
    mover = Mover(web.base_url, neighbours, seed=16)
    phases: list[Phase] = []
    try:
        capacity = closed_loop(mover, closed, clients=CLIENTS, seconds=seconds, warmup=warmup)
        mail_times(capacity, closed, 30)
        phases.append(capacity)
        say(f"openload: capacity (closed loop, {CLIENTS} clients in {CAPACITY_GAMES} games, moving when the "
            "mail has come): "
            f"{capacity.throughput:.1f} moves/s, p50 {capacity.ms(50):.1f} ms, p99 {capacity.ms(99):.1f} ms; "
            f"move to mail p50 {capacity.mail_s(50):.2f} s; errors {len(capacity.errors)}")
        for share in RATES:
            wait_sent(url, 60)
            rate = share * capacity.throughput
            phase = open_loop(mover, table, rate, seconds, warmup, seed=int(share * 100))
            mail_times(phase, table, 30)
            phase.name = f"{share:.0%}"
            phases.append(phase)
            say(f"openload: {share:.0%} of capacity ({rate:.1f} moves/s, open loop): answered p50 "
                f"{phase.ms(50):.1f} ms, p99 {phase.ms(99):.1f} ms; move to mail p50 {phase.mail_s(50):.2f} s, "
                f"p99 {phase.mail_s(99):.2f} s; {len(phase.latencies)} moves, {phase.starved} found no game "
                f"ready, {phase.mail_missing} mails missing, errors {len(phase.errors)}")
        handoff = handoff_ms(web.env)
    finally:
        watch.stop()
    say(f"openload: the hand-off to Celery in a request: median {percentile(handoff, 50):.2f} ms, "
        f"p99 {percentile(handoff, 99):.2f} ms")
    if any(p.errors for p in phases):
        raise RuntimeError(f"moves failed: {[e for p in phases for e in p.errors][:3]}")
    by = {p.name: p for p in phases}
    half = by["50%"]
    stack_note = "gunicorn -w 4 sync, 1 Celery worker (default pool), 1 beat, PostgreSQL, Redis, SMTP sink"
    figures = [Figure("open load: hand-off to Celery per move, median", percentile(handoff, 50), "ms", 0, "info",
                      note=f"ctx.relay: one publish to Redis after the commit; p99 {percentile(handoff, 99):.2f} ms; "
                           f"a move at 25% takes {by['25%'].ms(50):.1f} ms (p50)"),
               Figure("open load: capacity", capacity.throughput, "moves/s", 0, "info",
                      note=f"closed loop, {CLIENTS} clients in {CAPACITY_GAMES} games, each moving again when its "
                           f"mail came; {stack_note}")]
    for share in RATES:
        p = by[f"{share:.0%}"]
        goal = share == 0.5
        figures += [
            Figure(f"open load {share:.0%}: move p50", p.ms(50), "ms", 0, "info",
                   note=f"{p.rate:.1f} moves/s, Poisson arrivals, {len(p.latencies)} moves"),
            Figure(f"open load {share:.0%}: move p99", p.ms(99), "ms", 50.0 if goal else 0,
                   "max-value" if goal else "info"),
        ]
    figures += [
        Figure("move to mail at 50%: p50", half.mail_s(50), "s", 1.0, "max-value",
               note=f"the move's 200 to the next player's turn mail at the sink; {half.mail_missing} missing"),
        Figure("move to mail at 50%: p99", half.mail_s(99), "s", 3.0, "max-value",
               note="; ".join(f"{n}: p50 {by[n].mail_s(50):.2f} s, p99 {by[n].mail_s(99):.2f} s"
                              for n in ("25%", "75%"))),
    ]
    if any(p.mail_missing for p in phases):
        figures.append(Figure("move to mail: mails missing", sum(p.mail_missing for p in phases), "mails", 1,
                              "max-value"))
    return figures, {"openload": {p.name: p.summary() for p in phases}, "openload_stack": stack_note,
                     "openload_handoff_ms": {"p50": round(percentile(handoff, 50), 3),
                                             "p99": round(percentile(handoff, 99), 3)},
                     "openload_games": games}


__all__ = ["run", "Table", "Game", "Phase", "open_loop", "closed_loop"]
