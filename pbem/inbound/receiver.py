"""The one place mail comes in: an aiosmtpd handler speaking SMTP, or LMTP
behind the operator's mail server (``pbem inbound``; ``pbem demo`` runs one
in-process).

- RCPT: only live addresses of the service (:func:`pbem.inbound.store.accept_recipient`);
  anything else ``550 5.1.1`` there and then, so nothing is ever bounced to a
  forged sender.  ``451`` if the database cannot be asked.
- SIZE ``INBOUND_MAX_BYTES`` is advertised; a bigger message is refused ``552``.
- DATA: a header block over :data:`MAX_HEADER_BYTES` is refused ``552``; a
  message whose MIME structure is beyond the bounds of
  :mod:`pbem.inbound.structure` (parts, nesting, a part's fields, parameters)
  ``554 5.6.0``, before it is stored or parsed: parsing such a message would
  cost a worker seconds to minutes of CPU.
- DATA: the raw message is stored (:func:`pbem.inbound.store.store`) and
  committed *before* the ``250``; if it could not be, ``451 4.3.0`` and the
  sender's server tries again.  The new rows are then handed to ``relay``
  (the Celery task) without waiting for it: a broker that is down delays
  nothing and loses nothing, the sweep finds the rows.
- LMTP answers DATA once per recipient, as the protocol requires.

The database calls block, so they run on the loop's thread pool."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable, Iterable

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session

from ..core.context import Context
from ..core.logs import shown_address
from . import addresses
from .store import accept_recipient, store
from .structure import problem

log = logging.getLogger(__name__)

#: Recipients in one transaction: the service's mail has one, a reply copied to
#: the table two; more is someone trying addresses.
MAX_RECIPIENTS = 10

OK = "250 2.0.0 Stored"
TRY_LATER = "451 4.3.0 Temporary failure, try again later"
NO_SUCH_USER = "550 5.1.1 No such recipient here"
TOO_MANY = "452 4.5.3 Too many recipients"
HEADERS_TOO_BIG = "552 5.3.4 Message headers too large"
#: The largest header block taken: a reply's headers are a few kilobytes, and
#: Python's header parser takes time that grows with the square of a header's
#: length (200 KB of one folded To: is a minute of a worker's CPU).
MAX_HEADER_BYTES = 32 * 1024
TOO_COMPLEX = "554 5.6.0 Message structure too complex (too many parts, too deeply nested or too many fields)"


class Receiver:
    """The aiosmtpd handler: thin, the decisions are in :mod:`pbem.inbound.store`."""

    def __init__(self, ctx: Context, relay: Callable[[Iterable[int]], None], *, lmtp: bool = False) -> None:
        self.ctx = ctx
        self.relay = relay
        self.lmtp = lmtp

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope, address: str,
                          rcpt_options: list[str]) -> str:
        if len(envelope.rcpt_tos) >= MAX_RECIPIENTS:
            return TOO_MANY
        try:
            live = await asyncio.get_running_loop().run_in_executor(None, accept_recipient, self.ctx, address)
        except Exception:  # noqa: BLE001 - the database is down: the sender's server retries
            log.exception("inbound: could not check recipient %s", shown_address(address))
            return TRY_LATER
        if not live:
            log.info("inbound: refused recipient %s (from %s)", shown_address(address),
                     shown_address(envelope.mail_from))
            return NO_SUCH_USER
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content
        if raw is None:  # pragma: no cover - aiosmtpd always sets it after DATA
            return TRY_LATER
        if header_bytes(raw) > MAX_HEADER_BYTES:
            log.warning("inbound: refused a message with %d bytes of headers", header_bytes(raw))
            return self._all(envelope, HEADERS_TOO_BIG)
        loop = asyncio.get_running_loop()
        # Linear in the size and a few milliseconds for the largest, but off the loop all the same.
        found = await loop.run_in_executor(None, problem, raw)
        if found is not None:
            log.warning("inbound: refused a message from <%s> (%d bytes): its structure is too complex (%s)",
                        shown_address(envelope.mail_from or ""), len(raw), found)
            return self._all(envelope, TOO_COMPLEX)
        # aiosmtpd gives the null sender (a bounce's, an auto-reply's) as "<>".
        sender = "" if envelope.mail_from in (None, "", "<>") else str(envelope.mail_from)
        answers, new = [], []
        for recipient in envelope.rcpt_tos:
            try:
                row = await loop.run_in_executor(None, store, self.ctx, recipient, sender, raw)
            except Exception:  # noqa: BLE001 - not stored, so not accepted: the sender's server retries
                log.exception("inbound: could not store a message for %s", shown_address(recipient))
                answers.append(TRY_LATER)
                continue
            answers.append(OK)
            if row is not None:
                new.append(row)
                log.info("inbound %s: %d bytes from <%s> to %s", row, len(raw), shown_address(sender),
                         shown_address(recipient))
            else:
                log.info("inbound: a message to %s was stored before (a retry)", shown_address(recipient))
        if new:
            # Not awaited: the answer does not wait for the broker.
            loop.run_in_executor(None, self._hand_on, new)
        if self.lmtp:
            return "\r\n".join(answers)
        # SMTP has one answer for all: "try again" for all if any was not stored
        # (the ones that were are recognised as twins when it comes again).
        return OK if all(a == OK for a in answers) else TRY_LATER

    def _all(self, envelope: Envelope, answer: str) -> str:
        """One answer for every recipient (LMTP answers each)."""
        return "\r\n".join([answer] * len(envelope.rcpt_tos)) if self.lmtp else answer

    def _hand_on(self, ids: list[int]) -> None:
        try:
            self.relay(ids)
        except Exception:  # noqa: BLE001 - the rows are pending: the sweep hands them on
            log.exception("inbound %s left for the sweep", ", ".join(map(str, ids)))


class _Controller(Controller):
    def __init__(self, handler: Receiver, **kwargs: Any) -> None:
        self.lmtp = handler.lmtp
        super().__init__(handler, **kwargs)

    def factory(self) -> SMTP:
        return (LMTP if self.lmtp else SMTP)(self.handler, **self.SMTP_kwargs)


def receiver(ctx: Context, relay: Callable[[Iterable[int]], None], *, host: str | None = None,
             port: int | None = None, lmtp: bool | None = None) -> Controller:
    """The receiver for this context, not started yet (``.start()``, ``.stop()``):
    on ``INBOUND_HOST``:``INBOUND_PORT``, LMTP if ``INBOUND_LMTP``, unless given."""
    config = ctx.config
    handler = Receiver(ctx, relay, lmtp=bool(config["INBOUND_LMTP"] if lmtp is None else lmtp))
    return _Controller(
        handler, hostname=host or str(config["INBOUND_HOST"]),
        port=int(config["INBOUND_PORT"] if port is None else port),
        server_hostname=addresses.domain(config), ident="Clans by Mail",
        data_size_limit=int(config["INBOUND_MAX_BYTES"]), enable_SMTPUTF8=True)


def describe(controller: Controller) -> str:
    """E.g. ``smtp://127.0.0.1:2525`` (``lmtp://`` for LMTP)."""
    handler: Receiver = controller.handler
    return f"{'lmtp' if handler.lmtp else 'smtp'}://{controller.hostname}:{controller.port}"



def header_bytes(raw: bytes) -> int:
    """The length of a message's header block (all of it, if it has no body).

    >>> header_bytes(b"Subject: hi\\r\\n\\r\\nbody"), header_bytes(b"Subject: hi\\n\\nbody")
    (12, 12)
    """
    ends = [i for i in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if i >= 0]
    return min(ends) + 1 if ends else len(raw)
