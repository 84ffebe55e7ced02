"""Who sent a reply: mail that must never be answered (automatic mail, our own
coming back), and whether a reply is the seat's own — the one address of its
From and its envelope sender are the seat's, and with
``INBOUND_TRUST=authres:<id>`` that server's Authentication-Results say the
From domain passed (:mod:`pbem.inbound.authresults`)."""

from __future__ import annotations

from email.message import Message
from email.utils import getaddresses, parseaddr

from ..core.context import Context
from ..core.models import Seat
from ..people.players import BadAddress, clean_address
from .authresults import authenticated
from .received import header, headers
from .reply_tokens import PREFIX, inbound_domain


def _address(text: str) -> str:
    """An address as seats store theirs (lower case), or ``""``."""
    try:
        return clean_address(text)
    except BadAddress:
        return ""


def own_addresses(ctx: Context) -> set[str]:
    return {a for a in [_address(parseaddr(str(ctx.config.get("MAIL_FROM") or ""))[1])] if a}


_DAEMONS = {"mailer-daemon", "postmaster", "mail-daemon", "noreply", "no-reply", "do-not-reply", "donotreply"}


def is_automatic(ctx: Context, message: Message, envelope_sender: str) -> bool:
    """Mail that must never be answered (RFC 3834): auto-replies, bounces,
    list mail, and our own mail coming back."""
    auto = header(message, "Auto-Submitted").strip().lower()
    if auto and auto.split(";")[0].strip() != "no":
        return True
    if header(message, "Precedence").strip().lower() in ("bulk", "junk", "list"):
        return True
    for name in ("X-PBEM-Kind", "X-Autoreply", "X-Autorespond", "X-Autoresponder", "List-Id"):
        if message.get(name) is not None:
            return True
    if message.get_content_type() == "multipart/report":  # a delivery or read report
        return True
    sender = envelope_sender.strip().strip("<>")
    if not sender:
        return True  # the null sender: a bounce
    froms = [address for _, address in getaddresses(headers(message, "From"))]
    ours = own_addresses(ctx)
    domain = inbound_domain(ctx).lower()
    for address in [sender, *froms]:
        local, _, host = address.lower().rpartition("@")
        if local in _DAEMONS or address.lower() in ours:
            return True
        if host == domain and local.startswith((PREFIX, "bounce+")):
            return True
    return False


def from_address(message: Message) -> str:
    """The one address of the From header (``""`` if there is not exactly one).
    Two readings must agree on it: ``getaddresses`` and the header as the email
    package's policy parses it (where they differ, as they may for a crafted
    header, it is not sure whose address it is)."""
    values = headers(message, "From")
    addresses = [a for _, a in getaddresses(values) if a]
    if len(values) != 1 or len(addresses) != 1:
        return ""
    parsed = [str(getattr(a, "addr_spec", "")) for a in getattr(message.get("From"), "addresses", ())]
    if parsed and parsed != addresses:
        return ""
    return addresses[0]


def trusting(ctx: Context) -> bool:
    """Whether the receiving server vouches for senders (``INBOUND_TRUST``)."""
    return bool(str(ctx.config.get("INBOUND_TRUST") or "").strip())


def sender_problem(ctx: Context, message: Message, envelope_sender: str, seat: Seat) -> str | None:
    """Why a reply may not be the seat's own (``sender`` or ``trust``), or ``None``."""
    address = _address(from_address(message))
    if not address or address != seat.email or _address(envelope_sender.strip().strip("<>")) != seat.email:
        return "sender"
    trust = str(ctx.config.get("INBOUND_TRUST") or "").strip()
    if trust:
        method, _, server = trust.partition(":")
        if method.strip().lower() != "authres" or not server.strip():
            return "trust"  # a setting we cannot honour trusts nothing
        if not authenticated(headers(message, "Authentication-Results"), server.strip(),
                             address.rpartition("@")[2]):
            return "trust"
    return None
