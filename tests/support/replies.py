"""Replies to the service's mail as a player's mail client writes them, stored
as the receiver stores them (an ``Inbound`` row), and the answers they get."""

from __future__ import annotations

import itertools
import re
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

from pbem.inbound import replies
from pbem.core import tokens
from pbem.core.db import session_scope
from pbem.core.models import Inbound
from tests.support.messages import caught, newest

ANSWERS = ("reply-accepted", "reply-refused", "reply-confirm")
_ids = itertools.count(1)


def turn_mail(ctx: Any, address: str) -> EmailMessage:
    """The newest turn mail sent to ``address``."""
    mail = newest(ctx, address, "turn")
    assert mail is not None, f"no turn mail for {address}"
    return mail


def reply_message(turn: EmailMessage, body: str, *, sender: str, to: str | None = None,
                  html_body: str | None = None, headers: dict[str, str] | None = None,
                  threaded: bool = True) -> EmailMessage:
    """A reply to ``turn`` as a mail client writes it."""
    reply = EmailMessage()
    reply["From"] = sender
    reply["To"] = to or str(turn["Reply-To"])
    reply["Subject"] = "Re: " + str(turn["Subject"])
    reply["Message-ID"] = make_msgid(str(next(_ids)), domain="client.example")
    if threaded:
        reply["In-Reply-To"] = str(turn["Message-ID"])
        reply["References"] = f"{turn['References']} {turn['Message-ID']}"
    for name, value in (headers or {}).items():
        reply[name] = value
    if body:
        reply.set_content(body)
        if html_body is not None:
            reply.add_alternative(html_body, subtype="html")
    elif html_body is not None:
        reply.set_content(html_body, subtype="html")
    return reply


def store(ctx: Any, message: EmailMessage, *, recipient: str | None = None, sender: str | None = None) -> int:
    """Store a message as the receiver does: the raw bytes with CRLF line ends,
    the envelope's sender and recipient."""
    raw = message.as_bytes(policy=message.policy.clone(linesep="\r\n"))
    with session_scope(ctx.engine) as session:
        row = Inbound(message_key=str(message["Message-ID"]) or tokens.digest(raw.decode("latin-1")),
                      recipient=recipient if recipient is not None else str(message["To"]),
                      sender=sender if sender is not None else _address(str(message["From"])), raw=raw,
                      received_at=ctx.now())
        session.add(row)
        session.flush()
        assert row.id is not None
        return row.id


def _address(header: str) -> str:
    m = re.search(r"<([^<>]+)>", header)
    return m.group(1) if m else header.strip()


def answers(ctx: Any, address: str | None = None) -> list[EmailMessage]:
    return [m for m in caught(ctx, address) if str(m["X-PBEM-Kind"]) in ANSWERS]


def reply_and_handle(ctx: Any, address: str, body: str, **options: Any) -> tuple[str, int]:
    """The player at ``address`` replies to their newest turn mail; the outcome and the inbound id."""
    store_options = {k: options.pop(k) for k in ("recipient", "sender") if k in options}
    message = reply_message(turn_mail(ctx, address), body, sender=options.pop("sender_header", address), **options)
    inbound_id = store(ctx, message, **store_options)
    return replies.handle_reply(ctx, inbound_id), inbound_id


