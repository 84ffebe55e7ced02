"""The one place that sends mail: an SMTP adapter, and the demo's mailbox."""

from __future__ import annotations

import io
import os
import smtplib
import ssl
import threading
import time
from email.generator import BytesGenerator
from email.message import EmailMessage, Message
from email.policy import EmailPolicy
from functools import lru_cache
from typing import IO, TYPE_CHECKING, Any, Protocol

from sqlalchemy.engine import Engine

from ..core.db import session_scope
from ..core.models import CaughtMail
from .messages import Mail

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


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


class _Smtp(smtplib.SMTP):
    """``smtplib.SMTP`` whose DATA doubles a line's leading dot (RFC 5321
    4.5.2) with ``bytes.replace``: smtplib's regular expression took 1.3 ms of
    CPU for a turn notice of 240 KB, more than the rest of its conversation."""

    def data(self, msg: ReadableBuffer | str) -> tuple[int, bytes]:
        if not isinstance(msg, bytes):  # never ours: smtplib's own handling
            return super().data(msg)
        self.putcmd("data")
        code, reply = self.getreply()
        if code != 354:
            raise smtplib.SMTPDataError(code, reply)
        stuffed = dot_stuffed(msg)
        self.send(b"".join((stuffed, b"" if stuffed.endswith(b"\r\n") else b"\r\n", b".\r\n")))
        return self.getreply()


def dot_stuffed(data: bytes) -> bytes:
    """``data`` with a dot put before each dot that starts a line: smtplib's
    ``re.sub(br'(?m)^\\.', b'..', data)`` (a line starts after ``\\n``)."""
    stuffed = data.replace(b"\n.", b"\n..")
    return b"." + stuffed if stuffed.startswith(b".") else stuffed


class PermanentFailure(Exception):
    """The server refused the message for good (a 5xx answer): retrying won't help."""


class Transport(Protocol):
    def send(self, message: Mail, *, return_path: str | None = None) -> None:
        """Send ``message``; ``return_path``: the envelope sender (``MAIL FROM``),
        where bounces go, when it is not the ``From`` address."""


#: A connection kept open is used again for the next message within this many
#: seconds (after an RSET, which also tells one the server has closed); an older
#: one is closed and a new one opened: a server or a firewall may have dropped it
#: without a word, and a reply that never comes would hold the worker for the
#: timeout.
KEEP_SECONDS = 5.0
#: Connections kept open by one transport (one per thread sending at once).
KEEP_CONNECTIONS = 4
#: How long an older connection's QUIT waits for the server's answer.
STALE_QUIT_SECONDS = 1.0


