"""What a player gives us: a display name and an email address, each checked
before anything is stored or mailed.

Names end up in other people's mail and pages, so they are plain text of a
bounded length: no control, format or line-separator characters (which broke
mail headers) and no web addresses (which would turn an invitation into an
advert).  Addresses are checked by ``email-validator`` without network look-ups,
and must be a single plain mailbox: no quotes, no encoded words, nothing that a
``To:`` header could read as other people.

>>> clean_name("  Zoe\\u0308 ")
'Zoë'
>>> clean_address(" Ann@Example.ORG ")
'ann@example.org'
>>> mailbox("Ann.Lee+games@GoogleMail.com"), mailbox("ann.lee+x@example.org")
('annlee@gmail.com', 'ann.lee@example.org')
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Any

from email_validator import EmailNotValidError, validate_email
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import FunctionElement
from sqlalchemy.types import String

from ..core.errors import Worded
from ..words import N_

MAX_NAME = 40
MAX_ADDRESS = 254
#: Unicode categories a name may not contain: controls, format characters
#: (bidi overrides, zero-width joiners), line and paragraph separators.
_FORBIDDEN_CATEGORIES = {"Cc", "Cf", "Zl", "Zp"}
#: A scheme, or something dotted that ends in letters (``pills.shop``, ``x.de``):
#: a mail client would make it a link.  Checked after look-alike dots are folded.
_URL = re.compile(r"(?i)(?:[a-z][a-z0-9+.-]*:/|\w\.[^\W\d_]{2,})")
#: Characters that read as a dot in a web address.
LOOKALIKE_DOTS = "\u2024\ufe52\uff0e\u3002\u0701\u0702\u2e33"
_DOTS = str.maketrans({ch: "." for ch in LOOKALIKE_DOTS})
_BRACKETED_DOT = re.compile(r"\s*[\[\(\{]\s*(?:\.|dot)\s*[\]\)\}]\s*", re.IGNORECASE)


class BadName(Worded, ValueError):
    """What is wrong with a name, as a sentence to translate (:class:`pbem.core.errors.Worded`)."""


class BadAddress(Worded, ValueError):
    """What is wrong with an address, as a sentence to translate."""


def clean_name(raw: object) -> str:
    """The name as stored: NFC, trimmed, inner runs of spaces folded to one."""
    if not isinstance(raw, str):
        raise BadName(N_("a name is needed"))
    # Checked before spaces are folded: str.split() would quietly turn a line
    # separator (U+2028, U+0085) into a space.
    if any(unicodedata.category(ch) in _FORBIDDEN_CATEGORIES for ch in raw.strip(" ")):
        raise BadName(N_("a name may not contain control or invisible characters"))
    name = " ".join(unicodedata.normalize("NFC", raw).split(" ")).strip()
    name = " ".join(name.split())
    if not name:
        raise BadName(N_("a name is needed"))
    if len(name) > MAX_NAME:
        raise BadName(N_("a name may have at most %(max)d characters"), max=MAX_NAME)
    if _URL.search(_BRACKETED_DOT.sub(".", name.translate(_DOTS))):
        raise BadName(N_("a name may not contain a web address"))
    return name


def clean_address(raw: object) -> str:
    """The address as stored and mailed: validated, the domain normalised, the
    whole in lower case (so that look-ups by address are exact and indexed)."""
    if not isinstance(raw, str):
        raise BadAddress(N_("an email address is needed"))
    text = raw.strip()
    if not text:
        raise BadAddress(N_("an email address is needed"))
    if len(text) > MAX_ADDRESS:
        raise BadAddress(N_("an email address has at most %(max)d characters"), max=MAX_ADDRESS)
    # email-validator accepts these inside a local part; a header parser may read
    # them as something else (an encoded word naming other people, a quoted string).
    if "=?" in text or any(ch in text for ch in "\"'\\<>,;:()[]") or \
            any(unicodedata.category(ch) in _FORBIDDEN_CATEGORIES or ch.isspace() for ch in text):
        raise BadAddress(N_("%(address)s is not a plain email address"), address=repr(text[:80]))
    try:
        checked = validate_email(text, check_deliverability=False, allow_quoted_local=False,
                                 allow_domain_literal=False, allow_display_name=False)
    except EmailNotValidError:
        raise BadAddress(N_("%(address)s is not an email address"), address=repr(text[:80])) from None
    return checked.normalized.lower()


def address_hash(address: str) -> str:
    """The SHA-256 of the address as written (lower case): what the ratings and
    bounce marks keep of an address, and what suppression rows made before
    :func:`mailbox_hash` hold."""
    return hashlib.sha256(address.strip().lower().encode()).hexdigest()


class AddressHashSQL(FunctionElement[str]):
    """:func:`address_hash` of an address column, computed by the database, so
    that one statement can look up what is kept under it (a bounce mark, a
    vacation bank) before the caller has seen the address.  Python and the
    database may disagree on case and spaces outside ASCII: the caller compares
    it with :func:`address_hash` of the address it loaded and uses what the
    statement found only where the two agree.  SQLite has no SHA-256: there it
    is NULL, which agrees with nothing."""

    type = String()
    inherit_cache = True


@compiles(AddressHashSQL)
def _no_hash(element: AddressHashSQL, compiler: Any, **kw: Any) -> str:
    return "NULL"


@compiles(AddressHashSQL, "postgresql")
def _sha256_hex(element: AddressHashSQL, compiler: Any, **kw: Any) -> str:
    address = compiler.process(element.clauses, **kw)
    return f"encode(sha256(convert_to(lower(btrim({address})), 'UTF8')), 'hex')"


#: Providers that ignore dots in the local part (``a.b@gmail.com`` is ``ab@gmail.com``),
#: by domain, with the domain their mailboxes are under: Gmail, whose old name
#: googlemail.com reaches the same mailboxes.  Elsewhere dots count (many
#: providers give ``a.b@`` and ``ab@`` to different people).
DOTLESS_DOMAINS = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}


def mailbox(address: str) -> str:
    """The mailbox an address reaches, as the limits and the never-mail list
    count it: lower case, a ``+tag`` removed (``ann+x@`` reaches ``ann@`` at
    every provider that reads tags, and one that does not bounces it), and dots
    left out where the provider ignores them (:data:`DOTLESS_DOMAINS`).  So
    ``Ann+1@x``, ``ann+2@x`` and ``ann@x`` are one mailbox."""
    local, at, domain = address.strip().lower().rpartition("@")
    if not at:
        return address.strip().lower()
    base = local.split("+", 1)[0] or local  # "+x@" alone has no tag to take away
    if domain in DOTLESS_DOMAINS:
        base, domain = base.replace(".", "") or base, DOTLESS_DOMAINS[domain]
    return f"{base}@{domain}"


def mailbox_hash(address: str) -> str:
    """What the never-mail list keeps of an address: the SHA-256 of its
    :func:`mailbox`."""
    return hashlib.sha256(mailbox(address).encode()).hexdigest()


def suppression_hashes(address: str) -> list[str]:
    """The suppression rows that stop mail to ``address``: its mailbox's, and
    (rows written before mailboxes were counted held the address as written)
    the address's own.  Migration 0011 gave old rows whose address the
    database still held their mailbox's hash; any other old row stops its exact
    address only (a hash cannot be turned back into its mailbox)."""
    return sorted({mailbox_hash(address), address_hash(address)})
