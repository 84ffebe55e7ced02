"""The ``pbem`` command: replay records, benchmark the rules, run the service's chores."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Callable, Sequence

from .ops import admin_cli
from .core.config import UnsafeConfig, load_config
from .core.errors import ServiceError
from .rules.playout import autopilot_match, bench_plain, bench_playouts
from .rules.record import replay_text

if TYPE_CHECKING:
    from .core.context import Context


DEMO_HELP = """\
Run the whole service on this machine: SQLite under instance/, background work
in-process, every email caught in the mailbox at /mailbox/, and a seeded game of
three players (Hungarian, Czech, Portuguese). It prints which mail to open first.

Environment:
  PBEM_DEMO_PORT     the web port (default 5000); checked before anything is
                     seeded: if it is in use the demo stops and says so
  PBEM_DEMO_HOST     127.0.0.1 (default) or localhost: the demo is for this
                     machine only
  PBEM_INBOUND_PORT  where replies by mail come in (default: a free port)

Example: PBEM_DEMO_PORT=8000 make demo"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pbem", description="Clans by Mail")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", help="replay a clans-record/1 and print its result")
    p.add_argument("record", help="a record file, or - for standard input")

    p = sub.add_parser("bench", help="benchmarks")
    p.add_argument("what", choices=["rules"])
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--bot-games", type=int, default=0,
                   help="also play this many autopilot-vs-random games and report the win rate")

    p = sub.add_parser("export", help="print a game's clans-record/1")
    p.add_argument("game_id", help="the game's public id (as in its links)")

    p = sub.add_parser("db", help="database schema")
    p.add_argument("action", choices=["upgrade"])

    sub.add_parser("demo", help="run the service on embedded defaults with a seeded demo game",
                   description=DEMO_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)

    sub.add_parser("inbound", help="receive mail (replies that move, table talk, bounces) over SMTP, "
                                   "or LMTP with PBEM_INBOUND_LMTP=1, on PBEM_INBOUND_HOST:PBEM_INBOUND_PORT")

    admin_cli.add_arguments(sub.add_parser("admin", help=admin_cli.HELP, description=admin_cli.HELP))

    args = parser.parse_args(argv)
    try:
        return _run(args)
    except UnsafeConfig as e:
        print(f"pbem: refusing to start: {e}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    handler: Callable[[argparse.Namespace], int] = {
        "replay": _replay,
        "bench": _bench,
        "export": _export,
        "db": _db,
        "demo": _demo,
        "inbound": _inbound,
        "admin": _admin,
    }[args.command]
    return handler(args)


def _replay(args: argparse.Namespace) -> int:
    try:
        if args.record == "-":
            text: str | bytes = sys.stdin.buffer.read()
        else:
            with open(args.record, "rb") as f:
                text = f.read()
    except OSError as e:
        out = {"error": {"code": "invalid-record", "move_index": None, "move": None,
                         "message": f"cannot read {args.record}: {e.strerror}"}}
        print(json.dumps(out))
        return 2
    out, status = replay_text(text)
    print(json.dumps(out))
    return status


#: ``pbem bench rules``' goal: the engine's playouts against the plainest one.
RULES_GOAL = 10.0


def _bench(args: argparse.Namespace) -> int:
    result = bench_playouts(args.seconds)
    floor = bench_plain(args.seconds)
    ratio = result.per_second / floor.per_second
    print(f"games: {result.playouts}  moves/game: {result.moves / result.playouts:.1f}  "
          f"seconds: {result.seconds:.2f}")
    print(f"plain playout (the floor): {floor.per_second:.0f}/s, {floor.moves / floor.playouts:.1f} moves/game")
    if args.bot_games:
        stats = autopilot_match(args.bot_games)
        print(f"autopilot: won {stats.wins}/{stats.games} ({stats.win_rate:.1%}) against a random mover; "
              f"move time median {stats.median_ms:.2f} ms, max {stats.max_ms:.2f} ms")
    print(f"playouts/s: {result.per_second:.0f}  ({ratio:.1f}x the plain playout; goal {RULES_GOAL:g}x: "
          f"{'pass' if ratio >= RULES_GOAL else 'MISS'})")
    return 0


def _export(args: argparse.Namespace) -> int:
    # Here, not at the top: ``pbem replay`` and ``pbem bench`` start without
    # loading Flask, SQLAlchemy, Celery and the mail stack (about half a second).
    from pbem.games.views import export_game
    from .web import create_app

    app = create_app()
    try:
        record = export_game(app.extensions["pbem"], args.game_id)
    except ServiceError as e:
        print(f"pbem export: {e.message}", file=sys.stderr)
        return 1
    print(json.dumps(record, indent=1))
    return 0


def _db(args: argparse.Namespace) -> int:
    from .core.db import upgrade

    upgrade(load_config()["DATABASE_URL"])
    print("database is at the newest schema")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo  # not at the top: see _export

    return run_demo()


def _admin(args: argparse.Namespace) -> int:
    def make_context() -> Context:
        from .web import create_app  # not at the top: see _export

        found: Context = create_app().extensions["pbem"]
        return found

    return admin_cli.run(args, make_context)


def _inbound(args: argparse.Namespace) -> int:
    import logging
    import signal
    import threading

    from .inbound.addresses import domain
    from .inbound.receiver import describe, receiver
    from .web import create_app  # not at the top: see _export

    app = create_app()  # which sets up logging (pbem.core.logs)
    ctx = app.extensions["pbem"]
    controller = receiver(ctx, app.extensions["celery"].relay_inbound)
    try:
        controller.start()
    except (OSError, RuntimeError) as e:
        print(f"pbem inbound: cannot listen on {ctx.config['INBOUND_HOST']}:{ctx.config['INBOUND_PORT']}: {e}",
              file=sys.stderr)
        return 1
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    logging.getLogger("pbem.inbound").info(
        "receiving mail on %s for move+…, talk+…, bounce+…@%s (at most %s bytes)",
        describe(controller), domain(ctx.config), ctx.config["INBOUND_MAX_BYTES"])
    try:
        while not stop.wait(1.0):
            pass
    finally:
        controller.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
