"""The security headers of every response, in one place.

One ``after_request`` for the whole app, so that pages, the API, error pages
(404, 405, 413, 500 …), static files and the mailbox all get them:

- ``Content-Security-Policy``: nothing from elsewhere, no framing by other
  sites.  A view may send a stricter one of its own (the mailbox's HTML part).
- ``X-Content-Type-Options: nosniff``.
- ``Referrer-Policy``: ``same-origin``; ``no-referrer`` where the address holds
  a token (a seat, sign-in, unsubscribe or never-mail link), so that it never
  leaves in a ``Referer``.
- ``Cache-Control: private, no-store`` and ``X-Robots-Tag: noindex, nofollow``
  on everything that shows a seat, a token or a clan: no shared cache or search
  engine keeps it, and no browser keeps it on disk.
- ``Strict-Transport-Security`` when the site is served over https
  (``BASE_URL``), which also makes the session cookie ``Secure``.

And one ``before_request`` refuses what no route can take: text the
databases cannot store (NUL, which PostgreSQL refuses in text, and lone UTF-16
surrogates, which neither database can encode) anywhere in the query or a form
(400), or in a JSON body (422 ``bad-text``: the JSON itself is well formed), and
JSON nested too deeply for the parser (400).
Without it each of these was a 500 wherever the text reached a query.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from flask import Flask, Response, abort, request

from ..core.errors import Invalid
from ..words import N_

CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
       "script-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'self'")
HSTS = "max-age=31536000; includeSubDomains"

#: Addresses that hold a token: ``/play/<token>…``, ``/signin/<token>``, …
TOKEN_PREFIXES = ("/play/", "/signin/", "/unsubscribe/", "/never/", "/calendar/")
#: Addresses whose answers show a seat, a token or a clan (besides TOKEN_PREFIXES).
PRIVATE_PREFIXES = (*TOKEN_PREFIXES, "/api/v1/seat", "/mailbox/")
#: … and these exact paths (whatever the query: ``/games?page=2`` is ``/games``).
PRIVATE_PATHS = ("/games", "/login", "/mailbox")


def holds_token(path: str) -> bool:
    return path.startswith(TOKEN_PREFIXES)


def is_private(path: str) -> bool:
    return path in PRIVATE_PATHS or path.startswith(PRIVATE_PREFIXES)


#: What neither database stores: NUL (PostgreSQL) and lone surrogates (UTF-8).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _unstorable(texts: Iterable[Any]) -> bool:
    return any(isinstance(t, str) and _UNSTORABLE.search(t) for t in texts)


def _json_texts(value: Any) -> Iterable[Any]:
    """Every key and value of a parsed JSON document, without recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield from item.keys()
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        else:
            yield item


def _pairs(values: Any) -> Iterable[Any]:
    """Every key and every value of a MultiDict (``values()`` gives only the first)."""
    for key, value in values.items(multi=True):
        yield key
        yield value


def _refuse_unstorable() -> None:
    message = N_("The request contains a character that cannot be stored (such as NUL).")
    # Not the path: each route checks its parameters' shape (a seat link with a
    # NUL gets the page that says the link is not valid, not this).
    if _unstorable(_pairs(request.args)):
        abort(400, description=message)
    if request.method not in ("GET", "HEAD", "OPTIONS") and request.mimetype in (
            "application/x-www-form-urlencoded", "multipart/form-data"):
        if _unstorable(_pairs(request.form)):
            abort(400, description=message)
    if request.method not in ("GET", "HEAD", "OPTIONS") and request.is_json:
        try:
            body = request.get_json(silent=True)  # cached: the view gets the same
        except RecursionError:
            abort(400, description=N_("The request body is nested too deeply."))
        if _unstorable(_json_texts(body)):
            # Well-formed JSON (a lone surrogate is a valid \uD800 escape) whose
            # text cannot be taken: 422, as the API's document says of every body.
            raise Invalid(message, code="bad-text")


def _headers(response: Response, https: bool) -> Response:
    headers = response.headers
    path = request.path
    headers.setdefault("Content-Security-Policy", CSP)
    headers["X-Content-Type-Options"] = "nosniff"
    if holds_token(path):
        headers["Referrer-Policy"] = "no-referrer"
    else:
        headers.setdefault("Referrer-Policy", "same-origin")
    if is_private(path):
        # Forced, not defaulted: nothing a view says may let these be stored.
        headers["Cache-Control"] = "private, no-store"
        headers["X-Robots-Tag"] = "noindex, nofollow"
    if https:
        headers["Strict-Transport-Security"] = HSTS
    return response


def init_app(app: Flask) -> None:
    https = str(app.config.get("BASE_URL", "")).lower().startswith("https://")
    if https:
        app.config["SESSION_COOKIE_SECURE"] = True
    app.before_request(_refuse_unstorable)

    @app.after_request
    def security_headers(response: Response) -> Response:
        return _headers(response, https)
