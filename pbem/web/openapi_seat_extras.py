"""The OpenAPI description of a seat's extras (:mod:`.seat_extras_api`):
nudging the player to move, and the seat's private notes."""

from __future__ import annotations

from typing import Any

from pbem.games.notes import MAX_NOTES, Notes
from pbem.games.nudges import NudgeSent
from .openapi_blocks import (BAD_JSON, BAD_QUERY, GAME_ID, NO_SEAT, ONLY_BAD_TEXT, SEAT, TOO_LARGE, body, header,
                             invalid, json_answer, ref, refused)
from .schema import object_schema


def schemas() -> dict[str, Any]:
    return {
        "NudgeSent": object_schema(NudgeSent, description="the nudge went: whom, and when you may nudge again",
                                   refine={"game": {"pattern": GAME_ID}}),
        "Notes": object_schema(Notes, description="your private notes for this game: only your seat token "
                                                  "reads them; no view, webhook, record or other mail holds them"),
        "NewNotes": {"type": "object", "required": ["text"], "properties": {
            "text": {"type": "string", "maxLength": MAX_NOTES,
                     "description": f"plain text, at most {MAX_NOTES} characters (a CR LF counts as one); "
                                    "empty: no notes"},
            "in_turn_mail": {"type": ["boolean", "null"],
                             "description": "show them at the foot of your own turn mail; absent or null: as "
                                            "before (off at first)"}}},
    }


def paths() -> dict[str, Any]:
    notes = json_answer(ref("Notes"), "Your notes.")
    return {
        "/seat/nudge": {"post": {
            "operationId": "nudge",
            "summary": "nudge the player you are waiting on: a short mail to them saying you wait for their move "
                       "(after waiting on the same mover for NUDGE_AFTER_HOURS, 24 by default; once a day per "
                       "game), and a push where they have a push subscription; dropped if they move before it "
                       "goes",
            "security": SEAT,
            "responses": {
                "202": json_answer(ref("NudgeSent"), "The nudge is on its way."),
                "400": BAD_QUERY, "401": NO_SEAT,
                "409": refused("Not now: the game is not being played, it is your own turn (`your-turn`), the "
                                "computer plays your seat or the mover's (`computer-turn`), the mover cannot be "
                                "mailed (`cannot-nudge`), or the mover is away, their clock paused until their "
                                "`paused_until` in the view (`mover-away`): nudge them after that.",
                                "not-started", "game-over", "your-turn", "computer-seat", "computer-turn",
                                "cannot-nudge", "mover-away"),
                "422": ONLY_BAD_TEXT,
                "429": refused("Too soon: you have not waited long enough on this mover, or you nudged in this "
                                "game less than a day ago; try again after `Retry-After` seconds.", "nudge-too-soon",
                                **{"Retry-After": header("seconds to wait", {"type": "integer", "minimum": 1})}),
            }}},
        "/seat/notes": {
            "get": {"operationId": "getNotes", "summary": "your private notes for this game",
                    "security": SEAT,
                    "responses": {"200": notes, "400": BAD_QUERY, "401": NO_SEAT}},
            "put": {
                "operationId": "setNotes",
                "summary": "keep your private notes for this game (they replace the ones kept)",
                "security": SEAT,
                "requestBody": body(ref("NewNotes")),
                "responses": {
                    "200": notes, "400": BAD_JSON, "401": NO_SEAT, "413": TOO_LARGE,
                    "422": invalid("Not text, or `in_turn_mail` not a boolean (`invalid-notes`); longer than "
                                    f"{MAX_NOTES} characters (`notes-too-long`).", "invalid-notes",
                                    "notes-too-long"),
                }}},
    }
