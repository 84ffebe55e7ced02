"""Configuration: embedded defaults, overridden by ``PBEM_``-prefixed environment
variables, overridden by a mapping given to ``create_app``.

Two keys can only be given in that mapping, never by the environment: ``DEMO``
(set by ``pbem demo``) and Flask's ``TESTING`` (set by the tests).  Everything
:func:`check_safe` refuses is allowed only under them."""

from __future__ import annotations

import ipaddress
import re
import os
import socket
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from . import vapid

DEV_SECRET_KEY = "dev-only-secret-change-me"
MIN_SECRET_KEY_LENGTH = 32
#: The shortest PBEM_METRICS_TOKEN a public service accepts.
MIN_METRICS_TOKEN_LENGTH = 24

DEFAULTS: dict[str, Any] = {
    # None: SQLite in instance/ (or PBEM_INSTANCE_PATH), decided when the config is loaded.
    "DATABASE_URL": None,
    # Unset: background work runs in-process (Celery's eager mode).
    "BROKER_URL": "",
    # Seconds a publish may wait for the broker's answer; after a failed publish the
    # relay leaves new mail to the sweep for BROKER_PAUSE seconds.
    "BROKER_TIMEOUT": 5.0,
    "BROKER_PAUSE": 30.0,
    # Seconds GET /readyz waits for the database and for the broker.
    "READY_TIMEOUT": 2.0,
    # Unset: mail is caught in the database and shown at /mailbox.
    "SMTP_HOST": "",
    "SMTP_PORT": 25,
    "SMTP_USER": "",
    "SMTP_PASSWORD": "",
    "SMTP_TLS": False,
    "SMTP_TIMEOUT": 20.0,
    "MAIL_FROM": "Clans by Mail <clans@localhost>",
    "BASE_URL": "http://127.0.0.1:5000",
    # Required outside the demo (check_safe); the demo runs on DEV_SECRET_KEY.
    "SECRET_KEY": "",
    # The caught-mail page at /mailbox: on in the demo; elsewhere only when asked
    # for (PBEM_MAILBOX=1) on a loopback base URL.
    "MAILBOX": False,
    "TURN_HOURS": 72,
    "REMINDER_HOURS": 24,
    # Vacation days a person accrues in a year (pauses spend them, and so does a
    # deadline about to lapse, a day at a time); a bank never holds more than this.
    "VACATION_DAYS": 14,
    "DIGEST_HOUR": 7,  # UTC hour after which the daily digest goes out
    "LOGIN_MINUTES": 30,
    # How long a signed-in browser stays signed in (sign-out ends it at once).
    "SESSION_DAYS": 31,
    # Rate limits (Flask-Limiter's notation).  Stored in Redis when a broker is
    # configured (shared by every process), in memory otherwise.
    "RATELIMIT_STORAGE_URL": "",
    "LIMIT_NEW_GAMES": "5 per minute; 20 per hour; 50 per day",  # per IP
    "LIMIT_LOGIN": "5 per minute; 20 per hour",  # sign-in requests per IP
    "LIMIT_LOGIN_MAIL": "1 per 5 minutes; 5 per day",  # sign-in mails per address
    "LIMIT_CONFIRMATIONS": "5 per day",  # "confirm the game you started" mails per address
    "LIMIT_INVITES": "5 per day",  # invitations per address; more wait for the next window
    "LIMIT_CONFIRMED_GAMES": "10 per day",  # games started signed in (so invited at once) per player
    "LIMIT_PRACTICE": "10 per hour; 30 per day",  # practice games started per player
    "LIMIT_NEW_LINK": "3 per day",  # "send me a new link" per seat
    "LIMIT_NEVER": "10 per hour",  # "never email me again" per IP
    # The lobby: joins of tables with open seats, per IP and per mailbox (each
    # sends an invitation), and how long a join holds an open seat unaccepted.
    "LIMIT_JOINS_IP": "10 per hour; 30 per day",
    "LIMIT_JOINS": "5 per hour; 10 per day",
    "LOBBY_HOLD_HOURS": 48,
    # Retention: a game nobody accepted expires after INVITE_DAYS; used or
    # expired sign-ins and delivered outbox rows are deleted after RETENTION_DAYS.
    # Reverse proxies in front of the web app (their X-Forwarded-For is trusted,
    # so that rate limits count clients, not the proxy).
    "TRUSTED_PROXIES": 0,
    "INVITE_DAYS": 14,
    "RETENTION_DAYS": 30,
    "MAX_CONTENT_LENGTH": 64 * 1024,
    # Mail the service receives (`pbem inbound`): replies that move, table talk,
    # bounces.  The receiver listens here, behind the operator's mail server.
    "INBOUND_HOST": "127.0.0.1",
    "INBOUND_PORT": 2525,
    # The domain of reply (move+TOKEN@) and bounce (bounce+ID@) addresses; unset:
    # the base URL's host.
    "INBOUND_DOMAIN": "",
    # Speak LMTP instead of SMTP (behind Postfix's lmtp transport).
    "INBOUND_LMTP": False,
    # "authres:<authserv-id>": a reply must carry a DMARC (or aligned SPF/DKIM)
    # pass in an Authentication-Results header from that server to move at once.
    "INBOUND_TRUST": "",
    "INBOUND_MAX_BYTES": 1_000_000,
    "LIMIT_TALK": "10 per hour; 50 per day",  # table-talk messages per seat
    "LIMIT_REPORTS": "10 per hour; 30 per day",  # table messages reported to the operator, per seat
    # Answers to replies (accepted, refused, confirm) per seat: anyone who saw a
    # reply address could otherwise make the service mail that player at will.
    "LIMIT_REPLY_ANSWERS": "60 per hour; 300 per day",
    # Computer players: seconds between a turn reaching the computer and its move
    # (a person sees the move arrive rather than the game jump ahead), and the
    # time box of the hard player's search for one move.
    "BOT_DELAY": 2.0,
    "BOT_SECONDS": 0.8,
    # Webhooks go only to https addresses that resolve to public IPs, except to
    # these hosts (comma-separated names, compared ignoring case; http allowed
    # too): for tests and the demo's own catcher, never for the world.
    "WEBHOOK_ALLOW": "",
    "LIMIT_WEBHOOKS": "10 per hour; 20 per day",  # new webhooks per seat
    # How the processes log (pbem.core.logs): "text", or "json" for one JSON object a line.
    "LOG_FORMAT": "text",
    # GET /metrics in Prometheus's text format (pbem.core.metrics); with several processes
    # on a host, set PROMETHEUS_MULTIPROC_DIR for all of them (README).
    "METRICS": False,
    # The bearer token a scraper sends for GET /metrics (Authorization: Bearer ...);
    # required with PBEM_METRICS=1 on a public base URL.  Empty on this machine: open.
    "METRICS_TOKEN": "",
    # How often beat runs the outbox and inbound sweeps and the deadline scan (seconds).
    "CLOCK_SECONDS": 60.0,
    # How long a worker's claim on an outbox row lasts: a row whose worker died is
    # tried again after it.  Shorter than a delivery can take, a slow send would go twice.
    "MAIL_LEASE_SECONDS": 300.0,
    # A player whose open seat page said they were there within this many seconds
    # is present: their turn mail waits until they have been gone this long, and
    # goes only if it is still their turn (pbem.table.watching).  The page says so every
    # third of it.
    "PRESENCE_SECONDS": 90.0,
    # A player who has waited this many hours on the same mover may nudge them
    # (once a day per game: pbem.games.nudges).
    "NUDGE_AFTER_HOURS": 24.0,
    # Boards drawn as PNG for download, per client IP (drawing one costs work).
    "LIMIT_BOARD_PNG": "20 per minute; 200 per day",
    # Web Push (pbem.core.vapid): the P-256 private key that signs the pushes
    # (base64url of its 32 bytes, or PEM; `pbem admin vapid` makes one).  Unset:
    # no push, and the pages do not offer it.
    "VAPID_PRIVATE_KEY": "",
    # Who the push services may write to about the pushes (mailto: or https:);
    # unset: mailto: the address of PBEM_MAIL_FROM.
    "VAPID_SUBJECT": "",
}

