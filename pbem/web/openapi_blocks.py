"""The building blocks of the OpenAPI description (:mod:`pbem.web.openapi`).

Each area that adds routes describes them in its own module with these blocks;
:mod:`pbem.web.openapi` gathers them into the one document.

The name and address rules are the ones :mod:`pbem.people.players` applies, spelled
as regular expressions that read the same in Python's ``re`` and in the
JSON Schema validators (explicit character classes rather than ``\\s``, ``\\w``
or ``\\b``, whose meaning differs between engines; a closing ``$`` is the end
of the text, as ECMAScript reads it).  The classes are computed
from Python's Unicode tables, as the server's checks are.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from array import array
from functools import cache
from typing import Any, Callable, Iterable

from ..rules.tables import CLANS, MAX_PLAYERS, MIN_PLAYERS
from ..rules.views import NewGameView, SeatView, View
from ..drawing.style import BOARD_STYLES
from pbem.games.starting import LEVELS, MAX_TURN_HOURS
from pbem.games.settings import MAIL_CHOICES
from pbem.games.views import SeatStatus
from ..core.models import WebhookKind
from ..core.tokens import PUBLIC_ID_ALPHABET, PUBLIC_ID_LENGTH
from .schema import object_schema
from ..table.webhook_targets import MAX_URL as MAX_WEBHOOK_URL
from ..table.webhooks import WebhookLine, Webhooks

from ..people.players import LOOKALIKE_DOTS, MAX_ADDRESS, MAX_NAME
from ..words.language import DEFAULT_TIME_ZONE, LANGUAGES, time_zones
#: Domains email-validator refuses as special-use (RFC 6761 and friends).
SPECIAL_USE_DOMAINS = ("arpa", "invalid", "local", "localhost", "onion", "test")

GAME_ID = f"^[{PUBLIC_ID_ALPHABET}]{{{PUBLIC_ID_LENGTH}}}$"
GAME_STATUSES = [s.value for s in (SeatStatus.INVITED, SeatStatus.WAITING, SeatStatus.ACTIVE, SeatStatus.FINISHED,
                                    SeatStatus.EXPIRED)]
RULES_CODES = ["malformed-move", "unknown-territory", "empty-source", "not-adjacent", "empty-target",
               "immovable-group", "bad-order", "illegal-move", "game-over"]


# -- character classes ------------------------------------------------------------


def _char(cp: int) -> str:
    """One code point inside a character class: an escape in the BMP (the same
    in every engine), the character itself beyond (``\\U`` is not ECMAScript)."""
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return chr(cp)


def _class(member: Callable[[str], bool], code_points: Iterable[int] | None = None) -> str:
    """The body of a character class holding exactly the code points (of
    ``code_points``, in order; all of Unicode by default) that ``member`` accepts."""
    parts: list[str] = []
    start = end = -2
    for cp in range(sys.maxunicode + 1) if code_points is None else code_points:
        if not member(chr(cp)):
            continue
        if cp != end + 1:
            if start >= 0:
                parts.append(_span(start, end))
            start = cp
        end = cp
    if start >= 0:
        parts.append(_span(start, end))
    return "".join(parts)


def _span(start: int, end: int) -> str:
    return _char(start) if start == end else f"{_char(start)}-{_char(end)}"


@cache
def _folding() -> list[int]:
    """The code points a case-insensitive Python pattern of ASCII letters can
    match: ASCII and the four that fold to it (U+0130, U+0131, U+017F, U+212A,
    all in the BMP)."""
    letters = re.compile("[a-z]", re.IGNORECASE)
    return list(range(128)) + [cp for cp in range(128, 0x10000) if letters.fullmatch(chr(cp))]


@cache
def _folds(regex: str) -> str:
    """The class of what a one-character case-insensitive Python pattern matches."""
    compiled = re.compile(regex, re.IGNORECASE)
    return _class(lambda ch: compiled.fullmatch(ch) is not None, _folding())


def _word(text: str) -> str:
    """A literal ASCII word, matched as Python's ``re.IGNORECASE`` does."""
    return "".join(f"[{_folds(re.escape(ch))}]" if ch.isalpha() else re.escape(ch) for ch in text)


