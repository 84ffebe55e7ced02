"""Cross-site request forgery protection for the pages' forms.

Each browser session holds a random token (in Flask's signed session cookie);
every form carries it in a hidden field and every POST outside the API must
echo it.  The API is exempt: it authenticates with a bearer token, which a
cross-site form cannot send."""

from __future__ import annotations

import hmac
import secrets

from flask import Flask, abort, request, session

from ..words import N_
from .unsubscribe import ONE_CLICK_ENDPOINT

FIELD = "csrf_token"


def token() -> str:
    if FIELD not in session:
        session[FIELD] = secrets.token_urlsafe(32)
    return str(session[FIELD])


def _protect() -> None:
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    if request.blueprint == "api" or request.path.startswith("/api/"):
        # Also API paths no route matched: they get the API's 404/405, not a form error.
        return
    if request.endpoint == ONE_CLICK_ENDPOINT:
        # RFC 8058 one-click: mail clients POST without cookies; the seat token
        # in the address authenticates, and all it can do is stop mail.
        return
    if request.routing_exception is not None:
        return  # no view will run (pages too): their 404 or 405, with its Allow header, stands
    sent = request.form.get(FIELD, "")
    expected = session.get(FIELD, "")
    if not expected or not hmac.compare_digest(str(sent), str(expected)):
        abort(400, description=N_("This form has expired or did not come from this site. "
                                  "Go back, reload the page and try again."))


def init_app(app: Flask) -> None:
    app.before_request(_protect)
    app.jinja_env.globals["csrf_token"] = token
    # Set, not defaulted: Flask's own config already has both keys.
    app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    app.config["SESSION_COOKIE_HTTPONLY"] = True
