"""The answers' JSON is written by orjson (pbem/web/json_answers.py): the same
document Flask's own provider writes, whatever the values."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any
from uuid import UUID

from flask import Flask, jsonify
from flask.json.provider import DefaultJSONProvider
from markupsafe import Markup

from pbem.web.json_answers import Answers


@dataclass
class Point:
    x: int
    label: str


VALUES: dict[str, Any] = {
    "text": "Jó játékot! Přeji štěstí, boa sorte \u2603 \"quoted\" \\ </script>",
    "numbers": [0, -1, 2**63 - 1, 1.5, 1e16, 0.1, True, None],
    "when": datetime(2026, 12, 4, 22, 35, tzinfo=timezone.utc),
    "money": Decimal("1.10"),
    "id": UUID("12345678-1234-5678-1234-567812345678"),
    "point": Point(3, "x"),
    "markup": Markup("<b>ok</b>"),
    "keys": {1: "one", "2": "two"},
    "nested": {"huts": {"12": {"red": 1, "blue": 2}}, "history": [{"ply": 1, "villages": []}]},
}


def _answer(provider: type[DefaultJSONProvider], value: Any) -> bytes:
    app = Flask(__name__)
    app.json = provider(app)
    app.json.sort_keys = False  # as the service's
    with app.app_context():
        response = jsonify(value)
        assert response.mimetype == "application/json"
        return response.get_data()


def test_an_answer_is_the_document_flask_writes() -> None:
    ours, flasks = _answer(Answers, VALUES), _answer(DefaultJSONProvider, VALUES)
    assert json.loads(ours) == json.loads(flasks)
    assert list(json.loads(ours)) == list(VALUES)  # the views' order, kept
    assert ours.endswith(b"\n") and "Jó játékot".encode() in ours  # UTF-8, where Flask escapes
    assert json.loads(ours)["when"] == "Fri, 04 Dec 2026 22:35:00 GMT"  # Flask's dates


def test_what_orjson_refuses_is_written_as_flask_writes_it() -> None:
    value = {"big": 2**70, "text": "ř"}
    assert json.loads(_answer(Answers, value)) == {"big": 2**70, "text": "ř"}
    assert _answer(Answers, value) == _answer(DefaultJSONProvider, value)


def test_the_service_answers_with_it(app: Any) -> None:
    assert isinstance(app.json, Answers)
    response = app.test_client().get("/api/v1/games/nosuchgame2345")
    assert response.status_code == 404 and response.get_json()["error"]