class SmtpTransport:
    """``smtplib`` with a timeout on every call, STARTTLS and login when configured.
    Raises :class:`PermanentFailure` for 5xx refusals; anything else that goes
    wrong (connection refused, 4xx, time-out) propagates to be retried.

    With ``keep_open`` (a worker's, :func:`transport_for`) the connection stays
    open for the next message: connecting, EHLO, STARTTLS and the login cost more
    CPU than a notice's SMTP conversation itself.  A connection that failed in any
    way is closed, never used again; one a forked process inherited is its
    parent's, never used by the child."""

    def __init__(self, host: str, port: int, *, user: str = "", password: str = "",
                 tls: bool = False, timeout: float = 20.0, keep_open: bool = False) -> None:
        self.host, self.port, self.user, self.password = host, port, user, password
        self.tls, self.timeout, self.keep_open = tls, timeout, keep_open
        self._idle: list[tuple[smtplib.SMTP, float]] = []  # (connection, when it was last used)
        self._lock = threading.Lock()
        self._pid = os.getpid()

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
            if not self.keep_open:
                with self._connect() as smtp:
                    _transaction(smtp, sender, recipients, raw, international)
                return
            smtp = self._kept() or self._connect()
            try:
                _transaction(smtp, sender, recipients, raw, international)
            except BaseException:
                _close(smtp)
                raise
            self._keep(smtp)
        except smtplib.SMTPRecipientsRefused as e:
            codes = [code for code, _ in e.recipients.values()]
            if all(500 <= c < 600 for c in codes):
                raise PermanentFailure(f"recipient refused: {e.recipients}") from e
            raise
        except smtplib.SMTPResponseException as e:
            if 500 <= e.smtp_code < 600 and not isinstance(e, smtplib.SMTPAuthenticationError):
                raise PermanentFailure(f"{e.smtp_code} {e.smtp_error!r}") from e
            raise

    def _connect(self) -> smtplib.SMTP:
        smtp = _Smtp(self.host, self.port, timeout=self.timeout)
        try:
            if self.tls:
                smtp.starttls(context=_tls_context())
            if self.user:
                smtp.login(self.user, self.password)
            smtp.ehlo_or_helo_if_needed()
        except BaseException:
            _close(smtp)
            raise
        return smtp

    def _kept(self) -> smtplib.SMTP | None:
        """A connection kept open, reset and answering, or ``None``."""
        with self._lock:
            if self._pid != os.getpid():
                self._forget()
            kept = self._idle.pop() if self._idle else None
        if kept is None:
            return None
        smtp, since = kept
        if time.monotonic() - since > KEEP_SECONDS:
            _close(smtp, wait=STALE_QUIT_SECONDS)
            return None
        try:
            if smtp.rset()[0] == 250:
                return smtp
        except (smtplib.SMTPException, OSError):
            pass
        smtp.close()  # it did not answer: nothing more to say to it
        return None

    def _keep(self, smtp: smtplib.SMTP) -> None:
        with self._lock:
            if self._pid == os.getpid() and len(self._idle) < KEEP_CONNECTIONS:
                self._idle.append((smtp, time.monotonic()))
                return
        _close(smtp)

    def _forget(self) -> None:
        # A forked child's copies of its parent's sockets: closed here (the
        # parent's stay open), without a QUIT that would end the parent's session.
        for smtp, _ in self._idle:
            smtp.close()
        self._idle.clear()
        self._pid = os.getpid()

    def close(self) -> None:
        """Close the connections kept open (QUIT, then close)."""
        with self._lock:
            if self._pid != os.getpid():
                self._forget()
            idle, self._idle = self._idle, []
        for smtp, _ in idle:
            _close(smtp)


def _transaction(smtp: smtplib.SMTP, sender: str, recipients: list[str], raw: bytes, international: bool) -> None:
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


def _close(smtp: smtplib.SMTP, *, wait: float | None = None) -> None:
    """QUIT if the server still listens (waiting ``wait`` seconds at most for
    its answer, if given), then close, whatever went wrong before."""
    try:
        if wait is not None and smtp.sock is not None:
            smtp.sock.settimeout(wait)
        smtp.quit()
    except (smtplib.SMTPException, OSError):
        smtp.close()


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


#: The SMTP transports of this process, by their settings: each keeps its
#: connections open for the next message (the few most recent settings only).
_SHARED: dict[tuple[Any, ...], SmtpTransport] = {}
_SHARED_LOCK = threading.Lock()
_SHARED_MOST = 4


def _new_locks_in_child() -> None:
    # A lock that another thread of the parent held at the fork would stay held
    # in the child for ever; the child's transports start with fresh ones (their
    # connections are dropped at first use: see SmtpTransport._forget).
    global _SHARED_LOCK
    _SHARED_LOCK = threading.Lock()
    for transport in _SHARED.values():
        transport._lock = threading.Lock()


os.register_at_fork(after_in_child=_new_locks_in_child)


def transport_for(config: dict[str, Any], engine: Engine) -> Transport:
    """The configured transport: SMTP (one per process and settings, its
    connection kept open between messages) or the mailbox."""
    if not config["SMTP_HOST"]:
        return MailboxTransport(engine)
    settings = (config["SMTP_HOST"], int(config["SMTP_PORT"]), config["SMTP_USER"], config["SMTP_PASSWORD"],
                bool(config["SMTP_TLS"]), float(config["SMTP_TIMEOUT"]))
    with _SHARED_LOCK:
        transport = _SHARED.pop(settings, None)
        if transport is None:
            host, port, user, password, tls, timeout = settings
            transport = SmtpTransport(host, port, user=user, password=password, tls=tls, timeout=timeout,
                                      keep_open=True)
        _SHARED[settings] = transport  # the newest last
        dropped = [_SHARED.pop(k) for k in list(_SHARED)[:-_SHARED_MOST]]
    for old in dropped:
        old.close()
    return transport


def close_connections() -> None:
    """Close every SMTP connection this process keeps open (a worker stopping)."""
    with _SHARED_LOCK:
        transports = list(_SHARED.values())
    for transport in transports:
        transport.close()
