"""The lobby's part of the OpenAPI document: the tables waiting for players,
joining one, and what ``POST /games`` takes for them (open seats, requirements);
quick match and substitutes."""

from __future__ import annotations

from typing import Any

from ..games.lobby import TABLES_PER_PAGE
from ..games.open_seats import MAX_RATING, MIN_RATING
from ..games.starting import LEVELS, MAX_TURN_HOURS
from ..people.players import MAX_ADDRESS, MAX_NAME
from ..rules.tables import MAX_PLAYERS, MIN_PLAYERS
from ..words.language import DEFAULT_TIME_ZONE, LANGUAGES, time_zones
from .openapi_blocks import (BAD_JSON, BAD_QUERY, GAME_ID, TOO_LARGE, address_patterns, body, game_id, invalid,
                             json_answer, name_patterns, ref, refused)

_SHARE = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
_RATING = {"type": ["number", "null"], "minimum": MIN_RATING, "maximum": MAX_RATING}


def schemas() -> dict[str, Any]:
    name, name_refused = name_patterns()
    address, address_refused = address_patterns()
    return {
        "OpenSeat": {"type": "object", "required": ["open"], "additionalProperties": False, "properties": {
            "open": {"const": True, "description": "a seat for anyone: the game is listed in the lobby once its "
                                                   "first player has confirmed it, until it is full or expires"}}},
        "Requirements": {"type": "object", "properties": {
            "min_in_time": {**_SHARE, "description": "the least share of their moves in finished games a joiner "
                                                     "made in time (not by the autopilot); someone with no finished "
                                                     "game meets no such minimum"},
            "min_rating": {**_RATING, "description": "the lowest rating (mu - 3 sigma; 0 for a newcomer)"},
            "max_rating": {**_RATING, "description": "the highest rating; a range whose lowest is above its "
                                                     "highest admits nobody"}},
            "description": "what a game with open seats asks of who joins (ignored without an open seat)"},
        "Reliability": {"type": "object", "required": ["games", "in_time", "median_hours", "left"],
                        "additionalProperties": False, "properties": {
                            "games": {"type": "integer", "minimum": 0, "description": "finished games"},
                            "in_time": _SHARE | {"description": "the share of their moves made in time; null "
                                                                "before any"},
                            "median_hours": {"type": ["number", "null"], "minimum": 0,
                                             "description": "the median hours they took for a move"},
                            "left": {"type": "integer", "minimum": 0,
                                     "description": "games they handed to the computer before the end"}}},
        "LobbyTable": {"type": "object", "additionalProperties": False, "required": [
            "id", "seats", "open_seats", "turn_hours", "language", "requirements", "created_at", "players"],
            "properties": {
                "id": {"type": "string", "pattern": GAME_ID, "description": "the game's public id"},
                "seats": {"type": "integer", "minimum": MIN_PLAYERS, "maximum": MAX_PLAYERS},
                "open_seats": {"type": "integer", "minimum": 0, "maximum": MAX_PLAYERS - 1,
                               "description": "open seats nobody holds now (a join holds one until it is "
                                             "accepted or its hold runs out)"},
                "turn_hours": {"type": "integer", "minimum": 1, "maximum": MAX_TURN_HOURS},
                "language": {"enum": list(LANGUAGES), "description": "the language of the one who started it"},
                "requirements": {"type": "object", "required": ["min_in_time", "min_rating", "max_rating"],
                                 "properties": {"min_in_time": _SHARE, "min_rating": _RATING,
                                                "max_rating": _RATING}},
                "created_at": {"type": "string", "format": "date-time"},
                "players": {"type": "array", "maxItems": MAX_PLAYERS, "items": {
                    "type": "object", "required": ["name", "bot", "reliability"], "additionalProperties": False,
                    "properties": {"name": {"type": "string"},
                                   "bot": {"enum": [*LEVELS, None], "description": "the computer's level"},
                                   "reliability": {"anyOf": [ref("Reliability"), {"type": "null"}]}}},
                    "description": "who sits there already, by display name (never an address)"}}},
        "SubstituteSeat": {"type": "object", "additionalProperties": False, "required": [
            "id", "seat", "name", "seats", "turn_hours", "language", "ply", "players"],
            "description": "a seat of a running lobby game whose player the computer moved for three times "
                           "running: a volunteer may take it over (POST /lobby/{id}/substitute)",
            "properties": {
                "id": {"type": "string", "pattern": GAME_ID, "description": "the game's public id"},
                "seat": {"type": "integer", "minimum": 0, "maximum": MAX_PLAYERS - 1},
                "name": {"type": "string", "description": "the away player's display name"},
                "seats": {"type": "integer", "minimum": MIN_PLAYERS, "maximum": MAX_PLAYERS},
                "turn_hours": {"type": "integer", "minimum": 1, "maximum": MAX_TURN_HOURS},
                "language": {"enum": list(LANGUAGES)},
                "ply": {"type": "integer", "minimum": 0, "description": "the moves made so far"},
                "players": {"type": "array", "maxItems": MAX_PLAYERS, "items": {
                    "type": "object", "required": ["name", "bot", "reliability"], "additionalProperties": False,
                    "properties": {"name": {"type": "string"},
                                   "bot": {"enum": [*LEVELS, None]},
                                   "reliability": {"anyOf": [ref("Reliability"), {"type": "null"}]}}},
                    "description": "the others at the table, by display name (never an address)"}}},
        "Lobby": {"type": "object", "required": ["tables", "page", "more", "substitutes"],
                  "additionalProperties": False,
                  "properties": {"substitutes": {"type": "array", "items": ref("SubstituteSeat"),
                                                 "description": "away seats offered to volunteers (on the "
                                                                "first page only, whatever the filters)"},
                                 "tables": {"type": "array", "maxItems": TABLES_PER_PAGE, "items": ref("LobbyTable")},
                                 "page": {"type": "integer", "minimum": 1},
                                 "more": {"type": "boolean", "description": "whether a next page has tables"}}},
        "Join": {"type": "object", "required": ["name", "email"], "properties": {
            "name": {"type": "string", "pattern": name, "not": {"pattern": name_refused},
                     "description": f"your display name: 1 to {MAX_NAME} characters, as at the start form; not "
                                    "a name someone at the table has"},
            "email": {"type": "string", "pattern": address, "not": {"pattern": address_refused},
                      "description": f"your address (at most {MAX_ADDRESS} characters), as at the start form: "
                                     "the invitation goes there, and nobody else ever sees it"},
            "language": {"type": ["string", "null"], "enum": [*LANGUAGES, None]},
            "time_zone": {"type": ["string", "null"], "enum": [*time_zones(), DEFAULT_TIME_ZONE, None]}}},
        "Joined": {"type": "object", "required": ["id", "mailed"], "additionalProperties": False, "properties": {
            "id": {"type": "string", "pattern": GAME_ID}, "mailed": {"const": True}}},
        "QuickMatch": {"type": "object", "required": ["name", "email", "players"], "properties": {
            "name": {"type": "string", "pattern": name, "not": {"pattern": name_refused},
                     "description": f"your display name: 1 to {MAX_NAME} characters, as at the start form"},
            "email": {"type": "string", "pattern": address, "not": {"pattern": address_refused},
                      "description": f"your address (at most {MAX_ADDRESS} characters): the confirmation goes "
                                     "there, and nobody else ever sees it"},
            "players": {"type": "array", "minItems": 1, "maxItems": MAX_PLAYERS,
                        "items": {"type": "integer", "minimum": MIN_PLAYERS, "maximum": MAX_PLAYERS},
                        "description": "the player counts you accept, e.g. [3, 4]"},
            "turn_hours": {"type": "integer", "minimum": 1, "maximum": MAX_TURN_HOURS,
                           "description": "the turn time you want (default: the service's); only people who "
                                          "want the same are seated together"},
            "language": {"type": ["string", "null"], "enum": [*LANGUAGES, None],
                         "description": "your language: people of the same language are seated together first"},
            "time_zone": {"type": ["string", "null"], "enum": [*time_zones(), DEFAULT_TIME_ZONE, None]}}},
        "QuickMatchAsked": {"type": "object", "required": ["mailed"], "additionalProperties": False,
                            "properties": {"mailed": {"const": True}}},
    }