#: The hard player's time box may be at most this long (a worker is busy for it).
MAX_BOT_SECONDS = 30.0
#: A delivery's hard time limit (the ``pbem.deliver`` task's): a public service's
#: lease must outlast it, so that a lease runs out only when its worker is gone.
DELIVERY_TIME_LIMIT = 90.0
#: The longest wait before a nudge (a month): beyond it nobody could ever nudge.
MAX_NUDGE_AFTER_HOURS = 720
#: The most vacation days a year PBEM_VACATION_DAYS may give.
MAX_VACATION_DAYS = 366
#: The values of PBEM_LOG_FORMAT (pbem.core.logs).
LOG_FORMATS = ("text", "json")

_BOOLS = {"1": True, "true": True, "yes": True, "on": True,
          "0": False, "false": False, "no": False, "off": False, "": False}


def load_config(overrides: Mapping[str, Any] | None = None,
                environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The effective configuration; values from the environment are converted to
    the type of their default."""
    # Not Flask's app.config.from_prefixed_env(): that parses values as JSON, so
    # PBEM_SMTP_TLS=no stays the string "no" (which is true) and PBEM_SMTP_PASSWORD=1234
    # becomes a number, it takes any PBEM_ variable, known or not, and it needs a
    # Flask app, while ``pbem db upgrade`` reads the configuration without one.
    env = os.environ if environ is None else environ
    config = dict(DEFAULTS)
    for key, default in DEFAULTS.items():
        raw = env.get(f"PBEM_{key}")
        if raw is None:
            continue
        config[key] = _convert(key, raw, default)
    if overrides:
        config.update(overrides)
    if not config["DATABASE_URL"]:
        instance = Path(env.get("PBEM_INSTANCE_PATH") or Path.cwd() / "instance")
        config["DATABASE_URL"] = f"sqlite:///{instance / 'pbem.sqlite3'}"
    config["BASE_URL"] = str(config["BASE_URL"]).rstrip("/")
    return config


def _convert(key: str, raw: str, default: Any) -> Any:
    if isinstance(default, bool):
        value = _BOOLS.get(raw.strip().lower())
        if value is None:
            raise ValueError(f"PBEM_{key}={raw!r}: expected a yes/no value")
        return value
    if isinstance(default, int):
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"PBEM_{key}={raw!r}: expected a whole number") from None
    if isinstance(default, float):
        try:
            return float(raw)
        except ValueError:
            raise ValueError(f"PBEM_{key}={raw!r}: expected a number") from None
    return raw



class UnsafeConfig(Exception):
    """A setting that a public process must not start with; the message is one
    line that names the variable."""


def is_loopback(base_url: str) -> bool:
    """Whether links point at this machine only (``localhost``, 127.0.0.0/8, ::1)."""
    host = urlsplit(base_url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _local_webhook_host(host: str) -> bool:
    """Whether a ``PBEM_WEBHOOK_ALLOW`` entry names this machine or a private
    network: ``localhost`` (and ``*.localhost``) or an address literal that is
    not public, however it is written (``127.1``, ``2130706433``, ``[::1]``)."""
    host = host.strip().lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        try:
            # What getaddrinfo would read as an IPv4 address: 127.1, 0x7f000001, ...
            ip = ipaddress.IPv4Address(socket.inet_aton(host))
        except (OSError, ValueError):
            return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_unspecified


def check_safe(config: Mapping[str, Any]) -> None:
    """Refuse to run a process that would be unsafe in public: a missing, known or
    short secret key (sessions and links could be forged), a caught-mail mailbox
    anywhere but on this machine, or no way to send mail for a public address.
    ``pbem demo`` (``DEMO``) is exempt, but only on a loopback base URL; the
    tests (``TESTING``) may catch mail."""
    delay, box = config.get("BOT_DELAY", 0), config.get("BOT_SECONDS", 1)
    if not isinstance(delay, (int, float)) or not 0 <= delay <= 3600:
        raise UnsafeConfig(f"PBEM_BOT_DELAY={delay!r}: the computer's pause must be 0 to 3600 seconds")
    if not isinstance(box, (int, float)) or not 0 < box <= MAX_BOT_SECONDS:
        raise UnsafeConfig(f"PBEM_BOT_SECONDS={box!r}: the hard computer player's time box must be more than 0 "
                           f"and at most {MAX_BOT_SECONDS:g} seconds")
    clock = config.get("CLOCK_SECONDS", 60.0)
    if not isinstance(clock, (int, float)) or not 0.5 <= clock <= 3600:
        raise UnsafeConfig(f"PBEM_CLOCK_SECONDS={clock!r}: the clock runs every 0.5 to 3600 seconds")
    lease = config.get("MAIL_LEASE_SECONDS", 300.0)
    if not isinstance(lease, (int, float)) or not 5 <= lease <= 86400:
        raise UnsafeConfig(f"PBEM_MAIL_LEASE_SECONDS={lease!r}: a worker's claim on a message lasts 5 to 86400 "
                           "seconds")
    presence = config.get("PRESENCE_SECONDS", 90.0)
    if not isinstance(presence, (int, float)) or not 10 <= presence <= 3600:
        raise UnsafeConfig(f"PBEM_PRESENCE_SECONDS={presence!r}: a player counts as present for 10 to 3600 "
                           "seconds after their page last said so")
    nudge = config.get("NUDGE_AFTER_HOURS", 24.0)
    if isinstance(nudge, bool) or not isinstance(nudge, (int, float)) or not 1 <= nudge <= MAX_NUDGE_AFTER_HOURS:
        raise UnsafeConfig(f"PBEM_NUDGE_AFTER_HOURS={nudge!r}: a player may nudge after waiting 1 to "
                           f"{MAX_NUDGE_AFTER_HOURS} hours")
    hold = config.get("LOBBY_HOLD_HOURS", 48)
    if isinstance(hold, bool) or not isinstance(hold, int) or not 1 <= hold <= 24 * 30:
        raise UnsafeConfig(f"PBEM_LOBBY_HOLD_HOURS={hold!r}: a join holds a lobby seat for 1 to 720 hours")
    vacation = config.get("VACATION_DAYS", 14)
    if isinstance(vacation, bool) or not isinstance(vacation, int) or not 0 <= vacation <= MAX_VACATION_DAYS:
        raise UnsafeConfig(f"PBEM_VACATION_DAYS={vacation!r}: a person accrues 0 to {MAX_VACATION_DAYS} vacation "
                           "days a year (a whole number)")
    log_format = config.get("LOG_FORMAT", "text")
    if log_format not in LOG_FORMATS:
        raise UnsafeConfig(f"PBEM_LOG_FORMAT={log_format!r}: expected one of {', '.join(LOG_FORMATS)}")
    wrong = vapid.problem(config)
    if wrong:
        raise UnsafeConfig(wrong)
    if config.get("DEMO"):
        demo_base = str(config.get("BASE_URL") or "")
        if demo_base and not is_loopback(demo_base):
            # The demo runs on the public development key, with a mailbox that shows every link.
            raise UnsafeConfig(f"PBEM_BASE_URL={demo_base} is not on this machine: pbem demo runs on the "
                               "development secret key with a mailbox that shows everyone's links, so it is for a "
                               "loopback address only (to serve the public, see README, Running it in public)")
        return
    key = str(config.get("SECRET_KEY") or "")
    if not key:
        raise UnsafeConfig("PBEM_SECRET_KEY is not set: set it to a random value of at least "
                           f"{MIN_SECRET_KEY_LENGTH} characters (python -c 'import secrets; print(secrets.token_urlsafe(48))')")
    if key == DEV_SECRET_KEY:
        raise UnsafeConfig("PBEM_SECRET_KEY is the development value, which is public: set a random value of "
                           f"at least {MIN_SECRET_KEY_LENGTH} characters")
    if len(key) < MIN_SECRET_KEY_LENGTH:
        raise UnsafeConfig(f"PBEM_SECRET_KEY is {len(key)} characters long: it needs at least "
                           f"{MIN_SECRET_KEY_LENGTH} random characters")
    base = str(config.get("BASE_URL") or "")
    if not base.isascii() or urlsplit(base).scheme not in ("http", "https") or not urlsplit(base).hostname:
        raise UnsafeConfig(f"PBEM_BASE_URL={base!r} is not an http(s) address in ASCII (write an "
                           "international domain name in its xn-- form): every link is built from it")
    local = is_loopback(base)
    if config.get("MAILBOX") and not local:
        raise UnsafeConfig(f"PBEM_MAILBOX is on for the public base URL {config.get('BASE_URL')}: the mailbox "
                           "would show everyone's links; it is only for a loopback PBEM_BASE_URL")
    if not config.get("SMTP_HOST") and not local and not config.get("TESTING"):
        raise UnsafeConfig(f"PBEM_SMTP_HOST is not set: no mail transport for the public base URL "
                           f"{config.get('BASE_URL')}")
    if not config.get("BROKER_URL") and not local and not config.get("TESTING"):
        # Without it mail is built and sent inside the request (a sign-in would
        # take longer for an address that plays here) and each process keeps its
        # own rate-limit counts.
        raise UnsafeConfig(f"PBEM_BROKER_URL is not set: a public service (base URL {config.get('BASE_URL')}) "
                           "needs Redis for its background work and shared rate limits")
    if lease <= DELIVERY_TIME_LIMIT and not local:
        # A live but slow worker's message would be claimed again and sent twice.
        raise UnsafeConfig(f"PBEM_MAIL_LEASE_SECONDS={lease!r} is not longer than a "
                           f"delivery may take ({DELIVERY_TIME_LIMIT:g} s): a slow message would be sent twice")
    metrics_token = str(config.get("METRICS_TOKEN") or "")
    if config.get("METRICS") and not local and len(metrics_token) < MIN_METRICS_TOKEN_LENGTH:
        # The page says how busy the service is and what its mail does: the operator's scraper only.
        raise UnsafeConfig(f"PBEM_METRICS is on for the public base URL {config.get('BASE_URL')} without "
                           f"PBEM_METRICS_TOKEN (at least {MIN_METRICS_TOKEN_LENGTH} random characters): "
                           "anyone could read /metrics; set it, and give it to your scraper as its bearer token")
    local_hooks = [h.strip() for h in str(config.get("WEBHOOK_ALLOW") or "").split(",")
                   if h.strip() and _local_webhook_host(h)]
    # A private setup (a loopback base URL: nothing is public) may post to this machine.
    if local_hooks and not config.get("TESTING") and not local:
        # An allowed host is exempt from the public-address check: any player could post into this network.
        raise UnsafeConfig(f"PBEM_WEBHOOK_ALLOW names {', '.join(local_hooks)}: webhooks to this machine or a "
                           "private network are only for the demo and the tests (name public hosts only)")
    trust = str(config.get("INBOUND_TRUST") or "")
    if trust and not re.fullmatch(r"authres:[!-~]+", trust):
        # A typo here would silently trust nothing (or, worse, be read some other way).
        raise UnsafeConfig(f"PBEM_INBOUND_TRUST={trust!r} is not authres:<authserv-id> (the name your mail "
                           "server writes in its Authentication-Results headers)")
    inbound = str(config.get("INBOUND_HOST") or "")
    if inbound and not is_loopback(f"http://{inbound}") and not config.get("INBOUND_TRUST"):
        # Reachable from anywhere, with nothing to tell a real sender from a forged one.
        raise UnsafeConfig(f"PBEM_INBOUND_HOST={inbound} listens beyond this machine without PBEM_INBOUND_TRUST: "
                           "put pbem inbound behind your mail server (which checks SPF/DKIM/DMARC) and set "
                           "PBEM_INBOUND_TRUST=authres:<its authserv-id>")
