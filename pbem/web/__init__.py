"""The Flask application factory."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from flask import Flask
from flask_wtf.csrf import CSRFProtect
from werkzeug.middleware.proxy_fix import ProxyFix

from ..config import check_safe, load_config
from ..context import Context
from ..db import make_engine
from ..tasks import celery_init_app
from . import api, errors, mailbox, pages, security, unsubscribe
from .limits import Limits

ROOT = Path(__file__).resolve().parents[2]


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the web app: configuration from defaults, ``PBEM_*`` environment
    variables and ``config``; the database, the mail relay and Celery wired to it."""
    settings = load_config(config)
    check_safe(settings)
    app = Flask(
        __name__,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.update(settings)
    app.json.sort_keys = False  # type: ignore[attr-defined]

    if settings["TRUSTED_PROXIES"]:
        hops = int(settings["TRUSTED_PROXIES"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]

    engine = make_engine(settings["DATABASE_URL"])
    celery = celery_init_app(app)
    ctx = Context(engine=engine, config=settings, relay=celery.relay,  # type: ignore[attr-defined]
                  limit=Limits(app))
    app.extensions["pbem"] = ctx

    security.init_app(app)
    # Cross-site request forgery: every form of the pages carries the session's
    # token (``csrf_token()`` in the templates) and every POST outside the API
    # must echo it.  A token is good for the whole session (no time limit), is
    # read from the form only, and needs no Referer (the pages send none where
    # the address holds a token: see security.py).
    app.config.update(WTF_CSRF_TIME_LIMIT=None, WTF_CSRF_HEADERS=[], WTF_CSRF_SSL_STRICT=False)
    csrf = CSRFProtect(app)
    # The API authenticates with a bearer token, which a cross-site form cannot send.
    csrf.exempt(api.bp)
    # RFC 8058 one-click: mail clients POST without cookies; the seat token in
    # the address authenticates, and all it can do is stop mail.
    csrf.exempt(unsubscribe.unsubscribe)
    errors.init_app(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(unsubscribe.bp)
    if settings["MAILBOX"]:
        app.register_blueprint(mailbox.bp)
    return app
