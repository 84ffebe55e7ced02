"""The service's own mail addresses on ``INBOUND_DOMAIN`` (pure: no database).

- ``move+TOKEN@`` — a turn mail's reply address (a :class:`pbem.core.models.ReplyToken`);
- ``talk+TOKEN@`` — a table-talk mail's reply address (the same kind of token);
- ``bounce+TAG@`` — the return path (VERP) of an outbox row: its id encrypted
  (``pbem.inbound.bounces.bounce_tag``), or, in mail sent before, the plain id;
- ``move@`` and ``talk@`` — the same with the ``+tag`` dropped by a mail
  client: the worker finds the turn through ``In-Reply-To``/``References``.

The word before the ``+`` is matched without regard to case (some systems
change it); the tag is not (a token is case-sensitive).

>>> parse("Move+abcdefghijklmnopqrstuvwxyz@Clans.Example", "clans.example")
Recipient(kind=<AddressKind.MOVE: 'move'>, tag='abcdefghijklmnopqrstuvwxyz')
>>> parse("bounce+42@clans.example", "clans.example")
Recipient(kind=<AddressKind.BOUNCE: 'bounce'>, tag='42')
>>> parse("talk@clans.example", "clans.example")
Recipient(kind=<AddressKind.TALK: 'talk'>, tag=None)
>>> [parse(a, "clans.example") for a in ("move+short@clans.example", "bounce@clans.example",
...                                      "bounce+4x@clans.example", "postmaster@clans.example",
...                                      "move@other.example")]
[None, None, None, None, None]
>>> address(AddressKind.BOUNCE, "42", "clans.example")
'bounce+42@clans.example'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Mapping
from urllib.parse import urlsplit

from ..core.tokens import well_formed


class AddressKind(StrEnum):
    """The word before the ``+``: what mail to the address is."""

    #: A reply to a turn mail.
    MOVE = "move"
    #: A reply to table talk.
    TALK = "talk"
    #: A delivery report (the return path).
    BOUNCE = "bounce"


_LOCAL = re.compile(rf"({'|'.join(AddressKind)})(?:\+(.+))?", re.IGNORECASE)
#: A bounce tag: an encrypted row id (26 base32 characters), or a plain one.
_ROW_ID = re.compile(r"[a-z2-7]{26}|[0-9]{1,18}", re.IGNORECASE)


@dataclass(frozen=True)
class Recipient:
    kind: AddressKind
    #: The reply token, or the bounce tag; ``None`` when dropped.
    tag: str | None


def domain(config: Mapping[str, Any]) -> str:
    """The domain of the service's addresses: ``INBOUND_DOMAIN``, else the base URL's host."""
    configured = str(config.get("INBOUND_DOMAIN") or "").strip().rstrip(".")
    return (configured or urlsplit(str(config["BASE_URL"])).hostname or "localhost").lower()


def address(kind: AddressKind, tag: str | None, on: str) -> str:
    """``kind+tag@on`` (``kind@on`` without a tag)."""
    return f"{kind}+{tag}@{on}" if tag else f"{kind}@{on}"


def parse(recipient: str, on: str) -> Recipient | None:
    """What a recipient address is, if it is one of the service's on domain ``on``."""
    local, at, host = recipient.strip().rpartition("@")
    # An address literal ([127.0.0.1]) for a base URL on an IP address (the demo).
    if not at or host.strip("[]").rstrip(".").lower() != on.lower():
        return None
    return parse_local(local)


def parse_local(local: str) -> Recipient | None:
    """What the local part (before the ``@``) of one of the service's addresses is."""
    match = _LOCAL.fullmatch(local)
    if match is None:
        return None
    kind, tag = AddressKind(match.group(1).lower()), match.group(2)
    if kind == AddressKind.BOUNCE:
        # A bounce without its row id says nothing that could be acted on.
        return Recipient(kind, tag) if tag is not None and _ROW_ID.fullmatch(tag) else None
    if tag is not None and not well_formed(tag):
        return None
    return Recipient(kind, tag)
