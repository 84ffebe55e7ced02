"""Two versions of the move path under the move benchmark's load, taking turns.

    python -m bench.ab --a /path/to/tree-a --b /path/to/tree-b [--rounds 6] [--seconds 6]
    python -m bench.ab --a . --b . --b-args="-w 3"     # the same code, another gunicorn setting

On a shared machine one run of ``python -m bench --only moves`` can differ from the next by a
third, which hides any change worth making.  Here both servers run at once (each tree's code,
on one database) and the load alternates between them in short windows, A then B, then B then
A, so that whatever else the machine does falls on both alike.  It prints each window and the
medians of moves per second, the workers' CPU per move and PostgreSQL's.  A tree is a checkout
of this repository (``git worktree add /tmp/base <commit>``); it runs with this checkout's
virtual environment.  Nothing is written: it is a tool for choosing, the table is ``bench``'s."""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
from pathlib import Path
from typing import Sequence

from . import gamedata
from .infra import BIN, HOST, Infra, children, cpu_seconds, free_port, service_env, wait_http
from .load import GameRef, MoveClient, closed_loop

CLIENTS = 32


def _postgres_pids() -> list[int]:
    """Every PostgreSQL process (the backends come and go with the pools)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/comm") as f:
                    if f.read().startswith("postgres"):
                        out.append(int(entry))
            except OSError:
                pass
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ab", description=__doc__.splitlines()[0])
    parser.add_argument("--a", type=Path, required=True, help="the first tree (a checkout)")
    parser.add_argument("--b", type=Path, required=True, help="the second tree")
    parser.add_argument("--a-args", default="", help="more gunicorn arguments for A (e.g. '-w 3')")
    parser.add_argument("--b-args", default="", help="more gunicorn arguments for B")
    parser.add_argument("--rounds", type=int, default=6, help="windows for each (default 6)")
    parser.add_argument("--seconds", type=float, default=6.0, help="length of a window (default 6)")
    args = parser.parse_args(argv)
    trees = {"A": args.a.resolve(), "B": args.b.resolve()}
    extra = {"A": shlex.split(args.a_args), "B": shlex.split(args.b_args)}
    for tree in trees.values():
        if not (tree / "pbem" / "web" / "__init__.py").exists():
            parser.error(f"{tree} is not a checkout of this repository")
    with Infra() as infra:
        url = infra.database("ab")
        broker = infra.redis
        from pbem.rules import classic_board

        templates = gamedata.templates(gamedata.context(url))
        board = classic_board()
        neighbours = {tid: sorted(board.neighbours(tid)) for tid in board.ids}
        bases, leaders = {}, {}
        for name, tree in trees.items():
            port = free_port()
            argv_ = [str(BIN / "gunicorn"), "-b", f"{HOST}:{port}", "-w", "4", "-k", "sync", "--keep-alive", "30",
                     "--backlog", "256", "--graceful-timeout", "3", "--log-level", "warning", *extra[name],
                     "pbem.web:create_app()"]
            # The tree's code first on the path, ahead of this checkout's (installed editable).
            leaders[name] = proc = infra.spawn(f"ab-{name}", argv_, {**service_env(url, broker),
                                                                      "PYTHONPATH": str(tree)})
            wait_http(HOST, port, "/", proc, 30)
            bases[name] = f"http://{HOST}:{port}"
        windows: dict[str, list[tuple[float, float, float]]] = {"A": [], "B": []}
        # A first window for each, not counted: the pools connect, PostgreSQL's backends start.
        for n in range(-1, args.rounds):
            for name in ("AB" if n % 2 == 0 else "BA"):
                copies = gamedata.clone_games(url, [t[0] for t in templates], CLIENTS * 8, history=True)
                refs = []
                for k, (game_id, tokens) in enumerate(copies):
                    view = templates[k % len(templates)][1]
                    refs.append(GameRef(game_id, tokens, view["huts"], view["ply"], int(view["next_seat"] or 0)))
                clients = [MoveClient(bases[name], refs[k::CLIENTS], neighbours, seed=100 * n + k)
                           for k in range(CLIENTS)]
                postgres = _postgres_pids()
                before = cpu_seconds(postgres)
                result = closed_loop(clients, args.seconds, 1.0, server=children(leaders[name].pid))
                moves = len(result.latencies) * (args.seconds + 1.0) / args.seconds  # the warm-up's too
                pg_ms = (cpu_seconds(postgres) - before) * 1000 / moves if moves else float("nan")
                if n < 0:
                    continue
                windows[name].append((result.throughput, result.cpu_ms or float("nan"), pg_ms))
                print(f"window {n + 1} {name}: {result.throughput:.0f} moves/s, {result.cpu_ms or 0:.2f} ms of "
                      f"gunicorn CPU and {pg_ms:.2f} ms of PostgreSQL per move, errors {result.errors}",
                      flush=True)
        for name in "AB":
            moves_s = [w[0] for w in windows[name]]
            print(f"{name} ({trees[name]} {' '.join(extra[name])}): median {statistics.median(moves_s):.0f} moves/s "
                  f"(best {max(moves_s):.0f}), gunicorn {statistics.median(w[1] for w in windows[name]):.2f} ms, "
                  f"PostgreSQL {statistics.median(w[2] for w in windows[name]):.2f} ms per move")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
