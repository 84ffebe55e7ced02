"""Flask's signed-cookie session, opened for less where there is no cookie."""

from __future__ import annotations

from typing import Any

from flask import Flask, Request
from flask.sessions import SecureCookieSessionInterface


class CookieSession(SecureCookieSessionInterface):
    """Flask's own session (the same cookie, signer and settings), except that a
    request without a session cookie gets its new, empty session without the
    signer being built first.  Flask builds the signer for every request, and
    API calls, which carry a bearer token and never a cookie, are most of the
    busiest requests: it cost each of them about 12 µs (issue 34)."""

    def open_session(self, app: Flask, request: Request) -> Any:
        # Flask answers None (a null session) when there is no secret key; the
        # app refuses to start without one, but keep Flask's answer for it.
        if app.secret_key and not request.cookies.get(self.get_cookie_name(app)):
            return self.session_class()
        return super().open_session(app, request)