def paths() -> dict[str, Any]:
    def whole(name: str, low: int, high: int, description: str) -> dict[str, Any]:
        return {"name": name, "in": "query", "required": False, "description": description,
                "schema": {"type": "integer", "minimum": low, "maximum": high}}

    bad_filter = refused("`bad-filter`: a filter that is not one of its values; `bad-request`: the query holds "
                         "text that cannot be stored.", "bad-filter", "bad-request")
    not_listed = refused("There is no such table in the lobby (or its first player has not confirmed it).",
                         "not-found")
    return {
        "/lobby": {"get": {
            "operationId": "getLobby",
            "summary": f"the tables waiting for players, newest first, {TABLES_PER_PAGE} a page",
            "parameters": [
                whole("players", MIN_PLAYERS, MAX_PLAYERS, "only tables of this many seats"),
                whole("max_turn_hours", 1, MAX_TURN_HOURS, "only tables whose turn time is at most this"),
                {"name": "language", "in": "query", "required": False, "schema": {"enum": list(LANGUAGES)},
                 "description": "only tables started in this language"},
                whole("page", 1, 10_000, "the page (from 1)")],
            "responses": {"200": json_answer(ref("Lobby"), "One page of tables."), "400": bad_filter}}},
        "/lobby/{id}": {"get": {
            "operationId": "getLobbyTable", "summary": "one table as the lobby shows it",
            "parameters": [game_id("the table's (its game's) public id")],
            "responses": {"200": json_answer(ref("LobbyTable"), "The table."), "400": BAD_QUERY,
                          "404": not_listed}}},
        "/lobby/{id}/join": {"post": {
            "operationId": "joinTable",
            "summary": "join a table: an open seat is held for you and its invitation mailed; accepting it "
                       "(the seat page, or POST /seat/accept with the link's token) takes the seat",
            "parameters": [game_id("the table's (its game's) public id")],
            "requestBody": body(ref("Join")),
            "responses": {
                "202": json_answer(ref("Joined"), "An open seat is held for you; the invitation is on its way."),
                "400": BAD_JSON, "404": not_listed, "413": TOO_LARGE,
                "409": refused("Not this table: it has started or every open seat is taken (`full`), someone "
                               "joined first and holds the seats left (`seat-taken`), you have a seat there "
                               "(`already-seated`), you do not meet its requirements (`in-time-required`, "
                               "`rating-out-of-range`; a hidden profile meets none: `profile-hidden`), you and "
                               "someone seated there blocked one another (`blocked`), or your address holds three "
                               "joins not yet accepted (`too-many-joins`).", "full", "seat-taken", "already-seated",
                               "in-time-required", "rating-out-of-range", "profile-hidden", "blocked",
                               "too-many-joins"),
                "422": invalid("The name or the address is not acceptable, as at the start form; someone at the "
                               "table has this name (`invalid-name`); or the address cannot be invited "
                               "(`cannot-invite`, not saying why).", "invalid-name", "invalid-email",
                               "invalid-language", "invalid-time-zone", "cannot-invite"),
                "429": refused("Too many joins from this client or to this address: try again after "
                               "`Retry-After` seconds.", "rate-limited",
                               **{"Retry-After": {"description": "seconds to wait", "required": True,
                                                  "schema": {"type": "integer", "minimum": 1}}}),
            }}},
        "/lobby/{id}/substitute": {"post": {
            "operationId": "substituteSeat",
            "summary": "take over an away seat of a running lobby game: an invitation is mailed whose link "
                       "(the seat page, or POST /seat/accept with its token) takes the seat over, its clan and "
                       "position; the away player is told and their link stops working",
            "parameters": [game_id("the game's public id")],
            "requestBody": body(ref("Join")),
            "responses": {
                "202": json_answer(ref("Joined"), "The invitation is on its way."),
                "400": BAD_JSON, "404": refused("There is no such game that began in the lobby.", "not-found"),
                "413": TOO_LARGE,
                "409": refused("No seat there waits for a substitute, or one volunteer's invitation for it is out "
                               "already (`no-substitute-seat`); you have a seat there (`already-seated`); you and "
                               "someone there blocked one another (`blocked`).", "no-substitute-seat",
                               "already-seated", "blocked"),
                "422": invalid("The name or the address is not acceptable, as at the start form; someone at the "
                               "table has this name (`invalid-name`); or the address cannot be invited "
                               "(`cannot-invite`).", "invalid-name", "invalid-email", "invalid-language",
                               "invalid-time-zone", "cannot-invite"),
                "429": refused("Too many requests from this client or to this address: try again after "
                               "`Retry-After` seconds.", "rate-limited",
                               **{"Retry-After": {"description": "seconds to wait", "required": True,
                                                  "schema": {"type": "integer", "minimum": 1}}}),
            }}},
        "/lobby/quick": {"post": {
            "operationId": "quickMatch",
            "summary": "wait for a table of strangers: a confirmation is mailed whose link (the seat page, or "
                       "POST /seat/accept with its token) confirms; you are then seated at once at a lobby table "
                       "that fits or with people waiting, or as soon as enough are, and the same link shows the game",
            "requestBody": body(ref("QuickMatch")),
            "responses": {
                "202": json_answer(ref("QuickMatchAsked"), "The confirmation is on its way."),
                "400": BAD_JSON, "413": TOO_LARGE,
                "409": refused("Your address waits for a quick match already (`already-waiting`), or it holds "
                               "three joins and requests not yet accepted (`too-many-joins`).", "already-waiting",
                               "too-many-joins"),
                "422": invalid("The name, the address, the player counts, the turn time or the language is not "
                               "acceptable, as at the start form; or the address cannot be invited "
                               "(`cannot-invite`, not saying why).", "invalid-name", "invalid-email",
                               "invalid-players", "invalid-turn-hours", "invalid-language", "invalid-time-zone",
                               "cannot-invite"),
                "429": refused("Too many requests from this client or to this address: try again after "
                               "`Retry-After` seconds.", "rate-limited",
                               **{"Retry-After": {"description": "seconds to wait", "required": True,
                                                  "schema": {"type": "integer", "minimum": 1}}}),
            }}},
    }
