"""A received message as the reply handlers read it: parsed (:func:`parse`, the
one full parse; the receiver and :mod:`pbem.inbound.structure` bound what it
costs), its headers read leniently (a header too broken to read is none), its
Message-ID, and what its reply says (:func:`read`)."""

from __future__ import annotations

import email
import email.policy
import re
from email.message import Message

from . import guard, message_text, reading

#: A Message-ID as it is read: one ``<left@right>``, bounded.
MESSAGE_ID = re.compile(r"<[!-;=?-~]{1,200}@[!-;=?-~]{1,200}>")


def parse(raw: bytes) -> Message:
    return email.message_from_bytes(raw, policy=email.policy.default)


def headers(message: Message, name: str) -> list[str]:
    """Every value of a header as text; a header too broken to read is left out."""
    out = []
    for value in message.get_all(name) or []:
        try:
            out.append(str(value))
        except Exception:  # noqa: BLE001 - a malformed header is no header
            continue
    return out


def header(message: Message, name: str) -> str:
    values = headers(message, name)
    return values[0] if values else ""


def read(message: Message, sent: guard.Sent | None = None) -> reading.Reply:
    return reading.read_reply(message_text.reply_text(message), sent)


def message_id(message: Message) -> str | None:
    text = header(message, "Message-ID").strip()
    return text if MESSAGE_ID.fullmatch(text) else None
