"""The OpenAPI description of strangers, safely (:mod:`pbem.web.people_api`):
blocking another player of your game, and reporting a table message."""

from __future__ import annotations

from typing import Any

from ..rules.tables import MAX_PLAYERS
from ..table.reports import MAX_REASON
from .openapi_blocks import (BAD_JSON, BAD_QUERY, NO_SEAT, SEAT, TOO_LARGE, invalid, json_answer,
                             ref, refused)

_ID = {"type": "integer", "minimum": 1, "maximum": 2**31 - 1}
_SEAT = {"type": "integer", "minimum": 0, "maximum": MAX_PLAYERS - 1}


def schemas() -> dict[str, Any]:
    return {
        "BlockTarget": {
            "type": "object",
            "description": "whom to block: the player in a seat of your game, or the author of a message at its "
                           "table (one of the two)",
            "oneOf": [{"required": ["seat"], "not": {"required": ["message"]}},
                      {"required": ["message"], "not": {"required": ["seat"]}}],
            "properties": {"seat": {**_SEAT, "description": "a seat of your game"},
                           "message": {**_ID, "description": "the id of a table message of your game"}}},
        "Blocked": {
            "type": "object", "required": ["seat", "name", "blocked", "changed"],
            "properties": {"seat": {**_SEAT, "description": "their seat at your game's table"},
                           "name": {"type": "string", "description": "their name at your game's table"},
                           "blocked": {"type": "boolean", "description": "whether you block them now"},
                           "changed": {"type": "boolean", "description": "whether this request changed anything"}}},
        "Report": {
            "type": "object",
            "properties": {"reason": {"type": ["string", "null"], "maxLength": MAX_REASON,
                                      "description": f"why (optional; at most {MAX_REASON} characters)"}}},
        "Reported": {
            "type": "object", "required": ["message", "reported", "created"],
            "properties": {"message": _ID, "reported": {"const": True},
                           "created": {"type": "boolean",
                                       "description": "whether this request stored the report (false: you had "
                                                      "reported it already)"}}},
    }


_NOT_YOURS = refused("There is nobody to block there: yourself (`own-seat`), the computer or an erased player "
                     "(`not-a-person`); or the computer plays your seat (`computer-seat`).",
                     "own-seat", "not-a-person", "computer-seat")
_NO_MESSAGE = refused("There is no such message at your game's table (`no-message`), or the id in the path "
                      "is not a whole number from 0 (`not-found`).", "no-message", "not-found")


def paths() -> dict[str, Any]:
    blocked = json_answer(ref("Blocked"), "Whom the request was about, and whether you block them now.")
    return {
        "/seat/block": {"post": {
            "operationId": "blockPlayer",
            "summary": "block a player of your game (by seat, or by a message of theirs): their table talk is "
                       "hidden from you (page and mail) in every game, and you are never seated together again; "
                       "they are not told, and you never learn their address",
            "security": SEAT,
            "requestBody": {"required": True, "content": {"application/json": {"schema": ref("BlockTarget")}}},
            "responses": {
                "200": blocked, "201": blocked,
                "400": BAD_JSON, "401": NO_SEAT, "404": _NO_MESSAGE, "409": _NOT_YOURS, "413": TOO_LARGE,
                "422": invalid("Neither or both of `seat` and `message` (`no-target`), or no such seat in your "
                               "game (`invalid-seat`).", "no-target", "invalid-seat"),
            }}},
        "/seat/block/{seat}": {"delete": {
            "operationId": "unblockPlayer",
            "summary": "unblock the player in a seat of your game (unblocking someone not blocked changes nothing)",
            "security": SEAT,
            "parameters": [{"name": "seat", "in": "path", "required": True, "description": "their seat",
                            "schema": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1}}],
            "responses": {
                "200": blocked, "400": BAD_QUERY, "401": NO_SEAT, "409": _NOT_YOURS,
                "404": refused("The seat in the path is not a whole number from 0.", "not-found"),
                "422": refused("No such seat in your game (`invalid-seat`); `bad-text`: a body was sent, holding "
                               "text that cannot be stored.", "invalid-seat", "bad-text"),
            }}},
        "/seat/talk/{message_id}/report": {"post": {
            "operationId": "reportMessage",
            "summary": "report another player's table message to the people who run the service (`pbem admin "
                       "reports`); reporting it again changes nothing",
            "security": SEAT,
            "parameters": [{"name": "message_id", "in": "path", "required": True,
                            "description": "the message's id", "schema": {"type": "integer", "minimum": 0,
                                                                           "maximum": 2**31 - 1}}],
            "requestBody": {"required": False, "content": {"application/json": {"schema": ref("Report")}}},
            "responses": {
                "200": json_answer(ref("Reported"), "You had reported it already."),
                "201": json_answer(ref("Reported"), "The report is stored."),
                "400": BAD_JSON, "401": NO_SEAT, "404": _NO_MESSAGE,
                "409": refused("Your own message (`own-message`), you have not accepted the invitation "
                               "(`table-closed`), or the computer plays your seat (`computer-seat`).",
                               "own-message", "table-closed", "computer-seat"),
                "413": TOO_LARGE,
                "422": invalid("The reason is not text (`bad-reason`) or too long (`reason-too-long`).",
                               "bad-reason", "reason-too-long"),
                "429": refused("Too many reports from this seat: try again after `Retry-After` seconds.",
                               "rate-limited", **{"Retry-After": {"description": "seconds to wait", "required": True,
                                                                  "schema": {"type": "integer", "minimum": 1}}}),
            }}},
    }
