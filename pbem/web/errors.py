"""Errors become a JSON error on the API and a page everywhere else; never a
traceback."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, jsonify, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from ..core.errors import RateLimited, ServiceError
from ..words import N_, error_text
from .locale import words

log = logging.getLogger(__name__)

#: Werkzeug's own descriptions of the HTTP errors it raises (an unknown address,
#: a wrong method, a body too large...), so that the error page can say them in
#: its reader's language.  The API keeps them in English.
_HTTP_DESCRIPTIONS = frozenset({
    N_("The browser (or proxy) sent a request that this server could not understand."),
    N_("You don't have the permission to access the requested resource. It is either read-protected or "
       "not readable by the server."),
    N_("The requested URL was not found on the server. If you entered the URL manually please check your "
       "spelling and try again."),
    N_("The method is not allowed for the requested URL."),
    N_("The data value transmitted exceeds the capacity limit."),
    N_("The length of the requested URL exceeds the capacity limit for this server. The request cannot be "
       "processed."),
    N_("The server does not support the media type transmitted in the request."),
    N_("This user has exceeded an allotted request count. Try again later."),
    N_("One or more header fields exceeds the maximum size."),
    N_("The server encountered an internal error and was unable to complete your request. Either the server "
       "is overloaded or there is an error in the application."),
})
_UNEXPECTED = N_("Something went wrong on our side; nothing was changed.")

#: The answer (400) to a POST whose form token is missing or wrong (csrf.py).
FORM_EXPIRED = N_("This form has expired or did not come from this site. Go back, reload the page and try again.")


def _wants_json() -> bool:
    return request.blueprint == "api" or request.path.startswith("/api/")


def error_response(code: str, message: str, status: int, page_message: str | None = None) -> Any:
    """The API's JSON error (its ``message`` in English), or the error page
    (``page_message``, the same in the page's language, else ``message``)."""
    if _wants_json():
        return jsonify({"error": {"code": code, "message": message}}), status
    return render_template("error.html", code=code, message=page_message or message, status=status), status


def service_error(e: ServiceError) -> Any:
    """A refusal as the API's JSON error or the error page (with ``Retry-After``
    when the refusal is a rate limit's).  The seat page's forms answer theirs on
    the page itself (``seat_pages.refused``) and this for the others."""
    response, status = error_response(e.code, e.message, e.status, error_text(e, words()))
    if isinstance(e, RateLimited):
        return response, status, {"Retry-After": str(e.retry_after)}
    return response, status


def init_app(app: Flask) -> None:
    app.register_error_handler(ServiceError, service_error)

    @app.errorhandler(CSRFError)
    def csrf_error(e: CSRFError) -> Any:
        # Flask-WTF's reason ("The CSRF token is missing.", "The CSRF session token
        # is missing.", "The CSRF tokens do not match.") is for the log, not the
        # reader; the endpoint, not the path (which may hold a seat token).
        log.info("form refused, %s: %s (session cookie sent: %s)", request.endpoint, e.description,
                 bool(request.cookies.get(app.config.get("SESSION_COOKIE_NAME", "session"))))
        return error_response("bad-request", FORM_EXPIRED, 400, words()._(FORM_EXPIRED))

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException) -> Any:
        code = (e.name or "error").lower().replace(" ", "-")
        message = e.description or e.name
        if message in _HTTP_DESCRIPTIONS and not _wants_json():
            message = words()._(message)
        response, status = error_response(code, message, e.code or 500)
        # The exception's own headers (a 405's Allow), not its HTML content type.
        return response, status, [(k, v) for k, v in e.get_headers() if k.lower() != "content-type"]

    @app.errorhandler(Exception)
    def unexpected(e: Exception) -> Any:
        app.logger.exception("unexpected error")
        return error_response("internal-error", _UNEXPECTED if _wants_json() else words()._(_UNEXPECTED), 500)
