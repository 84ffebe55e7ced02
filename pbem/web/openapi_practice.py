"""The OpenAPI description of practice from here (:mod:`.practice_api`)."""

from __future__ import annotations

from typing import Any

from pbem.games.starting import LEVELS
from .openapi_blocks import (GAME_ID, NO_SEAT, SEAT, TOO_LARGE, UNSTORABLE, body, header, invalid, json_answer, ref,
                             refused)


def schemas() -> dict[str, Any]:
    return {
        "PracticeRequest": {"type": "object", "required": ["level"], "properties": {
            "level": {"enum": list(LEVELS), "description": "the computer's level in the other seats"},
            "ply": {"type": ["integer", "null"], "minimum": 0,
                    "description": "the position you saw (the view's `ply`): refused as `stale` if the game has "
                                   "moved on since; absent or null: the position now"}}},
        "Practice": {"type": "object", "required": ["game", "token"], "additionalProperties": False,
                     "properties": {
                         "game": {"type": "string", "pattern": GAME_ID, "description": "the practice game's public id"},
                         "token": {"type": "string", "minLength": 1,
                                   "description": "your seat token in it (the practice game is yours alone)"}}},
    }


def paths() -> dict[str, Any]:
    return {
        "/seat/practice": {"post": {
            "operationId": "practiceFromHere",
            "summary": "practise from here: a private game against the computer from your seat's current position, "
                       "in your seat, with the others' clans dealt again among those your seat cannot rule out; "
                       "the game you play is not changed, and the practice game is never rated",
            "security": SEAT,
            "requestBody": body(ref("PracticeRequest")),
            "responses": {
                "201": json_answer(ref("Practice"), "The practice game has started (the computer has moved, if it "
                                                    "was to move)."),
                "400": refused("`bad-json`: the body is not a JSON object; `bad-request`: `ply` is not a whole "
                                f"number, or {UNSTORABLE}.", "bad-json", "bad-request"),
                "401": NO_SEAT,
                "409": refused("Not now: the game is not being played (practise from its replay once it is over), "
                                "the computer plays this seat, or the game has moved on since the `ply` you saw.",
                                "not-started", "game-over", "computer-seat", "stale"),
                "413": TOO_LARGE,
                "422": invalid("Not one of the levels (`invalid-level`).", "invalid-level"),
                "429": refused(
                    "Too many new games from this client, or practice games for this seat's address: try again "
                    "after `Retry-After` seconds.", "rate-limited",
                    **{"Retry-After": header("seconds to wait", {"type": "integer", "minimum": 1})}),
            }}},
    }
