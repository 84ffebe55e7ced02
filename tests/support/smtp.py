"""A real SMTP server for the tests: aiosmtpd on 127.0.0.1 and a free port,
collecting every message it accepts (and refusing on demand).  The ``smtp``
fixture (tests/conftest.py) starts one for a test."""

from __future__ import annotations

import email
import email.policy
import socket
import threading
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

from tests.support.config import app_config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage
    mail_options: list[str] = field(default_factory=list)
    #: The message's bytes as the server received them.
    raw: bytes = b""
    #: The client's address and port: one per connection.
    peer: Any = None

    @property
    def kind(self) -> str:
        return str(self.message["X-PBEM-Kind"])

    @property
    def to(self) -> str:
        return self.rcpt_tos[0]


@dataclass
class Collector:
    """The aiosmtpd handler: keeps what it accepts; ``refuse`` (e.g. ``"451 ..."``)
    makes it answer DATA with that instead."""

    received: list[Received] = field(default_factory=list)
    refuse: str | None = None
    refused: int = 0
    #: The client's address and port of each refusal.
    refused_peers: list[Any] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.refuse:
            with self.lock:
                self.refused += 1
                self.refused_peers.append(session.peer)
            return self.refuse
        raw = envelope.original_content or envelope.content
        message = email.message_from_bytes(raw, policy=email.policy.default)
        with self.lock:
            self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos), message,  # type: ignore[arg-type]
                                          list(envelope.mail_options), bytes(raw), session.peer))
        return "250 OK"

    def messages(self, to: str | None = None, kind: str | None = None) -> list[Received]:
        with self.lock:
            got = list(self.received)
        return [r for r in got if (to is None or to in r.rcpt_tos) and (kind is None or r.kind == kind)]

    def wait_for(self, count: int, timeout: float = 20.0, **match: Any) -> list[Received]:
        """Wait until at least ``count`` messages matching ``match`` arrived."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.messages(**match)
            if len(got) >= count:
                return got
            time.sleep(0.05)
        raise AssertionError(f"expected {count} messages {match}, got {len(self.messages(**match))}")


class SmtpServer:
    def __init__(self, *, smtputf8: bool = False) -> None:
        self.host = "127.0.0.1"
        self.port = free_port()
        self.smtputf8 = smtputf8
        self.collector = Collector()
        self.controller: Controller | None = None

    def start(self) -> None:
        self.controller = Controller(self.collector, hostname=self.host, port=self.port,
                                     enable_SMTPUTF8=self.smtputf8)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def config(self, database_url: str, **extra: Any) -> dict[str, Any]:
        return app_config(database_url, SMTP_HOST=self.host, SMTP_PORT=self.port, MAILBOX=False,
                          SMTP_TIMEOUT=5.0, **extra)
