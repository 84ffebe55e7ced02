"""Errors become a JSON error on the API and a page everywhere else; never a
traceback."""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from ..errors import RateLimited, ServiceError

#: The answer (400) to a POST whose form token is missing or wrong (csrf.py).
FORM_EXPIRED = "This form has expired or did not come from this site. Go back, reload the page and try again."


def _wants_json() -> bool:
    return request.blueprint == "api" or request.path.startswith("/api/")


def error_response(code: str, message: str, status: int) -> Any:
    if _wants_json():
        return jsonify({"error": {"code": code, "message": message}}), status
    return render_template("error.html", code=code, message=message, status=status), status


def init_app(app: Flask) -> None:
    @app.errorhandler(ServiceError)
    def service_error(e: ServiceError) -> Any:
        response, status = error_response(e.code, e.message, e.status)
        if isinstance(e, RateLimited):
            return response, status, {"Retry-After": str(e.retry_after)}
        return response, status

    @app.errorhandler(CSRFError)
    def csrf_error(e: CSRFError) -> Any:
        # Flask-WTF's reason ("The CSRF token is missing.") is for the log, not the reader.
        return error_response("bad-request", FORM_EXPIRED, 400)

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException) -> Any:
        code = (e.name or "error").lower().replace(" ", "-")
        response, status = error_response(code, e.description or e.name, e.code or 500)
        # The exception's own headers (a 405's Allow), not its HTML content type.
        return response, status, [(k, v) for k, v in e.get_headers() if k.lower() != "content-type"]

    @app.errorhandler(Exception)
    def unexpected(e: Exception) -> Any:
        app.logger.exception("unexpected error")
        return error_response("internal-error", "Something went wrong on our side; nothing was changed.", 500)
