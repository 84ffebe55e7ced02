"""The one place that sends mail: an SMTP adapter, and the demo's mailbox."""

from __future__ import annotations

import io
import smtplib
import ssl
from email.generator import BytesGenerator
from email.message import EmailMessage, Message
from email.policy import EmailPolicy
from functools import lru_cache
from typing import IO, Any, Protocol

from sqlalchemy.engine import Engine

from ..core.db import session_scope
from ..core.models import CaughtMail
from .messages import Mail


@lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    # Loading the system's certificates costs about 20 ms: once per process, not per message.
    return ssl.create_default_context()


class _Generator(BytesGenerator):
    """What ``smtplib.send_message`` writes, byte for byte, except that an image
    part's base64 text goes out in one write: the stock generator writes it line by
    line, 1,400 lines for the board picture (0.8 ms of a notice's 14 ms of CPU)."""

    # The stock generator's own, which typeshed leaves out (as it does _handle_text).
    _fp: IO[bytes]
    _NL: str

    def _handle_image(self, msg: Message) -> None:
        payload = msg.get_payload()
        if (not isinstance(payload, str) or not payload.isascii()
                or str(msg.get("Content-Transfer-Encoding", "")).lower() != "base64"):
            super()._handle_text(msg)  # type: ignore[misc]
            return
        lines = payload.replace("\r\n", "\n").replace("\r", "\n").replace("\n", self._NL)
        self._fp.write(lines.encode("ascii"))


def wire_bytes(message: EmailMessage, *, utf8: bool = False) -> bytes:
    """The email package's flattening of ``message`` as it goes over SMTP (CRLF
    line ends; ``utf8``: headers in UTF-8, for an SMTPUTF8 server).  The adapter
    sends :meth:`pbem.mail.messages.Mail.wire`, the same bytes written directly."""
    out = io.BytesIO()
    policy = message.policy
    assert isinstance(policy, EmailPolicy)  # an EmailMessage's
    _Generator(out, policy=policy.clone(utf8=utf8)).flatten(message, linesep="\r\n")
    return out.getvalue()


class PermanentFailure(Exception):
    """The server refused the message for good (a 5xx answer): retrying won't help."""


class Transport(Protocol):
    def send(self, message: Mail, *, return_path: str | None = None) -> None:
        """Send ``message``; ``return_path``: the envelope sender (``MAIL FROM``),
        where bounces go, when it is not the ``From`` address."""


class SmtpTransport:
    """``smtplib`` with a timeout on every call, STARTTLS and login when configured.
    Raises :class:`PermanentFailure` for 5xx refusals; anything else that goes
    wrong (connection refused, 4xx, time-out) propagates to be retried."""

    def __init__(self, host: str, port: int, *, user: str = "", password: str = "",
                 tls: bool = False, timeout: float = 20.0) -> None:
        self.host, self.port, self.user, self.password = host, port, user, password
        self.tls, self.timeout = tls, timeout

    def send(self, message: Mail, *, return_path: str | None = None) -> None:
        # smtplib.send_message's envelope, for the one sender and recipient
        # pbem's messages have: non-ASCII addresses need an SMTPUTF8 server.
        # The receiving MTA writes the envelope sender into Return-Path: the
        # message itself never carries one.
        sender = return_path or message.sender
        recipients = message.recipients
        international = not all(a.isascii() for a in (sender, *recipients))
        raw = message.wire(utf8=international)
        try:
            with smtplib.SMTP(self.host, self.port, timeout=self.timeout) as smtp:
                if self.tls:
                    smtp.starttls(context=_tls_context())
                if self.user:
                    smtp.login(self.user, self.password)
                smtp.ehlo_or_helo_if_needed()
                options: tuple[str, ...] = ()
                if international:
                    if not smtp.has_extn("smtputf8"):
                        wide = [a for a in (sender, *recipients) if not a.isascii()]
                        raise PermanentFailure(f"the server does not take non-ASCII addresses (SMTPUTF8): "
                                               f"{', '.join(wide)}")
                    options = ("SMTPUTF8", "BODY=8BITMIME")
                elif not raw.isascii() and smtp.has_extn("8bitmime"):
                    # Text with letters beyond ASCII goes as 8-bit (the email policy's
                    # choice, and every server's habit): declare it where we can (RFC 6152).
                    options = ("BODY=8BITMIME",)
                smtp.sendmail(sender, recipients, raw, mail_options=options)
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

    def send(self, mail: Mail, *, return_path: str | None = None) -> None:
        # Nothing bounces from the mailbox: the return path has nowhere to go.
        message = mail.to_message()
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