#: What a name may not contain: controls (tabs and newlines too), format
#: characters, line and paragraph separators (pbem.people.players).
FORBIDDEN_CATEGORIES = ("Cc", "Cf", "Zl", "Zp")


@cache
def _classes() -> dict[str, str]:
    everything = array("I", range(sys.maxunicode + 1)).tobytes().decode("utf-32-le", "surrogatepass")

    def matching(regex: str) -> str:  # what a Python pattern matches, as the server's checks read it
        return "".join(_span(m.start(), m.end() - 1) for m in re.finditer(regex, everything))

    # Controls, format characters and separators live in planes 0, 1 and 14
    # (the others hold ideographs, private use or nothing).
    planes = [*range(0x20000), *range(0xE0000, 0xF0000)]
    return {
        # Whitespace a name may hold (it is trimmed and folded to one space):
        # the spaces, not the controls or separators.
        "blank": _class(lambda ch: ch.isspace() and unicodedata.category(ch) not in FORBIDDEN_CATEGORIES,
                        range(0x10000)),
        "forbidden": _class(lambda ch: unicodedata.category(ch) in FORBIDDEN_CATEGORIES, planes),
        # What Python's \s and \b look at: whitespace; letters, digits and the underscore.
        "spaces": matching(r"\s+"),
        "word": matching(r"\w+"),
        "letter": matching(r"[^\W\d_]+"),
    }


@cache
def name_patterns() -> tuple[str, str]:
    """``(pattern, not_pattern)`` of a player's name: 1 to 40 characters once
    runs of spaces are folded to one and the ends trimmed (counted before NFC:
    names of combining sequences are counted by the server after it), none of
    them a control, format character or separator; and no web address
    (``scheme:/``, or a word character, a dot and two letters: ``pills.shop``,
    where a dot is also a look-alike dot or one in brackets, ``pills [.] shop``)."""
    c = _classes()
    space, char = f"[{c['blank']}]", f"[^{c['spaces']}{c['forbidden']}]"
    # One item per character, one per run of whitespace between characters:
    # each run must reach the next character, so a name parses one way only.
    pattern = f"^{space}*{char}(?:{char}|{space}+(?={char})){{0,{MAX_NAME - 1}}}{space}*$"
    dots = "\\." + "".join(_char(ord(ch)) for ch in LOOKALIKE_DOTS)
    blank = f"[{c['spaces']}]*"
    # pbem.people.players folds look-alike dots, and brackets around a dot or "dot", to "."
    dot = f"(?:[{dots}]|{blank}[\\[\\(\\{{]{blank}(?:[{dots}]|{_word('dot')}){blank}[\\]\\)\\}}]{blank})"
    url = "|".join([
        f"[{_folds('[a-z]')}][{_folds('[a-z0-9+-]')}{dots}]*:/",
        f"[{c['word']}]{dot}[{c['letter']}]{{2}}",
    ])
    return pattern, url


