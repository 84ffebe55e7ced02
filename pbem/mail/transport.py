"""The one place that sends mail: an SMTP adapter, and the demo's mailbox."""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from functools import lru_cache
from typing import Any, Protocol

from sqlalchemy.engine import Engine

from ..db import session_scope
from ..models import CaughtMail


@lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    # Loading the system's certificates costs about 20 ms: once per process, not per message.
    return ssl.create_default_context()


class PermanentFailure(Exception):
    """The server refused the message for good (a 5xx answer): retrying won't help."""


class Transport(Protocol):
    def send(self, message: EmailMessage) -> None: ...


class SmtpTransport:
    """``smtplib`` with a timeout on every call, STARTTLS and login when configured.
    Raises :class:`PermanentFailure` for 5xx refusals; anything else that goes
    wrong (connection refused, 4xx, time-out) propagates to be retried."""

    def __init__(self, host: str, port: int, *, user: str = "", password: str = "",
                 tls: bool = False, timeout: float = 20.0) -> None:
        self.host, self.port, self.user, self.password = host, port, user, password
        self.tls, self.timeout = tls, timeout

    def send(self, message: EmailMessage) -> None:
        try:
            with smtplib.SMTP(self.host, self.port, timeout=self.timeout) as smtp:
                if self.tls:
                    smtp.starttls(context=_tls_context())
                if self.user:
                    smtp.login(self.user, self.password)
                smtp.send_message(message)
        except smtplib.SMTPRecipientsRefused as e:
            codes = [code for code, _ in e.recipients.values()]
            if all(500 <= c < 600 for c in codes):
                raise PermanentFailure(f"recipient refused: {e.recipients}") from e
            raise
        except smtplib.SMTPResponseException as e:
            if 500 <= e.smtp_code < 600 and not isinstance(e, smtplib.SMTPAuthenticationError):
                raise PermanentFailure(f"{e.smtp_code} {e.smtp_error!r}") from e
            raise


class MailboxTransport:
    """Keeps every message in the database, for ``/mailbox`` (demo and tests)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def send(self, message: EmailMessage) -> None:
        with session_scope(self.engine) as session:
            session.add(CaughtMail(
                recipient=str(message["To"]), subject=str(message["Subject"]),
                kind=str(message["X-PBEM-Kind"]), message_id=str(message["Message-ID"]),
                raw=message.as_string(),
            ))


def transport_for(config: dict[str, Any], engine: Engine) -> Transport:
    if config["SMTP_HOST"]:
        return SmtpTransport(config["SMTP_HOST"], int(config["SMTP_PORT"]), user=config["SMTP_USER"],
                             password=config["SMTP_PASSWORD"], tls=bool(config["SMTP_TLS"]),
                             timeout=float(config["SMTP_TIMEOUT"]))
    return MailboxTransport(engine)
