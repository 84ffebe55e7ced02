"""How the service's processes log: one line per event, as plain text (the
default) or as one JSON object a line (``PBEM_LOG_FORMAT=json``) for a log
collector.

The code never logs a seat token, a person's address or a clan; the
formatters mask addresses and the tokens of links all the same, because a
library's message (an SMTP server's refusal quotes the address it refused, a
development server logs every path it served) is not ours to word."""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import datetime, timezone
from typing import Any, Mapping

from .config import LOG_FORMATS as FORMATS

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

# The local part of an address goes; its domain stays (it tells an operator which
# mail provider refused, and names nobody).
_ADDRESS = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@(?=[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)")
# Secrets in paths: seat links, sign-in links, unsubscribe and "never" links.
_LINK_TOKEN = re.compile(r"(/(?:play|signin|unsubscribe/daily|unsubscribe|never|calendar|api/v1/seat)/)[A-Za-z0-9_~.-]{12,}")
_BEARER = re.compile(r"(Bearer\s+)[^\s\"',]+", re.IGNORECASE)
# A whole address's path and query: a chat service's webhook address is its
# password (discord.com/api/webhooks/ID/TOKEN, hooks.slack.com/services/...).
_URL_PATH = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^\s/\"'<>]+)/[^\s\"'<>]*", re.IGNORECASE)


def redact(text: str) -> str:
    """``text`` with addresses' local parts and link tokens masked.

    >>> redact("550 <ann@example.org> refused; GET /play/Zq3kP1x0abcdEFGH12 200")
    '550 <***@example.org> refused; GET /play/*** 200'
    >>> redact("posting to https://discord.com/api/webhooks/123/s3cr3T?wait=1 failed")
    'posting to https://discord.com/*** failed'
    """
    text = _ADDRESS.sub("***@", text)
    text = _URL_PATH.sub(r"\1/***", text)
    text = _LINK_TOKEN.sub(r"\1***", text)
    return _BEARER.sub(r"\1***", text)


#: Access-log atoms (gunicorn's ``%({name}i)s`` request and ``%({name}o)s``
#: response headers) that are credentials whole: never written, whatever the format.
_SECRET_ATOMS = frozenset({"{cookie}i", "{authorization}i", "{proxy-authorization}i", "{set-cookie}o"})


def redact_access(atoms: Mapping[str, Any]) -> dict[str, Any]:
    """gunicorn's access-log atoms (the request line ``r``, path ``U``, query
    ``q``, referer ``f``, headers ...) with every text :func:`redact`-ed and the
    credential headers replaced by ``***``: ``GET /play/<token>`` is logged as
    ``GET /play/***``, whatever ``--access-logformat`` the operator chose
    (``pbem.gunicorn_conf`` installs it).

    >>> redact_access({"r": "GET /play/Zq3kP1x0abcdEFGH12 HTTP/1.1", "s": "200", "{cookie}i": "session=x", "B": 5})
    {'r': 'GET /play/*** HTTP/1.1', 's': '200', '{cookie}i': '***', 'B': 5}
    """
    return {k: "***" if k.lower() in _SECRET_ATOMS else redact(v) if isinstance(v, str) else v
            for k, v in atoms.items()}


#: The kinds of address the service receives mail at (``pbem.inbound.addresses``):
#: a log may say which kind, never the token after the ``+``.
_OUR_KINDS = ("move", "talk", "bounce")


def shown_address(address: object) -> str:
    """An address as a log line may name it: its domain, and for one of the
    service's own addresses its kind.

    >>> shown_address("move+k3j4h5g6f7d8s9a0@in.example"), shown_address("ann@example.org")
    ('move+***@in.example', '***@example.org')
    """
    local, at, domain = str(address or "").rpartition("@")
    if not at:
        return "***" if local or domain else ""
    kind = local.split("+", 1)[0].lower() if "+" in local else ""
    return f"{kind}+***@{domain}" if kind in _OUR_KINDS else f"***@{domain}"


def _game(record: logging.LogRecord) -> str | None:
    game = getattr(record, "game", None)
    return None if game is None else str(game)


class TextFormatter(logging.Formatter):
    """``time LEVEL logger: message``, with ``[game ID]`` when the line is about one."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        game = _game(record)
        if game is not None and f"game {game}" not in line:
            line = f"{line} [game {game}]"
        return redact(line)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time``, ``level``, ``logger``, ``message``, and
    ``game`` (the game's public id) and ``exception`` when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        game = _game(record)
        if game is not None:
            out["game"] = game
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            out["exception"] = record.exc_text
        return redact(json.dumps(out, ensure_ascii=False))


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a line is written (a test runner
    or a daemonizing server may have replaced it since the handler was made)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def formatter(name: str) -> logging.Formatter:
    if name not in FORMATS:
        raise ValueError(f"PBEM_LOG_FORMAT={name!r}: expected one of {', '.join(FORMATS)}")
    return JsonFormatter() if name == "json" else TextFormatter()


def configure(config: Mapping[str, Any], *, force: bool = False) -> bool:
    """Give the root logger a handler to standard error in the configured
    format, unless it has one already (an operator's own logging setup, or a test
    runner's) or ``force``.  Safe to call in every process and more than once.
    Returns whether it configured anything."""
    root = logging.getLogger()
    ours = [h for h in root.handlers if isinstance(h, _StderrHandler)]
    if root.handlers and not ours and not force:
        return False
    for handler in ours:
        root.removeHandler(handler)
    handler = _StderrHandler()
    handler.setFormatter(formatter(str(config.get("LOG_FORMAT") or "text")))
    root.addHandler(handler)
    if root.level == logging.WARNING or force:
        root.setLevel(logging.INFO)
    # aiosmtpd logs every SMTP command, addresses included; the receiver logs
    # what it stores and refuses.
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    return True
