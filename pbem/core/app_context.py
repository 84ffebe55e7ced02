"""The service context of the running Flask app, for code that runs inside it
(the web views and the Celery tasks); neither needs the other to find it."""

from __future__ import annotations

from flask import current_app

from .context import Context


def context() -> Context:
    """The service context of the current app (``create_app`` puts it there)."""
    ctx: Context = current_app.extensions["pbem"]
    return ctx
