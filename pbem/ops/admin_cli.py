"""``pbem admin …``: the operator's toolbox on the command line.  The work is
:mod:`pbem.ops.admin`'s; this module reads the arguments and prints the answers,
in plain English for the operator (nothing here reaches a player).

Exit status: 0 done (or nothing left to do), 1 an unknown game or row, or a
change the game does not allow, or (``check``) something missing or wrong;
2 a usage error (argparse's) or, for the other commands, a configuration the
processes refuse to start with."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Sequence, TextIO

from ..core import vapid
from ..core.config import UnsafeConfig, check_safe, load_config
from ..core.errors import ServiceError

if TYPE_CHECKING:
    # Not at run time: ``pbem replay`` builds this parser too, and must start
    # without SQLAlchemy and the service layer; the commands import them.
    from .admin import Done
    from ..core.context import Context

HELP = "the operator's toolbox: games, outbox, resend, cancel, extend, forget, reports, check"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="admin_command", required=True, metavar="COMMAND")

    p = sub.add_parser("games", help="list games, newest first",
                       description="List games, newest first (at most --limit). A game is stuck when it is "
                                   "active, its deadline has passed, and nothing happened in it (no move, no "
                                   "mail sent) for longer than its turn time.")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--active", dest="which", action="store_const", const="active", help="only active games")
    which.add_argument("--stuck", dest="which", action="store_const", const="stuck", help="only stuck games")
    which.add_argument("--finished", dest="which", action="store_const", const="finished",
                       help="only finished games")
    p.add_argument("--limit", type=int, default=100, help="at most this many (default 100)")

    p = sub.add_parser("game", help="one game: seats, deadline, outbox rows",
                       description="One game: its state and deadline, its seats (addresses and settings; a "
                                   "clan only once the game is over) and its outbox rows.")
    p.add_argument("game_id", metavar="GAME", help="the game's public id (as in its links)")

    p = sub.add_parser("outbox", help="outbox rows and counts by kind and status",
                       description="The newest outbox rows (at most --limit) and the count of rows by kind "
                                   "and status.")
    status = p.add_mutually_exclusive_group()
    status.add_argument("--pending", dest="status", action="store_const", const="pending",
                        help="only rows waiting to go")
    status.add_argument("--failed", dest="status", action="store_const", const="failed",
                        help="only rows given up on")
    p.add_argument("--kind", help="only rows of this kind (turn, invite, login, ...)")
    p.add_argument("--limit", type=int, default=100, help="at most this many rows (default 100)")

    p = sub.add_parser("resend", help="a new attempt at one outbox row, with the same Message-ID",
                       description="Make an outbox row pending and due now, with a full set of tries, and hand "
                                   "it to the workers. It keeps its Message-ID, so a mail client that has the "
                                   "first copy shows one. As for any row, the world is checked when it goes: a "
                                   "turn that is over is skipped. A row already waiting to go is left alone.")
    p.add_argument("row", type=int, metavar="ROW", help="the outbox row's id (pbem admin outbox shows them)")

    p = sub.add_parser("cancel", help="cancel a running game; its players are told by mail",
                       description="Cancel a game that is being played or still gathering its players. Mail "
                                   "about it still waiting is dropped, and every player who has heard of the "
                                   "game gets a 'cancelled' mail. A cancelled game stays cancelled.")
    p.add_argument("game_id", metavar="GAME", help="the game's public id")

    p = sub.add_parser("extend", help="move a running game's deadline HOURS later",
                       description="Give the player to move HOURS more: the deadline moves HOURS later (from "
                                   "now, if it has passed already), and a reminder comes again before the new "
                                   "one. Each run adds HOURS; the answer names the old and the new deadline.")
    p.add_argument("game_id", metavar="GAME", help="the game's public id")
    p.add_argument("hours", type=int, metavar="HOURS", help="how many hours later: 1 to 720 (30 days)")

    p = sub.add_parser("forget", help="erase a person (their address everywhere, their name in every game)",
                       description="Erase a person: their address from every seat, sign-in, outbox row (mail "
                                   "still waiting is dropped), received message and caught mail; their name "
                                   "becomes 'former player' in every game, so records stay valid. In a game "
                                   "being played the computer plays on for them; a game still gathering its "
                                   "players is cancelled. The address's hash stays on the suppression list, so "
                                   "nothing is mailed to it again.")
    p.add_argument("address", metavar="ADDRESS", help="their email address")

    p = sub.add_parser("reports", help="table messages players reported, newest first",
                       description="The table messages players reported, newest first (at most --limit): the "
                                   "game, the message as written and who wrote it, who reported it (their seat and "
                                   "name at that table), when, and the reason they gave. No addresses: "
                                   "'pbem admin game GAME' shows the game's seats.")
    p.add_argument("--limit", type=int, default=100, help="at most this many (default 100)")

    sub.add_parser("vapid", help="make a new VAPID key for Web Push (prints it; changes nothing)",
                   description="Make a new P-256 key pair for Web Push and print the private key as "
                               "PBEM_VAPID_PRIVATE_KEY takes it (base64url of its 32 bytes), and the public key "
                               "browsers subscribe with. Keep the private key secret; replacing it later "
                               "orphans every subscription (players turn notifications on again).")
    sub.add_parser("check", help="read the configuration and try the database, broker and SMTP server",
                   description="Read the configuration (the checks every process makes at start), then try the "
                               "database (and whether its schema is the newest), the broker and the SMTP "
                               "server, and say in plain words what is missing or wrong. Sends no mail.")


def run(args: argparse.Namespace, make_context: Callable[[], Context], out: TextIO | None = None) -> int:
    """Run one ``pbem admin`` command; ``make_context``: the service context
    (the CLI builds the app for it; ``check`` does without)."""
    out = out or sys.stdout
    if args.admin_command == "check":
        return check(out)
    if args.admin_command == "vapid":
        return new_vapid_key(out)
    handler: Callable[[argparse.Namespace, Context, TextIO], int] = {
        "games": _games, "game": _game, "outbox": _outbox, "resend": _resend, "cancel": _cancel,
        "extend": _extend, "forget": _forget, "reports": _reports,
    }[args.admin_command]
    ctx = make_context()
    try:
        return handler(args, ctx, out)
    except ServiceError as e:
        print(f"pbem admin {args.admin_command}: {e.message}", file=sys.stderr)
        return 1
    finally:
        ctx.engine.dispose()


def new_vapid_key(out: TextIO) -> int:
    """``pbem admin vapid``: a new key, printed (nothing is stored)."""
    key = vapid.new_key()
    print(f"PBEM_VAPID_PRIVATE_KEY={vapid.raw_private(key)}", file=out)
    print(f"# public key (GET /api/v1/push/key gives it): {vapid.public_key(key)}", file=out)
    return 0


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value is not None else "-"


def _table(out: TextIO, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for r in cells:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip(), file=out)


def _games(args: argparse.Namespace, ctx: Context, out: TextIO) -> int:
    from . import admin

    rows = admin.list_games(ctx, args.which, limit=args.limit)
    if not rows:
        print(f"no {args.which + ' ' if args.which else ''}games", file=out)
        return 0
    _table(out, ["GAME", "STATUS", "PLAYERS", "MOVES", "TURN", "CREATED", "DEADLINE", "LAST ACTIVITY", ""],
           [(g.public_id, g.status, g.players, g.ply, f"{g.turn_hours}h", _when(g.created_at), _when(g.deadline),
             _when(g.last_activity), "STUCK" if g.stuck else "") for g in rows])
    return 0


def _game(args: argparse.Namespace, ctx: Context, out: TextIO) -> int:
    from . import admin
    from ..core.models import GameStatus

    d = admin.game_detail(ctx, args.game_id)
    print(f"game {d['game']}: {d['status']}{' (STUCK)' if d['stuck'] else ''}, {d['ply']} moves, "
          f"{d['turn_hours']} hours a turn", file=out)
    print(f"created {_when(d['created_at'])}, started {_when(d['started_at'])}, finished {_when(d['finished_at'])}, "
          f"last activity {_when(d['last_activity'])}", file=out)
    if d["deadline"] is not None:
        print(f"seat {d['turn_seat']} to move by {_when(d['deadline'])} (UTC)", file=out)
    print("\nseats:", file=out)
    _table(out, ["SEAT", "NAME", "ADDRESS", "ACCEPTED", "MAIL", "LANG", "COMPUTER", "AUTOPILOT", "PAUSED UNTIL",
                 "CLAN"],
           [(s["position"], s["name"], s["email"] or "-", "yes" if s["accepted"] else "no", s["mail"],
             s["language"], s["bot"] or "-", s["autopilot_streak"], _when(s["paused_until"]),
             (s["clan"] or "(secret)") if d["status"] == GameStatus.ACTIVE else (s["clan"] or "-"))
            for s in d["seats"]])
    print("\noutbox:", file=out)
    _outbox_table(out, d["outbox"])
    return 0


def _outbox_table(out: TextIO, rows: Sequence[dict[str, Any]]) -> None:
    from ..core.models import OutboxStatus

    if not rows:
        print("no rows", file=out)
        return
    _table(out, ["ROW", "GAME", "KIND", "STATUS", "TRIES", "RECIPIENT", "CREATED", "NEXT TRY", "SENT", "LAST ERROR"],
           [(r["id"], r["game"] or "-", r["kind"], r["status"], r["attempts"], r["recipient"],
             _when(r["created_at"]), _when(r["next_attempt_at"]) if r["status"] == OutboxStatus.PENDING else "-",
             _when(r["sent_at"]), (r["last_error"] or "")[:60]) for r in rows])


def _outbox(args: argparse.Namespace, ctx: Context, out: TextIO) -> int:
    from . import admin

    rows, counts = admin.outbox_rows(ctx, args.status, args.kind, limit=args.limit)
    if counts:
        statuses = sorted({s for _, s in counts})
        kinds = sorted({k for k, _ in counts})
        _table(out, ["KIND", *(s.upper() for s in statuses)],
               [(k, *(counts.get((k, s), 0) for s in statuses)) for k in kinds])
        print(file=out)
    _outbox_table(out, rows)
    return 0


def _done(out: TextIO, done: Done) -> int:
    print(done.message, file=out)
    return 0


def _resend(args: argparse.Namespace, ctx: Context, out: TextIO) -> int:
    from . import admin

    return _done(out, admin.resend(ctx, args.row))


def _cancel(args: argparse.Namespace, ctx: Context, out: TextIO) -> int:
    from . import admin

    return _done(out, admin.cancel(ctx, args.game_id))


def _extend(args: argparse.Namespace, ctx: Context, out: TextIO) -> int:
    from . import admin

    return _done(out, admin.extend(ctx, args.game_id, args.hours))


def _forget(args: argparse.Namespace, ctx: Context, out: TextIO) -> int:
    from . import admin

    return _done(out, admin.forget(ctx, args.address))


def _reports(args: argparse.Namespace, ctx: Context, out: TextIO) -> int:
    from .reports import list_reports

    rows = list_reports(ctx, limit=args.limit)
    if not rows:
        print("no reports", file=out)
        return 0
    for r in rows:
        print(f"report {r.id}  game {r.game}  {_when(r.at)} UTC", file=out)
        print(f"  reported by seat {r.reporter_seat} ({r.reporter}); message {r.message} by seat "
              f"{r.author_seat} ({r.author}):", file=out)
        for line in r.text.splitlines() or [""]:
            print(f"    | {line}", file=out)
        if r.reason:
            print(f"  reason: {' '.join(r.reason.split())}", file=out)
    return 0


def check(out: TextIO, environ: dict[str, str] | None = None) -> int:
    """The configuration, then each service: one line each, and status 1 if
    anything is missing or wrong."""
    from . import probes

    problems = 0

    def say(state: str, name: str, detail: str) -> None:
        nonlocal problems
        problems += state == "FAIL"
        print(f"{state:<8}{name}: {detail}", file=out)

    try:
        config = load_config(environ=environ)
    except ValueError as e:
        say("FAIL", "configuration", str(e))
        return 1
    try:
        check_safe(config)
        say("ok", "configuration", f"safe to run in public at {config['BASE_URL']}")
    except UnsafeConfig as e:
        say("FAIL", "configuration", f"the processes refuse to start: {e}")
    shown = {probes.ProbeState.OK: "ok", probes.ProbeState.FAILED: "FAIL", probes.ProbeState.NOT_CONFIGURED: "skipped"}
    found = [probes.database(str(config["DATABASE_URL"]), timeout=5.0)]
    if not found[0].failed:
        found.append(probes.schema(str(config["DATABASE_URL"])))
    found.append(probes.broker(str(config["BROKER_URL"] or ""), timeout=5.0))
    found.append(probes.smtp(config, timeout=float(config["SMTP_TIMEOUT"])))
    for probe in found:
        say(shown[probe.state], probe.name, probe.detail)
    print("all good" if not problems else f"{problems} problem(s)", file=out)
    return 1 if problems else 0
