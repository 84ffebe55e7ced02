"""The OpenAPI description of the calendar route (:mod:`pbem.web.calendar`)."""

from __future__ import annotations

from typing import Any

from .openapi_blocks import BAD_QUERY, NO_SEAT, SEAT, json_answer, ref


def schemas() -> dict[str, Any]:
    return {
        "CalendarFeed": {
            "type": "object", "required": ["url", "webcal"], "additionalProperties": False,
            "description": "The seat's private iCalendar feed: one event at the game's current deadline while it "
                           "runs, with an alarm, updated as the deadline moves. The address carries its own "
                           "read-only token, which opens the feed and nothing else; keep it to yourself.",
            "properties": {
                "url": {"type": "string", "format": "uri", "pattern": "^https?://[^/]+/calendar/[A-Za-z0-9_-]+\\.ics$",
                        "description": "the feed over http(s)"},
                "webcal": {"type": "string", "pattern": "^webcal://[^/]+/calendar/[A-Za-z0-9_-]+\\.ics$",
                           "description": "the same address as `webcal://`, which calendar programs subscribe to"},
            },
        },
    }


def paths() -> dict[str, Any]:
    return {
        "/seat/calendar": {"get": {
            "operationId": "getCalendar",
            "summary": "the address of your seat's private calendar feed of deadlines (the same address each time)",
            "security": SEAT,
            "responses": {"200": json_answer(ref("CalendarFeed"), "The feed's address."),
                          "400": BAD_QUERY, "401": NO_SEAT}}},
    }