@cache
def address_patterns() -> tuple[str, str]:
    """``(pattern, not_pattern)`` of an email address: a plain ``local@domain``
    (spaces around it are trimmed) that email-validator accepts without network
    look-ups, with no quotes, no encoded words (``=?``), at most 254
    characters.  The document describes the ASCII form; email-validator also
    takes internationalised addresses, which no regular expression captures,
    and checks the punycode of ``xn--`` labels."""
    space = f"[{_classes()['spaces']}]"
    atom = "[a-zA-Z0-9!#$%&*+/=?^_`{|}~-]+"  # RFC 5322 atext without the apostrophe
    label = "[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?"
    top = "(?:[a-zA-Z0-9][a-zA-Z0-9-]*)?[a-zA-Z]"  # a top-level domain ends in a letter
    pattern = f"^{space}*{atom}(?:\\.{atom})*@(?:{label}\\.)+{top}{space}*$"
    refused = "|".join([
        r"=\?",  # an encoded word
        f"[^{_classes()['spaces']}]{{{MAX_ADDRESS + 1}}}",  # too long
        # Hyphens in a label's 3rd and 4th places, but for IDNA's "xn--" (the
        # document cannot tell valid punycode from invalid; the service can).
        r"[@.](?:[a-wyzA-WYZ0-9][a-zA-Z0-9]|[xX][a-mo-zA-MO-Z0-9])--",
        r"[@.][a-zA-Z0-9-]{64}",  # a label longer than 63
        r"\.(?:" + "|".join(_word(d) for d in SPECIAL_USE_DOMAINS) + f"){space}*$",
    ])
    return pattern, refused


# -- the document -----------------------------------------------------------------


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def json_answer(schema: dict[str, Any], description: str, **headers: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"description": description, "content": {"application/json": {"schema": schema}}}
    if headers:
        out["headers"] = headers
    return out


def header(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "required": True, "schema": schema}


def refused(description: str, *codes: str, **headers: dict[str, Any]) -> dict[str, Any]:
    """An error answer: ``{"error": {"code": ..., "message": ...}}`` with one of ``codes``."""
    schema = {"allOf": [ref("Error"), {"properties": {"error": {"properties": {"code": {"enum": list(codes)}}}}}]}
    return json_answer(schema, description, **headers)


# Any request: text that neither database can store is refused wherever it is:
# in the query (400), and in a JSON body (422 bad-text, whatever the operation:
# the body is well-formed JSON, its text cannot be taken).
UNSTORABLE = ("the query holds text that cannot be stored (NUL, a lone surrogate), "
               "or the body is JSON nested too deeply")
_BAD_TEXT_CODE = "bad-text"
_BAD_TEXT = ("`bad-text`: a string of the body (a key or a value, anywhere in it) holds text that cannot be "
             "stored: NUL, or a lone surrogate (a `\\uD800`-`\\uDFFF` escape without its pair)")
BAD_QUERY = refused(f"`bad-request`: {UNSTORABLE}.", "bad-request")
BAD_JSON = refused(f"`bad-json`: the body is not a JSON object; `bad-request`: {UNSTORABLE}.",
                     "bad-json", "bad-request")


def invalid(description: str, *codes: str) -> dict[str, Any]:
    """The 422 of an operation that takes a body: its own refusals and ``bad-text``."""
    return refused(f"{description} {_BAD_TEXT}.", *codes, _BAD_TEXT_CODE)


#: The 422 of an operation that takes no body (one sent all the same is read for it).
ONLY_BAD_TEXT = refused(f"{_BAD_TEXT[0].upper()}{_BAD_TEXT[1:]}.", _BAD_TEXT_CODE)
TOO_LARGE = refused("The body is larger than the service takes (MAX_CONTENT_LENGTH, 64 KiB by default).",
                      "request-entity-too-large")
NO_SEAT = refused(
    "No seat token, or not a valid one: send `Authorization: Bearer TOKEN` with the token from your seat link.",
    "unauthorized",
    **{"WWW-Authenticate": header("`Bearer`: the scheme the API takes", {"type": "string", "pattern": "^Bearer"})},
)
RATE_LIMITED = refused(
    "Too many new games from this client, or invitations to one of the addresses: try again after "
    "`Retry-After` seconds.", "rate-limited",
    **{"Retry-After": header("seconds to wait", {"type": "integer", "minimum": 1})},
)
SEAT: list[dict[str, list[str]]] = [{"seat": []}]


def body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def game_id(description: str) -> dict[str, Any]:
    return {"name": "id", "in": "path", "required": True, "description": description,
            "schema": {"type": "string", "pattern": GAME_ID}}
