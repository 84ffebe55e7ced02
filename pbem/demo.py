"""``pbem demo``: the whole service on embedded defaults, one command.

SQLite under ``instance/``, background work in-process, mail caught in the
mailbox at ``/mailbox``, and a seeded three-player game."""

from __future__ import annotations

import logging
import os
import random
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from sqlmodel import col, select

from .table import webhooks
from .workers.clock import tick
from .core.config import DEV_SECRET_KEY, is_loopback
from .core.db import session_scope, upgrade
from .drawing.style import StyleName
from .inbound.addresses import domain
from .inbound.receiver import describe, receiver
from .core.models import Game, MailChoice
from .core.outbox import OutboxKind
from .web import create_app
from .web.mailbox import game_of
from .core import links
from . import games

# One player each from Budapest, Prague and Lisbon: the mailbox shows all three languages.
DEMO_PLAYERS = [
    {"name": "Anna", "email": "anna@demo.example", "language": "hu", "time_zone": "Europe/Budapest"},
    {"name": "Petr", "email": "petr@demo.example", "language": "cs", "time_zone": "Europe/Prague"},
    {"name": "Rita", "email": "rita@demo.example", "language": "pt", "time_zone": "Europe/Lisbon"},
]


def is_fresh(ctx: Any) -> bool:
    """Whether the demo's database has no game yet (the demo seeds only then)."""
    with session_scope(ctx.engine) as session:
        return session.exec(select(Game.id)).first() is None


def seed(ctx: Any) -> str:
    """Start the demo game; every player accepts, so it is dealt and the first
    player's turn mail is waiting in the mailbox.  Returns its id."""
    game_id = games.start_game(ctx, games.parse_players(DEMO_PLAYERS), 72)
    with session_scope(ctx.engine) as session:
        game = session.exec(select(Game).where(Game.public_id == game_id)).one()
        _, seats = games.game_and_seats(session, game.id)
    for n, seat in enumerate(seats):
        if n == 1:
            # Petr plays on the high-contrast board: his page and his mails' pictures show it.
            games.set_board_style(ctx, links.seat_token(ctx, seat), StyleName.CONTRAST)
        games.accept(ctx, links.seat_token(ctx, seat))
        if n == 0:
            # Before the others accept: the catcher hears of the start too.
            webhooks.add_webhook(ctx, links.seat_token(ctx, seat), "json", f"{ctx.base_url}/webhook-catcher/")
    return game_id


def seed_finished(ctx: Any) -> str:
    """A second demo game of the same players, played to its end at once (so
    that the demo offers a replay, and a rematch); nobody is mailed its turns."""
    game_id = games.start_game(ctx, games.parse_players(DEMO_PLAYERS), 72)
    with session_scope(ctx.engine) as session:
        game = session.exec(select(Game).where(Game.public_id == game_id)).one()
        _, seats = games.game_and_seats(session, game.id)
    tokens = [links.seat_token(ctx, seat) for seat in seats]
    for token in tokens:
        games.set_mail(ctx, token, MailChoice.NONE)
        games.accept(ctx, token)
    # Not a secret: only which moves the demo's players make.
    choose = random.Random(15)
    while True:
        views = [games.seat_view(ctx, token) for token in tokens]
        turn = next((t, v) for t, v in zip(tokens, views) if v["your_turn"] or v["status"] != games.SeatStatus.ACTIVE)
        token, view = turn
        if view["status"] != games.SeatStatus.ACTIVE:
            return game_id
        games.submit_move(ctx, token, choose.choice(view["legal_moves"]), None, view["ply"])


def _clock(ctx: Any, app: Any, stop: threading.Event, every: float) -> None:
    while not stop.wait(every):
        try:
            with app.app_context():
                tick(ctx)
        except Exception:  # noqa: BLE001 - the demo keeps running; the log says why
            logging.getLogger(__name__).exception("periodic work failed")


def _relay_in_background(ctx: Any) -> None:
    """The demo has no broker, so its relay delivers in-process: hand that to a
    thread, so that a request answers before its mail is built and sent (a
    sign-in request then takes the same time whether or not the address plays)."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pbem-relay")
    inline = ctx.relay

    def deliver(ids: list[int | None]) -> None:
        try:
            inline(ids)
        except Exception:  # noqa: BLE001 - the sweep tries again; the log says why
            logging.getLogger(__name__).exception("relay failed")

    ctx.relay = lambda ids: pool.submit(deliver, list(ids))


def _computer_in_background(ctx: Any, delay: float) -> None:
    """Without a broker the computer's move would run inside the request that
    left it to move: the page would wait for every computer at the table.  The
    demo plays it on a thread after ``delay`` seconds, as a worker would."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pbem-computer")
    inline = ctx.computer

    def play(game_id: int, ply: int) -> None:
        try:
            inline(game_id, ply)
        except Exception:  # noqa: BLE001 - the clock moves for it at its deadline
            logging.getLogger(__name__).exception("computer's move failed")

    def later(game_id: int, ply: int) -> None:
        timer = threading.Timer(delay, pool.submit, args=(play, game_id, ply))
        timer.daemon = True
        timer.start()

    ctx.computer = later


def port_problem(host: str, port: int) -> str | None:
    """Why the demo could not listen on ``host:port`` (``None`` when it can): asked
    before anything is seeded, so that a busy port changes nothing.  Bound as the
    web server binds (``SO_REUSEADDR``), so only a port someone listens on counts."""
    import socket

    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(address)
    except OSError as e:
        return e.strerror or str(e)
    return None


