"""1. Move submission: ``POST /api/v1/seat/moves`` on gunicorn against PostgreSQL, mail
enqueued to Redis (no worker), 32 closed-loop clients each playing its own games; the
floor is a bare one-INSERT endpoint on the same gunicorn configuration.  Throughput only:
the latency players feel is measured open-loop on the whole stack (``bench/openloop.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from . import gamedata
from .common import Figure
from .floor_app import create_table
from .infra import Infra, children, service_env
from .load import FloorClient, GameRef, LoadResult, MoveClient, closed_loop


@dataclass(frozen=True)
class Config:
    name: str
    worker_class: str
    workers: int
    threads: int

    def describe(self) -> str:
        if self.worker_class == "gthread":
            return f"-w {self.workers} -k gthread --threads {self.threads}"
        return f"-w {self.workers} -k {self.worker_class}"


CONFIGS = [
    Config("gthread-4x4", "gthread", 4, 4),
    Config("sync-4", "sync", 4, 1),
    Config("sync-3", "sync", 3, 1),
]


def run(infra: Infra, *, quick: bool, say: Callable[[str], None], clients: int = 32) -> tuple[list[Figure], dict[str, Any]]:
    seconds = 3.0 if quick else 10.0
    warmup = 1.0 if quick else 2.0
    configs = CONFIGS[:1] if quick else CONFIGS
    url = infra.database("moves")
    create_table(url)
    infra.redis_keys += ["celery", "_kombu.binding.celery", "unacked", "unacked_index"]
    broker = infra.redis
    from pbem.rules import classic_board

    templates = gamedata.templates(gamedata.context(url))
    board = classic_board()
    neighbours = {tid: sorted(board.neighbours(tid)) for tid in board.ids}
    per_client = 6 if quick else 16
    rounds = 1 if quick else 2
    raw: dict[str, Any] = {}
    choices: list[tuple[Config, LoadResult, LoadResult]] = []
    views = dict(templates)
    for config in configs:
        env = service_env(url, broker)
        floor_base = infra.gunicorn(f"floor-{config.name}", "bench.floor_app:create_app()", env,
                                    workers=config.workers, worker_class=config.worker_class, threads=config.threads)
        service_base = infra.gunicorn(f"service-{config.name}", "pbem.web:create_app()", env,
                                      workers=config.workers, worker_class=config.worker_class,
                                      threads=config.threads)
        floors: list[LoadResult] = []
        results: list[LoadResult] = []
        # Floor and service take turns, so that a change in the machine's load hits both.
        floor_workers = children(next(p for label, p in infra.procs if label == f"floor-{config.name}").pid)
        leader = next(p for label, p in infra.procs if label == f"service-{config.name}")
        for n in range(rounds):
            floor = closed_loop([FloorClient(floor_base, k + 1) for k in range(clients)], seconds, warmup,
                                server=floor_workers)
            floors.append(floor)
            say(f"moves: floor, gunicorn {config.describe()}, {clients} clients, {seconds:.0f} s: "
                f"{floor.throughput:.0f} req/s, p50 {floor.p(50):.1f} ms, p99 {floor.p(99):.1f} ms, "
                f"{floor.cpu_ms:.2f} ms of gunicorn CPU per request")
            copies = gamedata.clone_games(url, [t[0] for t in templates], clients * per_client, history=True)
            refs = []
            for k, (gid, toks) in enumerate(copies):
                v = views[templates[k % len(templates)][0]]
                refs.append(GameRef(gid, toks, v["huts"], v["ply"], v["next_seat"]))
            movers = [MoveClient(service_base, refs[k::clients], neighbours, seed=1000 * n + k)
                      for k in range(clients)]
            spies = [infra.profile(f"moves-{config.name}-worker{w}", pid, seconds + warmup)
                     for w, pid in enumerate(children(leader.pid))] if n == 0 else []
            result = closed_loop(movers, seconds, warmup, server=children(leader.pid))
            for spy in spies:
                if spy is not None:
                    spy.wait(30)
            results.append(result)
            say(f"moves: service, gunicorn {config.describe()}: {result.throughput:.0f} moves/s, "
                f"p50 {result.p(50):.1f} ms, p99 {result.p(99):.1f} ms, {result.cpu_ms:.2f} ms of gunicorn CPU "
                f"per move, errors {result.errors}, "
                f"games finished {sum(m.games_finished for m in movers)}")
            if result.errors:
                say(f"  errors, e.g. {result.error_samples[:2]}")
        for proc in [p for label, p in infra.procs if label in (f"floor-{config.name}", f"service-{config.name}")]:
            infra.stop(proc)
        floor = max(floors, key=lambda r: r.throughput)
        result = max(results, key=lambda r: r.throughput)
        raw[config.name] = {"gunicorn": config.describe(), "floor": [f.summary() for f in floors],
                            "service": [r.summary() for r in results]}
        choices.append((config, result, floor))
    # The configuration that serves best: the most moves/s, unless another comes within 10 %
    # of it with a lower p99 (then that one: the same work, shorter waits).
    top = max(r.throughput for _, r, _ in choices)
    config, result, floor = min((c for c in choices if c[1].throughput >= 0.9 * top), key=lambda c: c[1].p(99))
    note = (f"gunicorn {config.describe()}, {clients} clients, best of {rounds} x {seconds:.0f} s "
            f"(floor and service taking turns)")
    # Latency is the open-load section's (bench/openloop.py): a closed loop of 32 clients on
    # two cores measures its own queue, not the service.
    figures = [
        Figure("moves: throughput", result.throughput, "req/s", 0.40, "min-ratio", floor.throughput,
               "1-INSERT endpoint", note=f"{note}; p50 {result.p(50):.1f} ms, p99 {result.p(99):.1f} ms "
                                         f"(floor {floor.p(50):.1f} / {floor.p(99):.1f} ms)", extra=raw),
    ]
    return figures, {"moves": raw, "moves_config": config.describe()}
