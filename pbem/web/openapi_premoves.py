"""The OpenAPI description of a seat's pre-moves (:mod:`pbem.web.api_premoves`)."""

from __future__ import annotations

from typing import Any

from pbem.games import MAX_PREMOVES
from ..rules.ahead import MAX_ORDER
from .openapi_blocks import (BAD_JSON, BAD_QUERY, NO_SEAT, ONLY_BAD_TEXT, RULES_CODES, SEAT, TOO_LARGE, body,
                             invalid, json_answer, ref, refused)

#: A move as the API takes it (the pattern of ``POST /seat/moves``'s ``move``).
_SPACE = r"[\t\n\u000b\f\r ]"
MOVE_PATTERN = (rf"^{_SPACE}*[0-9]+{_SPACE}*(?:->|-|>|\u2192|{_SPACE}+[tT][oO]{_SPACE}+|{_SPACE}+)"
                rf"{_SPACE}*[0-9]+{_SPACE}*$")
_MOVE = {"type": "string", "maxLength": 200, "pattern": MOVE_PATTERN, "example": "12-13",
         "description": "FROM-TO (also `FROM TO`, `FROM>TO`, `FROM to TO`)"}
_ORDER = {"type": ["array", "null"], "items": {"type": "integer"}, "maxItems": MAX_ORDER, "uniqueItems": True,
          "description": "the order in which to take the villages the move founds; if it does not match them "
                         "when the turn comes, this pre-move is passed over"}
_SET_MOVE = {"type": "object", "required": ["move", "order"], "additionalProperties": False,
             "properties": {"move": {"type": "string", "example": "12-13"}, "order": _ORDER}}


def schemas() -> dict[str, Any]:
    return {
        "NewPremoves": {
            "type": "object", "required": ["moves"],
            "properties": {"moves": {
                "type": "array", "maxItems": MAX_PREMOVES,
                "description": "your moves for your next turn, the one you prefer first: the first that is "
                               "legal when your turn comes is played at once (an empty list clears them)",
                "items": {"oneOf": [
                    _MOVE,
                    {"type": "object", "required": ["move"], "additionalProperties": False,
                     "properties": {"move": _MOVE, "order": _ORDER}},
                ]}}}},
        "Premoves": {
            "type": "object", "required": ["moves", "limit", "fired", "missed"],
            "description": "your pre-moves: seen by you only (never in a view, a post, the record or the "
                           "computer's reading of the game)",
            "properties": {
                "moves": {"type": "array", "items": _SET_MOVE, "maxItems": MAX_PREMOVES},
                "limit": {"type": "integer", "const": MAX_PREMOVES},
                "fired": {"oneOf": [{"type": "null"}, {
                    "type": "object", "required": ["ply", "move", "order", "rank", "of"],
                    "description": "the last pre-move played: at move `ply` + 1, your choice `rank` of `of`",
                    "properties": {"ply": {"type": "integer", "minimum": 0}, "move": {"type": "string"},
                                   "order": _ORDER, "rank": {"type": "integer", "minimum": 1},
                                   "of": {"type": "integer", "minimum": 1}}}]},
                "missed": {"oneOf": [{"type": "null"}, {
                    "type": "object", "required": ["ply", "moves"],
                    "description": "the last list of which none was legal when your turn came (move `ply` + 1)",
                    "properties": {"ply": {"type": "integer", "minimum": 0},
                                   "moves": {"type": "array", "items": _SET_MOVE}}}]},
            }},
    }


def paths() -> dict[str, Any]:
    view = json_answer(ref("Premoves"), "Your pre-moves.")
    return {
        "/seat/premoves": {
            "get": {"operationId": "getPremoves", "summary": "your pre-moves for your next turn",
                    "security": SEAT,
                    "responses": {"200": view, "400": BAD_QUERY, "401": NO_SEAT, "422": ONLY_BAD_TEXT}},
            "put": {
                "operationId": "setPremoves",
                "summary": "set your pre-moves while it is not your turn: when it comes, the first of them that "
                           "is legal then is played at once; the list is cleared when one is played or none "
                           "can be (your turn mail says so)",
                "security": SEAT,
                "requestBody": body(ref("NewPremoves")),
                "responses": {
                    "200": view, "400": BAD_JSON, "401": NO_SEAT, "413": TOO_LARGE,
                    "409": refused("Not now: it is your turn (`your-turn`: move instead), the game has not started "
                                    "or is over, or the computer plays this seat.", "your-turn", "not-started",
                                    "game-over", "computer-seat"),
                    "422": invalid("Not a list of moves, too many (`too-many-premoves`), or a move that can never "
                                    "be legal: the rules' codes of record.md (a territory the board lacks, two "
                                    "that do not border, an empty one, an order that is no list of villages "
                                    "next to the move).", "invalid-premoves", "too-many-premoves", *RULES_CODES),
                }},
            "delete": {"operationId": "clearPremoves", "summary": "clear your pre-moves (at any time)",
                       "security": SEAT,
                       "responses": {"200": view, "400": BAD_QUERY, "401": NO_SEAT, "422": ONLY_BAD_TEXT}},
        },
    }