def first_turn_mail(ctx: Any, game_id: str) -> tuple[str, int] | None:
    """Who moves first in the seeded game, and the caught turn mail that tells
    them so (for the banner to name the mail to open)."""
    from .core.models import CaughtMail

    view = games.public_game(ctx, game_id)
    name = next((str(p["name"]) for p in view["players"] if p["to_move"]), None)
    email = next((p["email"] for p in DEMO_PLAYERS if p["name"] == name), None)
    if name is None or email is None:
        return None
    with session_scope(ctx.engine) as session:
        mails = session.exec(select(CaughtMail)
                             .where(CaughtMail.recipient == email, CaughtMail.kind == OutboxKind.TURN)
                             .order_by(col(CaughtMail.id))).all()
    mail = next((m for m in mails if game_of(m.raw) == game_id), None)
    return (name, int(mail.id)) if mail is not None and mail.id is not None else None


def banner(ctx: Any, game_id: str | None, finished_id: str | None, mail_in: str) -> list[str]:
    """What ``pbem demo`` prints once it runs: where to look first (the turn mail
    of whoever moves first in the seeded game), and every other address."""
    base = ctx.base_url
    lines = ["", "Clans by Mail is running."]
    if game_id:
        who = ", ".join(f"{p['name']} ({p['language']})" for p in DEMO_PLAYERS)
        lines.append(f"  A demo game ({game_id}) for {who} is waiting.")
        first = first_turn_mail(ctx, game_id)
        if first:
            name, mail_id = first
            lines.append(f"  {name} moves first. Open {name}'s turn mail:  {base}/mailbox/{mail_id}")
            lines.append(f"  This game's mail only:  {base}/mailbox/?game={game_id}")
    if finished_id:
        lines.append(f"  A finished game:   {base}/games/{finished_id}/replay   "
                     "(step through it; its page offers a rematch)")
    lines += [f"  Open the mailbox:  {base}/mailbox/   (every email the service sends lands here)",
              f"  Webhook posts:     {base}/webhook-catcher/   (the demo game's signed JSON webhook)",
              f"  Start a new game:  {base}/",
              f"  Mail comes in at:  {mail_in}   (replies to move+…@{domain(ctx.config)})",
              "  Stop with Ctrl-C.", ""]
    return lines


def _free_port(host: str) -> int:
    import socket

    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def run_demo() -> int:
    host = os.environ.get("PBEM_DEMO_HOST", "127.0.0.1")
    if not is_loopback(f"http://{host}"):
        # The demo's mailbox shows every link, and its secret key is public.
        print(f"pbem demo: refusing to listen on {host}: the demo is for this machine only "
              "(PBEM_DEMO_HOST must be 127.0.0.1 or localhost)", file=sys.stderr)
        return 2
    given = os.environ.get("PBEM_DEMO_PORT", "5000")
    port = int(given) if given.strip().isdigit() else 0
    if not 0 < port < 65536:
        print(f"pbem demo: PBEM_DEMO_PORT={given!r} is not a port number (1 to 65535)", file=sys.stderr)
        return 2
    # Before anything is created or seeded: a busy port leaves no half-made demo behind.
    busy = port_problem(host, port)
    if busy:
        print(f"pbem demo: cannot listen on {host}:{port} ({busy}); nothing was started. "
              f"Stop what uses it, or choose another port: PBEM_DEMO_PORT=5001 make demo", file=sys.stderr)
        return 1
    base_url = os.environ.get("PBEM_BASE_URL", f"http://{host}:{port}")
    overrides = {"BASE_URL": base_url,
                 "SECRET_KEY": os.environ.get("PBEM_SECRET_KEY") or DEV_SECRET_KEY,
                 "BROKER_URL": "", "SMTP_HOST": "", "MAILBOX": True, "DEMO": True,
                 # The demo game's webhook posts to the demo's own catcher page.
                 "WEBHOOK_ALLOW": urlsplit(base_url).hostname or host}
    app = create_app(overrides)
    # The demo does its background work in this process: a line for every
    # migration step and every task done would bury what it prints for the person.
    for noisy in ("alembic", "celery.app.trace"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    config = app.config
    upgrade(config["DATABASE_URL"])
    ctx = app.extensions["pbem"]
    with app.app_context():
        # The finished game first: the game to play is the newest, on top of the mailbox.
        fresh = is_fresh(ctx)
        finished_id = seed_finished(ctx) if fresh else None
        game_id = seed(ctx) if fresh else None
    _relay_in_background(ctx)
    _computer_in_background(ctx, float(config["BOT_DELAY"]))
    # Mail in: SMTP on this machine only (replies from the mailbox, or any mail client).
    inbound_port = int(os.environ.get("PBEM_INBOUND_PORT") or _free_port(host))
    mail_in = receiver(ctx, app.extensions["celery"].relay_inbound, host=host, port=inbound_port, lmtp=False)
    # The mailbox's Reply button sends there.
    for settings in (app.config, ctx.config):
        settings.update(INBOUND_HOST=host, INBOUND_PORT=inbound_port)
    mail_in.start()
    stop = threading.Event()
    threading.Thread(target=_clock, args=(ctx, app, stop, 5.0), daemon=True).start()
    with app.app_context():
        print("\n".join(banner(ctx, game_id, finished_id, describe(mail_in))), flush=True)
    try:
        app.run(host=host, port=port, threaded=True, use_reloader=False)
    finally:
        stop.set()
        mail_in.stop()
    return 0
