"""The OpenAPI description served at ``/api/v1/openapi.json``.

It describes every answer each operation can give (the status codes, their
JSON bodies and headers) and exactly what each request may carry: a request
the document calls valid is accepted (or refused only for the state of the
game: 401, 404, 409, and the moves the position does not allow), one it calls
invalid is refused.  ``tests/web/test_api_schema.py`` holds the service to it
with schemathesis.

The building blocks (answers, refusals, the name and address patterns) are in
:mod:`.openapi_blocks`; an area with routes of its own describes them in its own
module and is named in ``AREAS``.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..rules.tables import CLANS, MAX_PLAYERS, MIN_PLAYERS
from ..rules.views import NewGameView, SeatView, View
from ..drawing.style import BOARD_STYLES
from pbem.games.starting import LEVELS, MAX_TURN_HOURS
from pbem.games.settings import MAIL_CHOICES
from pbem.games.clock_options import MAX_BANK_DAYS, MAX_DAYS, MAX_INCREMENT_HOURS, VACATION_OFF, VACATION_ON
from ..core.models import WebhookKind
from .schema import object_schema
from . import openapi_premoves, openapi_seat_extras
from . import openapi_lobby
from . import openapi_practice
from ..table.webhook_targets import MAX_URL as MAX_WEBHOOK_URL
from ..table.webhooks import WebhookLine, Webhooks
from ..people.players import LOOKALIKE_DOTS, MAX_ADDRESS, MAX_NAME
from ..words.language import DEFAULT_TIME_ZONE, LANGUAGES, time_zones
from . import openapi_calendar
from . import openapi_people
from .openapi_blocks import (SEAT, BAD_JSON, BAD_QUERY, GAME_ID, GAME_STATUSES, NO_SEAT, ONLY_BAD_TEXT, RATE_LIMITED, RULES_CODES, TOO_LARGE, UNSTORABLE, address_patterns, body, game_id, header, invalid, json_answer, name_patterns, ref, refused)
from . import openapi_push


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
            "bot": {"type": "null", "description": "a person (see `Computer` for a seat the computer plays)"},
            "open": {"enum": [False, None], "description": "a person (see `OpenSeat` for a seat for anyone)"}}},
        "Computer": {"type": "object", "required": ["bot"], "additionalProperties": False, "properties": {
            "bot": {"enum": list(LEVELS), "description": "a seat the computer plays, at this level; it accepts "
                                                         "at once, gets a name of its own and no mail"}}},
        "NewGame": {"type": "object", "required": ["players"], "properties": {
            "players": {"type": "array", "minItems": MIN_PLAYERS, "maxItems": MAX_PLAYERS,
                        "items": {"anyOf": [ref("Player"), ref("Computer"), ref("OpenSeat")]},
                        "contains": ref("Player"),
                        "description": "at least one person; the first person is the one starting the game; "
                                       "every person needs a name and an address of their own (compared "
                                       "ignoring case); the other seats may be the computer's"},
            "turn_hours": {"type": ["integer", "null"], "minimum": 1, "maximum": MAX_TURN_HOURS,
                           "description": "hours each player has for a move; absent or null: 72"},
            "requirements": {"anyOf": [ref("Requirements"), {"type": "null"}]},
            "clock": {"oneOf": [{"type": "null"}, ref("Clock")],
                      "description": "a correspondence clock instead of `turn_hours`: each player's bank starts "
                                     "with `days`, a turn's deadline is when the bank runs out, and each move "
                                     "takes the time used from it and adds `increment_hours`, up to `max_days`"},
            "weekends_off": {"type": ["boolean", "null"],
                             "description": "players' clocks stop from Saturday 00:00 to Monday 00:00 in their "
                                            "own time zones (UTC for a player who chose none)"},
            "vacation": {"type": ["string", "null"], "enum": [VACATION_ON, VACATION_OFF, None],
                         "description": "`off`: a lapsing deadline never spends the player's vacation days (the "
                                        "autopilot moves at once, tournament-style); absent or null: `on`"}}},
        "Clock": {"type": "object", "required": ["days"], "additionalProperties": False, "properties": {
            "days": {"type": "integer", "minimum": 1, "maximum": MAX_DAYS},
            "increment_hours": {"type": ["integer"], "minimum": 0, "maximum": MAX_INCREMENT_HOURS,
                                "description": "absent: 0"},
            "max_days": {"type": "integer", "minimum": 1, "maximum": MAX_BANK_DAYS,
                         "description": "at least `days`; absent: `days`"}}},
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
                     "description": "at most the vacation days you have left (yours across all your games)"}}},
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
            "webhook": ref("WebhookLine"),
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
    seat_view = json_answer(ref("SeatView"), "Your seat's view of the game.")
    webhooks_view = json_answer(ref("Webhooks"), "The game's webhooks and your Discord user id.")
    not_found = refused("There is no game with this id.", "not-found")
    return {
        "/games": {"post": {
            "operationId": "startGame",
            "summary": "start a game and invite its players",
            "requestBody": body(ref("NewGame")),
            "responses": {
                "201": {**json_answer(ref("NewGameView"), "The game is created; the first player is asked to "
                                                     "confirm it, the others are invited when they do.",
                                Location=header("the new game's address",
                                                 {"type": "string",
                                                  "pattern": f"^/api/v1/games/{GAME_ID[1:]}"})),
                        "links": {
                            "GetGame": {"operationId": "getGame", "parameters": {"id": "$response.body#/id"}},
                            "GetRecord": {"operationId": "getRecord", "parameters": {"id": "$response.body#/id"}},
                        }},
                "400": BAD_JSON,
                "413": TOO_LARGE,
                "422": invalid("The players or the turn time are not acceptable; `invalid-players` covers the "
                                "number of players, duplicates and names, `cannot-invite` an address that may not be "
                                "mailed (the answer does not say why).",
                                "invalid-players", "invalid-name", "invalid-email", "invalid-turn-hours",
                                "invalid-language", "invalid-time-zone", "cannot-invite", "invalid-requirements", "invalid-clock",
                                "invalid-weekends-off", "invalid-vacation"),
                "429": RATE_LIMITED,
            }}},
        "/games/{id}": {"get": {
            "operationId": "getGame",
            "summary": "the public view of a game",
            "parameters": [game_id("the game's public id")],
            "responses": {"200": json_answer(ref("View"), "The game as anyone may see it."), "400": BAD_QUERY,
                          "404": not_found}}},
        "/games/{id}/record": {"get": {
            "operationId": "getRecord",
            "summary": "the game's clans-record/1 (the clans only once it is over)",
            "parameters": [game_id("the game's public id")],
            "responses": {"200": json_answer(ref("Record"), "The record."), "400": BAD_QUERY, "404": not_found,
                          "409": refused("The game has not started: it has no record yet.", "not-started")}}},
        "/seat": {"get": {
            "operationId": "getSeat", "summary": "your seat's view", "security": SEAT,
            "responses": {"200": seat_view, "400": BAD_QUERY, "401": NO_SEAT}}},
        "/seat/accept": {"post": {
            "operationId": "accept",
            "summary": "accept the invitation (accepting twice is accepting once); the first player's "
                       "acceptance confirms the game and invites the others",
            "security": SEAT,
            "responses": {"200": seat_view, "400": BAD_QUERY, "401": NO_SEAT,
                          "409": refused("The game is no longer waiting for players.", "game-over"),
                          "422": ONLY_BAD_TEXT, "429": RATE_LIMITED}}},
        "/seat/moves": {"post": {
            "operationId": "move", "summary": "make a move (sending the same move again changes nothing)",
            "security": SEAT,
            "requestBody": body(ref("Move")),
            "responses": {
                "200": seat_view,
                "400": refused("`bad-json`: the body is not a JSON object; `bad-request`: `ply` is not a whole "
                                f"number from 0, or {UNSTORABLE}.", "bad-json", "bad-request"),
                "401": NO_SEAT,
                "409": refused("Not now: the game has moved on (`stale`), it is someone else's turn, the game "
                                "has not started or is over, or the computer plays this seat now.", "stale",
                                "not-your-turn", "not-started", "game-over", "computer-seat"),
                "413": TOO_LARGE,
                "422": invalid("The rules refuse the move (the codes of record.md).", *RULES_CODES),
            }}},
        "/seat/pause": {"post": {
            "operationId": "pause",
            "summary": "pause your clock for a vacation (days are limited per game)",
            "security": SEAT,
            "requestBody": body(ref("Pause")),
            "responses": {
                "200": seat_view, "400": BAD_JSON, "401": NO_SEAT,
                "409": refused("The clock runs only while the game is being played, and only for a person.",
                                "not-started", "game-over", "computer-seat"),
                "413": TOO_LARGE,
                "422": invalid("More days than you have left in this game.", "invalid-days"),
            }}},
        "/seat/mail": {"post": {
            "operationId": "setMail", "summary": "turn mail: every turn, a daily digest or none",
            "security": SEAT,
            "requestBody": body(ref("Mail")),
            "responses": {"200": seat_view, "400": BAD_JSON, "401": NO_SEAT, "413": TOO_LARGE,
                          "409": refused("The computer plays this seat now: it gets no mail.", "computer-seat"),
                          "422": invalid("Not one of the choices.", "invalid-mail")}}},
        "/seat/style": {"post": {
            "operationId": "setBoardStyle",
            "summary": "how this seat's page and the picture in its mail draw the board: standard or high contrast",
            "security": SEAT,
            "requestBody": body(ref("BoardStyle")),
            "responses": {"200": seat_view, "400": BAD_JSON, "401": NO_SEAT, "413": TOO_LARGE,
                          "422": invalid("Not one of the styles.", "invalid-style")}}},
        "/seat/webhooks": {
            "get": {"operationId": "getWebhooks", "summary": "the game's webhooks and your Discord user id",
                    "security": SEAT,
                    "responses": {"200": webhooks_view, "400": BAD_QUERY, "401": NO_SEAT}},
            "post": {
                "operationId": "addWebhook",
                "summary": "add a webhook to your game: its start, each person's turn and its end are posted "
                           "there, from the public view (never a clan)",
                "security": SEAT,
                "requestBody": body(ref("NewWebhook")),
                "responses": {
                    "201": json_answer(ref("MadeWebhook"), "The webhook is set."),
                    "400": BAD_JSON, "401": NO_SEAT, "413": TOO_LARGE,
                    "409": refused("The game is over, you have not accepted yet, the computer plays your seat, or "
                                    "the game has its five webhooks.", "game-over", "not-accepted", "computer-seat",
                                    "too-many-webhooks"),
                    "422": invalid("Not one of the kinds, or an address that is not https, cannot be found or "
                                    "leads to a private or local network.", "invalid-webhook-kind",
                                    "invalid-webhook-url"),
                    "429": refused("Too many new webhooks from this seat: try again after `Retry-After` seconds.",
                                    "rate-limited",
                                    **{"Retry-After": header("seconds to wait", {"type": "integer", "minimum": 1})}),
                }}},
        "/seat/webhooks/{id}": {"delete": {
            "operationId": "removeWebhook", "summary": "remove one of your own webhooks",
            "security": SEAT,
            "parameters": [{"name": "id", "in": "path", "required": True, "description": "the webhook's id",
                            "schema": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1}}],
            "responses": {"200": webhooks_view, "400": BAD_QUERY, "401": NO_SEAT,
                          "404": refused("You have no webhook with this id in this game.", "not-found"),
                          "422": ONLY_BAD_TEXT}}},
        "/seat/discord": {"post": {
            "operationId": "setDiscordId",
            "summary": "your Discord user id, for the game's Discord posts to mention you on your turn",
            "security": SEAT,
            "requestBody": body(ref("Discord")),
            "responses": {"200": webhooks_view, "400": BAD_JSON, "401": NO_SEAT, "413": TOO_LARGE,
                          "409": refused("The computer plays this seat now: it mentions nobody.", "computer-seat"),
                          "422": invalid("Not a Discord user id (15 to 20 digits).", "invalid-discord-id")}}},
        "/seat/rematch": {"post": {
            "operationId": "rematch",
            "summary": "play again after the end: a new game with the same players, where you are in at once and "
                       "the others are invited by mail; a game has one rematch, so asking again (or another "
                       "player asking) gives the one there is",
            "security": SEAT,
            "responses": {
                "200": json_answer(ref("Rematch"), "The rematch had started already."),
                "201": json_answer(ref("Rematch"), "The rematch is started; the others are invited."),
                "400": BAD_QUERY, "401": NO_SEAT,
                "409": refused("Not now: the game is not over, the computer plays this seat, a player of "
                                "the game cannot be mailed (asked never to be, or their mail bounces), or some of "
                                "its players blocked one another (`blocked`: never seated together again).",
                                "not-finished", "computer-seat", "suppressed", "unreachable", "blocked"),
                "422": ONLY_BAD_TEXT,
                "429": RATE_LIMITED,
            }}},
        "/seat/computer": {"post": {
            "operationId": "handToComputer",
            "summary": "let the computer play a seat for the rest of the game: yours, or (`seat`) that of a "
                       "player who is away (the autopilot moved for them three times running); it cannot be "
                       "taken back, and the seat gets no more mail",
            "security": SEAT,
            "requestBody": body(ref("HandOver")),
            "responses": {
                "200": seat_view,
                "400": refused("`bad-json`: the body is not a JSON object; `bad-request`: `seat` is not a "
                                f"whole number, or {UNSTORABLE}.", "bad-json", "bad-request"),
                "401": NO_SEAT,
                "409": refused("Not now: the game is not being played, the computer plays that seat already, "
                                "its player is not away, or you are the last person at the table.", "not-started",
                                "game-over", "computer-seat", "not-absent", "last-person"),
                "413": TOO_LARGE,
                "422": invalid("Not one of the levels, or `easy` for another player's seat "
                                "(`invalid-level`); or no such seat in this game (`invalid-seat`).",
                                "invalid-level", "invalid-seat"),
            }}},
    }


class Area(Protocol):
    """A module that describes its own routes with :mod:`.openapi_blocks`."""

    def schemas(self) -> dict[str, Any]: ...

    def paths(self) -> dict[str, Any]: ...


#: The areas that describe their own routes, beside the ones below (add one per module).
AREAS: tuple[Area, ...] = (openapi_premoves, openapi_seat_extras, openapi_calendar, openapi_lobby, openapi_people,
                           openapi_practice, openapi_push)


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
            "schemas": {**_schemas(), **{k: v for area in AREAS for k, v in area.schemas().items()}},
        },
        "paths": {**_paths(), **{k: v for area in AREAS for k, v in area.paths().items()}},
    }


#: The document, as ``/api/v1/openapi.json`` serves it.
OPENAPI: dict[str, Any] = _document()
