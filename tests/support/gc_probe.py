"""The web app as gunicorn serves it, with one more path: ``/__gc`` answers
what the worker's garbage collector holds (tests/e2e/test_gc_freeze.py)."""

from __future__ import annotations

import gc
import json
from typing import Any, Callable, Iterable

from pbem.web import create_app

_app = create_app()


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    if environ.get("PATH_INFO") != "/__gc":
        return _app(environ, start_response)
    body = json.dumps({"frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects())}).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
