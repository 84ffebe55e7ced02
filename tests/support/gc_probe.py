"""The web app as gunicorn serves it, with one more path: ``/__gc`` answers
what the worker's garbage collector holds (tests/e2e/test_gc_freeze.py).
A factory (``tests.support.gc_probe:make()``), as ``pbem.web:create_app()`` is:
gunicorn calls it when the worker loads the app."""

from __future__ import annotations

import gc
import json
from typing import Any, Callable, Iterable

from pbem.web import create_app

WSGI = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def make() -> WSGI:
    inner = create_app()

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != "/__gc":
            return inner(environ, start_response)
        body = json.dumps({"frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects())}).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]

    return app
