"""The OpenAPI description of Web Push's routes (:mod:`.push_api`)."""

from __future__ import annotations

from typing import Any

from ..core.push_tables import MAX_ENDPOINT
from ..table.push import MINUTES, MODES
from .openapi_blocks import (BAD_JSON, BAD_QUERY, NO_SEAT, ONLY_BAD_TEXT, SEAT, TOO_LARGE, body, invalid,
                             json_answer, ref, refused)

PUSH_OFF = refused("`push-off`: this service sends no pushes (it has no VAPID key).", "push-off")


def schemas() -> dict[str, Any]:
    return {
        "PushKey": {"type": "object", "required": ["public_key"], "additionalProperties": False, "properties": {
            "public_key": {"type": "string", "pattern": "^[A-Za-z0-9_-]{87}$",
                           "description": "the VAPID public key (RFC 8292): the uncompressed P-256 point, "
                                          "base64url, for `applicationServerKey`"}}},
        "PushSubscription": {
            "type": "object", "required": ["endpoint", "keys"], "additionalProperties": False,
            "description": "the browser's `PushSubscription.toJSON()`; the endpoint must be an https address "
                           "that resolves to public addresses only, as a webhook's",
            "properties": {
                "endpoint": {"type": "string", "minLength": 1, "maxLength": MAX_ENDPOINT,
                             "pattern": "^[hH][tT][tT][pP][sS]?://"},
                "expirationTime": {"type": ["number", "null"], "minimum": 0},
                "keys": {"type": "object", "required": ["p256dh", "auth"], "additionalProperties": False,
                         "properties": {
                             "p256dh": {"type": "string", "pattern": "^[A-Za-z0-9_-]{87}=?$",
                                        "description": "the browser's P-256 public key (65 bytes), base64url"},
                             "auth": {"type": "string", "pattern": "^[A-Za-z0-9_-]{22}(?:==)?$",
                                      "description": "the 16-byte authentication secret, base64url"}}}}},
        "PushState": {"type": "object", "required": ["subscribed", "mode", "minutes"], "additionalProperties": False,
                      "properties": {
                          "subscribed": {"type": "boolean", "description": "the seat has a subscription"},
                          "mode": {"enum": [str(m) for m in MODES],
                                   "description": "with a subscription, the turn mail goes as always (`mail`), "
                                                  "only if the seat page was not opened within `minutes` of the "
                                                  "turn (`push-first`), or not at all (`push-only`); set on the "
                                                  "seat page"},
                          "minutes": {"enum": list(MINUTES)}}},
    }


def paths() -> dict[str, Any]:
    state = json_answer(ref("PushState"), "The seat's push, as it is now.")
    return {
        "/push/key": {"get": {
            "operationId": "getPushKey",
            "summary": "the key a browser subscribes to this service's pushes with",
            "responses": {"200": json_answer(ref("PushKey"), "Push is on."), "400": BAD_QUERY, "404": PUSH_OFF}}},
        "/seat/push": {
            "post": {
                "operationId": "subscribePush",
                "summary": "store this browser's push subscription for the seat (replacing the one it had): when "
                           "it becomes the seat's turn, an encrypted push names the game and opens the seat page",
                "security": SEAT,
                "requestBody": body(ref("PushSubscription")),
                "responses": {
                    "200": state, "400": BAD_JSON, "401": NO_SEAT, "404": PUSH_OFF, "413": TOO_LARGE,
                    "409": refused("The game is over, or the computer plays this seat.", "game-over",
                                   "computer-seat"),
                    "422": invalid("`invalid-push-subscription`: a field is missing or wrong (the message starts "
                                   "with its name: `endpoint`, `keys.p256dh`, ...), or the endpoint is not https, "
                                   "cannot be found or leads to a private or local network.",
                                   "invalid-push-subscription")}},
            "delete": {
                "operationId": "unsubscribePush",
                "summary": "forget the seat's push subscription (none is no error)",
                "security": SEAT,
                "responses": {"200": state, "400": BAD_QUERY, "401": NO_SEAT, "422": ONLY_BAD_TEXT}}},
    }
