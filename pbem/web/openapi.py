"""The OpenAPI description served at ``/api/v1/openapi.json``."""

from __future__ import annotations

from typing import Any

_ERROR = {"$ref": "#/components/schemas/Error"}
_VIEW = {"$ref": "#/components/schemas/View"}


def _responses(ok: int, ok_schema: dict[str, Any], *errors: int) -> dict[str, Any]:
    out: dict[str, Any] = {str(ok): {"description": "OK", "content": {"application/json": {"schema": ok_schema}}}}
    for status in errors:
        out[str(status)] = {"description": "Refused", "content": {"application/json": {"schema": _ERROR}}}
    return out


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Clans by Mail", "version": "1"},
    "servers": [{"url": "/api/v1"}],
    "components": {
        "securitySchemes": {"seat": {"type": "http", "scheme": "bearer",
                                     "description": "the seat token from your seat link"}},
        "schemas": {
            "Error": {"type": "object", "required": ["error"], "properties": {"error": {
                "type": "object", "required": ["code", "message"],
                "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}}},
            "View": {"type": "object", "description": "a game as the caller may see it",
                     "properties": {
                         "game": {"type": "integer"}, "status": {"type": "string"},
                         "ply": {"type": "integer"}, "huts": {"type": "object"},
                         "villages": {"type": "array"}, "clan_scores": {"type": "object"},
                         "players": {"type": "array"}, "next": {"type": ["string", "null"]},
                         "deadline": {"type": ["string", "null"]}, "history": {"type": "array"},
                         "clan": {"type": ["string", "null"], "description": "your clan (seat views only)"},
                         "your_turn": {"type": "boolean"},
                         "legal_moves": {"type": "array", "items": {"type": "string"}}}},
            "NewGame": {"type": "object", "required": ["players"], "properties": {
                "players": {"type": "array", "minItems": 2, "maxItems": 4, "items": {
                    "type": "object", "required": ["name", "email"],
                    "properties": {"name": {"type": "string"}, "email": {"type": "string"}}}},
                "turn_hours": {"type": "integer", "minimum": 1, "default": 72}}},
            "Move": {"type": "object", "required": ["move", "ply"], "properties": {
                "move": {"type": "string", "example": "12-13"},
                "order": {"type": "array", "items": {"type": "integer"}},
                "ply": {"type": "integer", "description": "the number of moves you saw"}}},
        },
    },
    "paths": {
        "/games": {"post": {"summary": "start a game and invite its players",
                            "requestBody": _body({"$ref": "#/components/schemas/NewGame"}),
                            "responses": _responses(201, _VIEW, 400, 413, 422)}},
        "/games/{id}": {"get": {"summary": "the public view of a game",
                                "parameters": [{"name": "id", "in": "path", "required": True,
                                                "schema": {"type": "integer"}}],
                                "responses": _responses(200, _VIEW, 404)}},
        "/games/{id}/record": {"get": {"summary": "the game's clans-record/1 (clans once over)",
                                       "parameters": [{"name": "id", "in": "path", "required": True,
                                                       "schema": {"type": "integer"}}],
                                       "responses": _responses(200, {"type": "object"}, 404, 409)}},
        "/seat": {"get": {"summary": "your seat's view", "security": [{"seat": []}],
                          "responses": _responses(200, _VIEW, 401)}},
        "/seat/accept": {"post": {"summary": "accept the invitation", "security": [{"seat": []}],
                                  "responses": _responses(200, _VIEW, 401, 409)}},
        "/seat/moves": {"post": {"summary": "make a move", "security": [{"seat": []}],
                                 "requestBody": _body({"$ref": "#/components/schemas/Move"}),
                                 "responses": _responses(200, _VIEW, 400, 401, 409, 413, 422)}},
        "/seat/pause": {"post": {"summary": "pause your clock for a vacation (days are limited per game)",
                                 "security": [{"seat": []}],
                                 "requestBody": _body({"type": "object", "required": ["days"], "properties": {
                                     "days": {"type": "integer", "minimum": 1}}}),
                                 "responses": _responses(200, _VIEW, 401, 409, 422)}},
        "/seat/mail": {"post": {"summary": "turn mail: every, digest or none", "security": [{"seat": []}],
                                "requestBody": _body({"type": "object", "properties": {
                                    "mail": {"enum": ["every", "digest", "none"]}}}),
                                "responses": _responses(200, _VIEW, 401, 422)}},
    },
}
