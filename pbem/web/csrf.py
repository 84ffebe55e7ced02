"""Cross-site request forgery protection for the pages' forms: Flask-WTF's
``CSRFProtect``.

Each browser session holds a random secret (in Flask's signed session cookie);
every form carries a token signed from it (``csrf_token()`` in the templates) in
a hidden field, and every POST must echo it, except:

- the API (its blueprint): it authenticates with a bearer token, which a
  cross-site form cannot send;
- the RFC 8058 one-click unsubscribe: mail clients POST without cookies; the seat
  token in the address authenticates, and all it can do is stop mail;
- a request no view will run (no route matched, or not its method; API paths
  too): Flask-WTF checks nothing without an endpoint, so its 404 or 405, with
  the Allow header, stands.

A missing or wrong token raises ``CSRFError``, which :mod:`pbem.web.errors`
answers with the 400 page."""

from __future__ import annotations

from flask import Flask
from flask_wtf.csrf import CSRFProtect

from . import api, api_premoves, catcher, dashboard_pages, lobby_api, match_api, people_api, push_api
from . import seat_extras_api, unsubscribe


def init_app(app: Flask) -> None:
    app.config.update(
        # No time limit of its own: a token is good for as long as the session
        # that holds its secret.  A play page left open for a day (turns last
        # days; a signed-in session SESSION_DAYS) must still submit its move,
        # and a signed token outlives nothing: without the session cookie it is
        # worthless.  Flask-WTF's default (an hour) would refuse such a move.
        WTF_CSRF_TIME_LIMIT=None,
        # The token comes from the form field only: no page sends it in a header.
        WTF_CSRF_HEADERS=[],
        # Off: on HTTPS, Flask-WTF's strict mode also wants a Referer naming
        # https://<Host header>/.  That refuses every POST behind a reverse proxy
        # that passes its upstream's name as Host (TRUSTED_PROXIES trusts only
        # X-Forwarded-For and -Proto, so request.host is what the proxy sent),
        # and every POST from a browser that sends no Referer: the pages that
        # hold a token in their address ask for none (Referrer-Policy:
        # no-referrer, security.py), and privacy settings strip it.  What the
        # check adds, a cookie planted over plain HTTP, HSTS already rules out
        # (security.py), and the session cookie is signed; the token and
        # SameSite=Lax stop cross-site forms.
        WTF_CSRF_SSL_STRICT=False,
    )
    protect = CSRFProtect(app)
    protect.exempt(api.bp)
    protect.exempt(api_premoves.bp)
    protect.exempt(seat_extras_api.bp)  # the same bearer token
    protect.exempt(lobby_api.bp)
    protect.exempt(match_api.bp)  # like joining: no session, confirmed by mail
    protect.exempt(people_api.bp)  # the API of blocks and reports: a bearer token too
    protect.exempt(push_api.bp)  # the API's push routes: a bearer token too
    # The demo's webhook catcher (registered only with the mailbox) takes the
    # service's own posts, signed with the game's secret instead.
    protect.exempt(catcher.bp)
    protect.exempt(unsubscribe.unsubscribe)  # the one-click endpoint, unsubscribe.ONE_CLICK_ENDPOINT
    protect.exempt(unsubscribe.unsubscribe_talk)  # the same for table talk mail
    protect.exempt(dashboard_pages.unsubscribe_daily)  # the same for the daily mail
    # Set, not defaulted: Flask's own config already has both keys.
    app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    app.config["SESSION_COOKIE_HTTPONLY"] = True
