"""``python -m bench [--quick] [--only SECTION,...] [--label TEXT] [--profile]``

Runs the measurements, prints the table (what, value, floor, ratio, goal, pass/miss) and
writes it to ``bench/results/bench-<time>.json`` and ``bench/results/latest.json``.
Exits 1 if a measurement could not be made (a missed goal is a result, not an error)."""

from __future__ import annotations

import argparse
import os
import platform
import signal
import sys
import time
import traceback
from typing import Any, Callable

from .common import Figure, table, write_results
from .infra import Infra, _raise_exit

SECTIONS = ("moves", "openload", "push", "hosts", "mail", "read", "cost", "clock", "rules", "bots", "stall",
            "premoves", "lobby", "quickmatch")


def _say(text: str) -> None:
    print(text, flush=True)


def _versions() -> dict[str, Any]:
    out: dict[str, Any] = {"python": platform.python_version(), "cpus": os.cpu_count(),
                           "machine": platform.machine()}
    try:
        import psycopg

        from .infra import POSTGRES_ADMIN

        with psycopg.connect(POSTGRES_ADMIN, connect_timeout=3) as conn:
            out["postgresql"] = conn.execute("SHOW server_version").fetchone()[0]  # type: ignore[index]
    except Exception as e:  # noqa: BLE001
        out["postgresql"] = f"unreachable: {e}"
    try:
        import subprocess

        out["redis"] = subprocess.run(["redis-server", "--version"], capture_output=True, text=True,
                                      timeout=10).stdout.strip()
    except Exception as e:  # noqa: BLE001
        out["redis"] = f"unavailable: {e}"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run (about a minute)")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"comma-separated sections to run (default: all of {', '.join(SECTIONS)})")
    parser.add_argument("--label", default="", help="a note stored with the results, e.g. 'before'")
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    parser.add_argument("--profile", action="store_true",
                        help="also sample the gunicorn workers and the Celery pool with py-spy "
                             "(bench/results/profile-*.speedscope.json); sampling slows what it "
                             "samples, so such a run's figures are not comparable")
    args = parser.parse_args(argv)
    wanted = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in wanted if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s): {', '.join(unknown)}")

    if args.profile:
        os.environ["BENCH_PROFILE"] = "1"
    # A hard bound on the whole run; the Infra contexts still clean up on the way out.
    signal.signal(signal.SIGALRM, _raise_exit)
    signal.alarm(420 if args.quick else 1800)
    started = time.time()
    loads = [os.getloadavg()[0]]
    figures: list[Figure] = []
    details: dict[str, Any] = {}
    failures: dict[str, str] = {}
    _say(f"bench: {'quick' if args.quick else 'full'} run of {', '.join(wanted)}"
         f" (load average {loads[0]:.2f} on {os.cpu_count()} cpus)")
    for section in wanted:
        t0 = time.time()
        try:
            figs, extra = _run(section, args.quick)
            figures += figs
            details.update(extra)
        except (Exception, SystemExit, KeyboardInterrupt) as e:  # noqa: BLE001 - report and go on
            failures[section] = f"{e.__class__.__name__}: {e}"
            _say(f"bench: {section} failed: {failures[section]}")
            traceback.print_exc()
            if isinstance(e, (SystemExit, KeyboardInterrupt)):
                break
        loads.append(os.getloadavg()[0])
        _say(f"bench: {section} took {time.time() - t0:.0f} s")
    signal.alarm(0)
    _say("")
    _say(table(figures))
    for f in figures:
        if f.note:
            _say(f"  {f.what}: {f.note}")
    meta = {"label": args.label, "quick": args.quick, "sections": wanted, "seconds": round(time.time() - started, 1),
            "load_average": loads, "versions": _versions(), "details": details, "failures": failures}
    if not args.no_write:
        path = write_results(figures, meta)
        _say(f"\nbench: written {path} and {path.parent / 'latest.json'} ({meta['seconds']:.0f} s in all)")
    return 1 if failures else 0


def _run(section: str, quick: bool) -> tuple[list[Figure], dict[str, Any]]:
    if section == "rules":
        from . import rules

        return rules.run(quick=quick, say=_say)
    runner: Callable[..., tuple[list[Figure], dict[str, Any]]]
    if section == "moves":
        from .moves import run as runner
    elif section == "mail":
        from .mail import run as runner
    elif section == "bots":
        from .bots import run as runner
    elif section == "openload":
        from .openloop import run as runner
    elif section == "push":
        from .push import run as runner
    elif section == "hosts":
        from .hosts import run as runner
    elif section == "cost":
        from .cost import run as runner
    elif section == "clock":
        from .clockscale import run as runner
    elif section == "stall":
        from .stall import run as runner
    elif section == "premoves":
        from .premoves import run as runner
    elif section == "lobby":
        from .lobby import run as runner
    elif section == "quickmatch":
        from .quickmatch import run as runner
    else:
        from .reading import run as runner
    with Infra() as infra:
        return runner(infra, quick=quick, say=_say)


if __name__ == "__main__":
    sys.exit(main())
