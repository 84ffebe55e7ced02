"""The messages of the tests: the ones the mailbox caught, a message's parts, and
a sign-in message built as the service builds one."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from email.utils import parseaddr
from typing import Any

from sqlmodel import col, select

from pbem.core.db import session_scope
from pbem.mail import messages
from pbem.core.models import CaughtMail

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40


def login_mail(recipient: str = "zoe@example.org", *, name: str = "abc",
               message_id: str = "<1.login@clans.example>", picture: bytes | None = PNG) -> messages.Mail:
    """A sign-in mail (its templates need the least context; its text and HTML carry
    ``name`` in the link), with ``picture`` as if it were a board.  ``recipient``
    may be written ``Name <address>``: the envelope gets the address alone, as the
    outbox stores it (the To header names nobody but the address)."""
    envelope = messages.Envelope(sender="Clans <clans@clans.example>", recipient=parseaddr(recipient)[1],
                                 message_id=message_id, kind="login")
    context = {"link": f"https://clans.example/login/{name}", "minutes": 30,
               "base_url": "https://clans.example", "kind": "login"}
    return messages.mail(envelope, context, picture=picture)


def login_message(recipient: str = "zoe@example.org", *, name: str = "abc",
                  message_id: str = "<1.login@clans.example>", picture: bytes | None = PNG) -> EmailMessage:
    """:func:`login_mail` in the email package's model."""
    return login_mail(recipient, name=name, message_id=message_id, picture=picture).to_message()


def caught(ctx: Any, recipient: str | None = None, kind: str | None = None) -> list[EmailMessage]:
    """The messages the mailbox caught, oldest first."""
    with session_scope(ctx.engine) as session:
        query = select(CaughtMail).order_by(col(CaughtMail.id))
        if kind is not None:  # in the query: a game's mail holds many board pictures
            query = query.where(CaughtMail.kind == kind)
        rows = session.exec(query).all()
        raws = [(r.recipient, r.kind, r.raw) for r in rows]
    out = []
    for to, k, raw in raws:
        if recipient is not None and recipient not in to:
            continue
        if kind is not None and k != kind:
            continue
        out.append(email.message_from_string(raw, policy=email.policy.default))
    return out  # type: ignore[return-value]


def caught_count(ctx: Any, recipient: str, kind: str) -> int:
    """How many messages of ``kind`` to ``recipient`` the mailbox caught (none is parsed)."""
    with session_scope(ctx.engine) as session:
        return len(session.exec(select(CaughtMail.id).where(
            CaughtMail.kind == kind, col(CaughtMail.recipient).contains(recipient))).all())


def newest(ctx: Any, recipient: str, kind: str) -> EmailMessage | None:
    """The newest caught message of ``kind`` to ``recipient`` (only it is read and parsed)."""
    with session_scope(ctx.engine) as session:
        row = session.exec(select(CaughtMail).where(CaughtMail.kind == kind, col(CaughtMail.recipient).contains(recipient))
                           .order_by(col(CaughtMail.id).desc()).limit(1)).first()
        raw = row.raw if row is not None else None
    return None if raw is None else email.message_from_string(raw, policy=email.policy.default)  # type: ignore[return-value]


def parts(message: EmailMessage) -> dict[str, Any]:
    """The text, the HTML and the inline pictures (by Content-ID) of a message."""
    out: dict[str, Any] = {"text": None, "html": None, "images": {}}
    for part in message.walk():
        ctype = part.get_content_type()
        if part.is_multipart():
            continue
        if ctype == "text/plain":
            out["text"] = part.get_content()
        elif ctype == "text/html":
            out["html"] = part.get_content()
        elif ctype.startswith("image/"):
            out["images"][str(part["Content-ID"]).strip("<>")] = (ctype, part.get_content())
    return out
