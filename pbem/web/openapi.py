"""The OpenAPI description served at ``/api/v1/openapi.json``.

It describes every answer each operation can give (the status codes, their
JSON bodies and headers) and exactly what each request may carry: a request
the document calls valid is accepted (or refused only for the state of the
game: 401, 404, 409, and the moves the position does not allow), one it calls
invalid is refused.  ``tests/web/test_api_schema.py`` holds the service to it
with schemathesis.

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


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str, **headers: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"description": description, "content": {"application/json": {"schema": schema}}}
    if headers:
        out["headers"] = headers
    return out


def _header(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "required": True, "schema": schema}


def _refused(description: str, *codes: str, **headers: dict[str, Any]) -> dict[str, Any]:
    """An error answer: ``{"error": {"code": ..., "message": ...}}`` with one of ``codes``."""
    schema = {"allOf": [_ref("Error"), {"properties": {"error": {"properties": {"code": {"enum": list(codes)}}}}}]}
    return _json(schema, description, **headers)


# Any request: text that neither database can store is refused wherever it is:
# in the query (400), and in a JSON body (422 bad-text, whatever the operation:
# the body is well-formed JSON, its text cannot be taken).
_UNSTORABLE = ("the query holds text that cannot be stored (NUL, a lone surrogate), "
               "or the body is JSON nested too deeply")
_BAD_TEXT_CODE = "bad-text"
_BAD_TEXT = ("`bad-text`: a string of the body (a key or a value, anywhere in it) holds text that cannot be "
             "stored: NUL, or a lone surrogate (a `\\uD800`-`\\uDFFF` escape without its pair)")
_BAD_QUERY = _refused(f"`bad-request`: {_UNSTORABLE}.", "bad-request")
_BAD_JSON = _refused(f"`bad-json`: the body is not a JSON object; `bad-request`: {_UNSTORABLE}.",
                     "bad-json", "bad-request")


def _invalid(description: str, *codes: str) -> dict[str, Any]:
    """The 422 of an operation that takes a body: its own refusals and ``bad-text``."""
    return _refused(f"{description} {_BAD_TEXT}.", *codes, _BAD_TEXT_CODE)


#: The 422 of an operation that takes no body (one sent all the same is read for it).
_ONLY_BAD_TEXT = _refused(f"{_BAD_TEXT[0].upper()}{_BAD_TEXT[1:]}.", _BAD_TEXT_CODE)
_TOO_LARGE = _refused("The body is larger than the service takes (MAX_CONTENT_LENGTH, 64 KiB by default).",
                      "request-entity-too-large")
_NO_SEAT = _refused(
    "No seat token, or not a valid one: send `Authorization: Bearer TOKEN` with the token from your seat link.",
    "unauthorized",
    **{"WWW-Authenticate": _header("`Bearer`: the scheme the API takes", {"type": "string", "pattern": "^Bearer"})},
)
_RATE_LIMITED = _refused(
    "Too many new games from this client, or invitations to one of the addresses: try again after "
    "`Retry-After` seconds.", "rate-limited",
    **{"Retry-After": _header("seconds to wait", {"type": "integer", "minimum": 1})},
)
_SEAT: list[dict[str, list[str]]] = [{"seat": []}]


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _game_id(description: str) -> dict[str, Any]:
    return {"name": "id", "in": "path", "required": True, "description": description,
            "schema": {"type": "string", "pattern": GAME_ID}}


def _schemas() -> dict[str, Any]:
    name, name_refused = name_patterns()
    address, address_refused = address_patterns()
    clan = {"enum": list(CLANS)}
    move_text = {"type": "string", "pattern": "^[0-9]+-[0-9]+$"}
    # The views' shapes come from their types; these bounds are the service's,
    # which the types (in the rules) cannot import.
    bounds: dict[str, dict[str, Any]] = {
        "game": {"pattern": GAME_ID}, "status": {"enum": GAME_STATUSES}, "turn_hours": {"maximum": MAX_TURN_HOURS},
    }
    return {
        "Error": {"type": "object", "required": ["error"], "properties": {"error": {
            "type": "object", "required": ["code", "message"],
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}}},
        "View": object_schema(View, description="a game as anyone may see it", refine=bounds),
        "SeatView": object_schema(
            SeatView, description="a game as one seat sees it: the public view and what only that seat may know",
            refine={**bounds, "mail": {"enum": list(MAIL_CHOICES)}, "board_style": {"enum": list(BOARD_STYLES)}}),
        "NewGameView": object_schema(NewGameView, description="the new game's public view, and its id",
                                     refine={**bounds, "id": {"pattern": GAME_ID}}),
        "Record": {"type": "object", "description": "the game's clans-record/1 (the clans only once it is over)",
                   "required": ["format", "board", "players", "setup", "moves"], "properties": {
                       "format": {"const": "clans-record/1"},
                       "board": {"type": ["string", "object"]},
                       "players": {"type": "array", "minItems": MIN_PLAYERS, "maxItems": MAX_PLAYERS,
                                   "items": {"type": "string"}},
                       "setup": {"type": "object", "additionalProperties": {
                           "anyOf": [clan, {"type": "array", "items": clan}]}},
                       "moves": {"type": "array", "items": {"anyOf": [move_text, {
                           "type": "object", "required": ["move", "order"],
                           "properties": {"move": move_text,
                                          "order": {"type": "array", "items": {"type": "integer"}}}}]}},
                       "clans": {"type": "object", "additionalProperties": clan}}},
        "Player": {"type": "object", "required": ["name", "email"], "properties": {
            "name": {"type": "string", "pattern": name, "not": {"pattern": name_refused},
                     "description": f"1 to {MAX_NAME} characters (after NFC, trimming and folding runs of "
                                    "spaces to one), no control (tabs and newlines included), format or "
                                    "separator characters, no web address"},
            "email": {"type": "string", "pattern": address, "not": {"pattern": address_refused},
                      "description": f"a plain address of at most {MAX_ADDRESS} characters, as email-validator "
                                     "accepts it without network look-ups: no quotes, no encoded words (`=?`), "
                                     "no special-use domain; `xn--` labels must be valid punycode, and "
                                     "internationalised addresses are accepted too"},
            "language": {"type": ["string", "null"], "enum": [*LANGUAGES, None],
                         "description": "the language of this player's mail and seat page (`pt` is European "
                                        "Portuguese); absent or null: English"},
            "time_zone": {"type": ["string", "null"], "enum": [*time_zones(), DEFAULT_TIME_ZONE, None],
                          "description": "an IANA time zone for the dates in this player's mail, e.g. "
                                         "`Europe/Budapest`; absent or null: UTC until they choose one"},
            "bot": {"type": "null", "description": "a person (see `Computer` for a seat the computer plays)"}}},
        "Computer": {"type": "object", "required": ["bot"], "additionalProperties": False, "properties": {
            "bot": {"enum": list(LEVELS), "description": "a seat the computer plays, at this level; it accepts "
                                                         "at once, gets a name of its own and no mail"}}},
        "NewGame": {"type": "object", "required": ["players"], "properties": {
            "players": {"type": "array", "minItems": MIN_PLAYERS, "maxItems": MAX_PLAYERS,
                        "items": {"anyOf": [_ref("Player"), _ref("Computer")]},
                        "contains": _ref("Player"),
                        "description": "at least one person; the first person is the one starting the game; "
                                       "every person needs a name and an address of their own (compared "
                                       "ignoring case); the other seats may be the computer's"},
            "turn_hours": {"type": ["integer", "null"], "minimum": 1, "maximum": MAX_TURN_HOURS,
                           "description": "hours each player has for a move; absent or null: 72"}}},
        "Move": {"type": "object", "required": ["move", "ply"], "properties": {
            "move": {"type": "string", "maxLength": 200, "example": "12-13",
                     "pattern": r"^[\t\n\u000b\f\r ]*[0-9]+[\t\n\u000b\f\r ]*"
                                r"(?:->|-|>|\u2192|[\t\n\u000b\f\r ]+[tT][oO][\t\n\u000b\f\r ]+|[\t\n\u000b\f\r ]+)"
                                r"[\t\n\u000b\f\r ]*[0-9]+[\t\n\u000b\f\r ]*$",
                     "description": "FROM-TO (also `FROM TO`, `FROM>TO`, `FROM to TO`)"},
            "order": {"type": ["array", "null"], "items": {"type": "integer"},
                      "description": "the order in which to take the villages the move founds"},
            "ply": {"type": "integer", "minimum": 0, "description": "the number of moves you saw"}}},
        "Pause": {"type": "object", "required": ["days"], "properties": {
            "days": {"type": "integer", "minimum": 1,
                     "description": "at most the vacation days you have left in this game"}}},
        "Mail": {"type": "object", "required": ["mail"], "properties": {"mail": {"enum": list(MAIL_CHOICES)}}},
        "BoardStyle": {"type": "object", "required": ["style"], "properties": {"style": {
            "enum": list(BOARD_STYLES),
            "description": "`contrast`: black borders, stronger token rings, bigger counts and terrain patterns"}}},
        "Webhooks": object_schema(Webhooks, description="the game's webhooks (the address and errors of your "
                                                        "own only) and your Discord user id"),
        "WebhookLine": object_schema(WebhookLine, description="one of the game's webhooks"),
        "NewWebhook": {"type": "object", "required": ["kind", "url"], "properties": {
            "kind": {"enum": [k.value for k in WebhookKind],
                     "description": "`discord` ({\"content\"}, board picture attached), `slack` ({\"text\"}) or "
                                    "`json`: {\"game\", \"event\", \"ply\", \"to_move\", \"url\"} signed with "
                                    "`X-PBEM-Signature: sha256=<hex HMAC-SHA256(secret, body)>`; also "
                                    "`X-PBEM-Timestamp` (Unix seconds), `X-PBEM-Delivery` (one id per post) and "
                                    "`X-PBEM-Signature-256-Timestamped: sha256=<hex HMAC-SHA256(secret, "
                                    "timestamp + \".\" + body)>`, so that a receiver can refuse a replayed post"},
            "url": {"type": "string", "maxLength": MAX_WEBHOOK_URL,
                    "description": "https on port 443 or 8443, on a host that resolves only to public addresses"}}},
        "MadeWebhook": {"type": "object", "required": ["webhook", "secret"], "properties": {
            "webhook": _ref("WebhookLine"),
            "secret": {"type": ["string", "null"],
                       "description": "a json webhook's signing secret, in this answer only (null for the others)"}}},
        "Discord": {"type": "object", "properties": {
            "discord_id": {"type": ["string", "null"], "pattern": "^(?:[0-9]{15,20})?$",
                           "description": "your Discord user id; empty, null or absent: no mention"}}},
        "Rematch": {"type": "object", "required": ["game", "token", "created"], "additionalProperties": False,
                    "properties": {
                        "game": {"type": "string", "pattern": GAME_ID, "description": "the rematch's public id"},
                        "token": {"type": ["string", "null"],
                                  "description": "your seat token in the rematch (you are in it at once)"},
                        "created": {"type": "boolean",
                                    "description": "whether this call started it (else another click had)"}}},
        "HandOver": {"type": "object", "required": ["bot"], "properties": {
            "bot": {"enum": list(LEVELS), "description": "the computer's level"},
            "seat": {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_PLAYERS - 1,
                     "description": "an away player's seat (as `players[].seat`); absent or null: your own"}}},
    }


def _paths() -> dict[str, Any]:
    seat_view = _json(_ref("SeatView"), "Your seat's view of the game.")
    webhooks_view = _json(_ref("Webhooks"), "The game's webhooks and your Discord user id.")
    not_found = _refused("There is no game with this id.", "not-found")
    return {
        "/games": {"post": {
            "operationId": "startGame",
            "summary": "start a game and invite its players",
            "requestBody": _body(_ref("NewGame")),
            "responses": {
                "201": {**_json(_ref("NewGameView"), "The game is created; the first player is asked to "
                                                     "confirm it, the others are invited when they do.",
                                Location=_header("the new game's address",
                                                 {"type": "string",
                                                  "pattern": f"^/api/v1/games/{GAME_ID[1:]}"})),
                        "links": {
                            "GetGame": {"operationId": "getGame", "parameters": {"id": "$response.body#/id"}},
                            "GetRecord": {"operationId": "getRecord", "parameters": {"id": "$response.body#/id"}},
                        }},
                "400": _BAD_JSON,
                "413": _TOO_LARGE,
                "422": _invalid("The players or the turn time are not acceptable; `invalid-players` covers the "
                                "number of players, duplicates and names, `cannot-invite` an address that may not be "
                                "mailed (the answer does not say why).",
                                "invalid-players", "invalid-name", "invalid-email", "invalid-turn-hours",
                                "invalid-language", "invalid-time-zone", "cannot-invite"),
                "429": _RATE_LIMITED,
            }}},
        "/games/{id}": {"get": {
            "operationId": "getGame",
            "summary": "the public view of a game",
            "parameters": [_game_id("the game's public id")],
            "responses": {"200": _json(_ref("View"), "The game as anyone may see it."), "400": _BAD_QUERY,
                          "404": not_found}}},
        "/games/{id}/record": {"get": {
            "operationId": "getRecord",
            "summary": "the game's clans-record/1 (the clans only once it is over)",
            "parameters": [_game_id("the game's public id")],
            "responses": {"200": _json(_ref("Record"), "The record."), "400": _BAD_QUERY, "404": not_found,
                          "409": _refused("The game has not started: it has no record yet.", "not-started")}}},
        "/seat": {"get": {
            "operationId": "getSeat", "summary": "your seat's view", "security": _SEAT,
            "responses": {"200": seat_view, "400": _BAD_QUERY, "401": _NO_SEAT}}},
        "/seat/accept": {"post": {
            "operationId": "accept",
            "summary": "accept the invitation (accepting twice is accepting once); the first player's "
                       "acceptance confirms the game and invites the others",
            "security": _SEAT,
            "responses": {"200": seat_view, "400": _BAD_QUERY, "401": _NO_SEAT,
                          "409": _refused("The game is no longer waiting for players.", "game-over"),
                          "422": _ONLY_BAD_TEXT, "429": _RATE_LIMITED}}},
        "/seat/moves": {"post": {
            "operationId": "move", "summary": "make a move (sending the same move again changes nothing)",
            "security": _SEAT,
            "requestBody": _body(_ref("Move")),
            "responses": {
                "200": seat_view,
                "400": _refused("`bad-json`: the body is not a JSON object; `bad-request`: `ply` is not a whole "
                                f"number from 0, or {_UNSTORABLE}.", "bad-json", "bad-request"),
                "401": _NO_SEAT,
                "409": _refused("Not now: the game has moved on (`stale`), it is someone else's turn, the game "
                                "has not started or is over, or the computer plays this seat now.", "stale",
                                "not-your-turn", "not-started", "game-over", "computer-seat"),
                "413": _TOO_LARGE,
                "422": _invalid("The rules refuse the move (the codes of record.md).", *RULES_CODES),
            }}},
        "/seat/pause": {"post": {
            "operationId": "pause",
            "summary": "pause your clock for a vacation (days are limited per game)",
            "security": _SEAT,
            "requestBody": _body(_ref("Pause")),
            "responses": {
                "200": seat_view, "400": _BAD_JSON, "401": _NO_SEAT,
                "409": _refused("The clock runs only while the game is being played, and only for a person.",
                                "not-started", "game-over", "computer-seat"),
                "413": _TOO_LARGE,
                "422": _invalid("More days than you have left in this game.", "invalid-days"),
            }}},
        "/seat/mail": {"post": {
            "operationId": "setMail", "summary": "turn mail: every turn, a daily digest or none",
            "security": _SEAT,
            "requestBody": _body(_ref("Mail")),
            "responses": {"200": seat_view, "400": _BAD_JSON, "401": _NO_SEAT, "413": _TOO_LARGE,
                          "409": _refused("The computer plays this seat now: it gets no mail.", "computer-seat"),
                          "422": _invalid("Not one of the choices.", "invalid-mail")}}},
        "/seat/style": {"post": {
            "operationId": "setBoardStyle",
            "summary": "how this seat's page and the picture in its mail draw the board: standard or high contrast",
            "security": _SEAT,
            "requestBody": _body(_ref("BoardStyle")),
            "responses": {"200": seat_view, "400": _BAD_JSON, "401": _NO_SEAT, "413": _TOO_LARGE,
                          "422": _invalid("Not one of the styles.", "invalid-style")}}},
        "/seat/webhooks": {
            "get": {"operationId": "getWebhooks", "summary": "the game's webhooks and your Discord user id",
                    "security": _SEAT,
                    "responses": {"200": webhooks_view, "400": _BAD_QUERY, "401": _NO_SEAT}},
            "post": {
                "operationId": "addWebhook",
                "summary": "add a webhook to your game: its start, each person's turn and its end are posted "
                           "there, from the public view (never a clan)",
                "security": _SEAT,
                "requestBody": _body(_ref("NewWebhook")),
                "responses": {
                    "201": _json(_ref("MadeWebhook"), "The webhook is set."),
                    "400": _BAD_JSON, "401": _NO_SEAT, "413": _TOO_LARGE,
                    "409": _refused("The game is over, you have not accepted yet, the computer plays your seat, or "
                                    "the game has its five webhooks.", "game-over", "not-accepted", "computer-seat",
                                    "too-many-webhooks"),
                    "422": _invalid("Not one of the kinds, or an address that is not https, cannot be found or "
                                    "leads to a private or local network.", "invalid-webhook-kind",
                                    "invalid-webhook-url"),
                    "429": _refused("Too many new webhooks from this seat: try again after `Retry-After` seconds.",
                                    "rate-limited",
                                    **{"Retry-After": _header("seconds to wait", {"type": "integer", "minimum": 1})}),
                }}},
        "/seat/webhooks/{id}": {"delete": {
            "operationId": "removeWebhook", "summary": "remove one of your own webhooks",
            "security": _SEAT,
            "parameters": [{"name": "id", "in": "path", "required": True, "description": "the webhook's id",
                            "schema": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1}}],
            "responses": {"200": webhooks_view, "400": _BAD_QUERY, "401": _NO_SEAT,
                          "404": _refused("You have no webhook with this id in this game.", "not-found"),
                          "422": _ONLY_BAD_TEXT}}},
        "/seat/discord": {"post": {
            "operationId": "setDiscordId",
            "summary": "your Discord user id, for the game's Discord posts to mention you on your turn",
            "security": _SEAT,
            "requestBody": _body(_ref("Discord")),
            "responses": {"200": webhooks_view, "400": _BAD_JSON, "401": _NO_SEAT, "413": _TOO_LARGE,
                          "409": _refused("The computer plays this seat now: it mentions nobody.", "computer-seat"),
                          "422": _invalid("Not a Discord user id (15 to 20 digits).", "invalid-discord-id")}}},
        "/seat/rematch": {"post": {
            "operationId": "rematch",
            "summary": "play again after the end: a new game with the same players, where you are in at once and "
                       "the others are invited by mail; a game has one rematch, so asking again (or another "
                       "player asking) gives the one there is",
            "security": _SEAT,
            "responses": {
                "200": _json(_ref("Rematch"), "The rematch had started already."),
                "201": _json(_ref("Rematch"), "The rematch is started; the others are invited."),
                "400": _BAD_QUERY, "401": _NO_SEAT,
                "409": _refused("Not now: the game is not over, the computer plays this seat, or a player of "
                                "the game cannot be mailed (asked never to be, or their mail bounces).",
                                "not-finished", "computer-seat", "suppressed", "unreachable"),
                "422": _ONLY_BAD_TEXT,
                "429": _RATE_LIMITED,
            }}},
        "/seat/computer": {"post": {
            "operationId": "handToComputer",
            "summary": "let the computer play a seat for the rest of the game: yours, or (`seat`) that of a "
                       "player who is away (the autopilot moved for them three times running); it cannot be "
                       "taken back, and the seat gets no more mail",
            "security": _SEAT,
            "requestBody": _body(_ref("HandOver")),
            "responses": {
                "200": seat_view,
                "400": _refused("`bad-json`: the body is not a JSON object; `bad-request`: `seat` is not a "
                                f"whole number, or {_UNSTORABLE}.", "bad-json", "bad-request"),
                "401": _NO_SEAT,
                "409": _refused("Not now: the game is not being played, the computer plays that seat already, "
                                "its player is not away, or you are the last person at the table.", "not-started",
                                "game-over", "computer-seat", "not-absent", "last-person"),
                "413": _TOO_LARGE,
                "422": _invalid("Not one of the levels, or `easy` for another player's seat "
                                "(`invalid-level`); or no such seat in this game (`invalid-seat`).",
                                "invalid-level", "invalid-seat"),
            }}},
    }


def _document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Clans by Mail", "version": "1",
                 "description": "Every error is `{\"error\": {\"code\": ..., \"message\": ...}}`. A method a path "
                                "does not take is answered 405 with an `Allow` header."},
        "servers": [{"url": "/api/v1"}],
        "components": {
            "securitySchemes": {"seat": {"type": "http", "scheme": "bearer",
                                         "description": "the seat token from your seat link"}},
            "schemas": _schemas(),
        },
        "paths": _paths(),
    }


#: The document, as ``/api/v1/openapi.json`` serves it.
OPENAPI: dict[str, Any] = _document()
