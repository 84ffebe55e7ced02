"""The Flask application factory.

May import: ops, workers, mail, inbound, table, games, people, core, words, drawing, rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from ..games.clock_options import Vacation
from ..words.banks import bank_text
from ..core.config import check_safe, load_config
from ..core.context import Context
from ..core.db import make_engine
from ..core.logs import configure as configure_logging
from ..drawing.style import CSS_ROOT, LOOK
from ..workers.tasks import celery_init_app
from . import api, csrf, errors, health, locale, mailbox, monitoring, pages, security, unsubscribe, watch
from . import catcher, lobby_api, match_api, webhook_pages
from . import api_premoves, premove_pages
from . import seat_extras_api, seat_extras_pages
from . import calendar as calendars
from . import push_api
# The pages' views, by area: each adds its own to ``pages.bp``.
from . import dashboard_pages, home, lobby_pages, match_pages, push_pages, seat_pages, signin_pages  # noqa: F401
from . import people_api  # strangers, safely: blocks, reports (API)
from . import people_pages  # noqa: F401 - strangers, safely: profiles, blocks, reports (pages)
from . import practice_pages  # noqa: F401
from . import practice_api
from .cookie_session import CookieSession
from .json_answers import Answers
from .limits import Limits

PACKAGE = Path(__file__).resolve().parents[1]


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the web app: configuration from defaults, ``PBEM_*`` environment
    variables and ``config``; the database, the mail relay and Celery wired to it."""
    settings = load_config(config)
    check_safe(settings)
    configure_logging(settings)
    app = Flask(
        __name__,
        template_folder=str(PACKAGE / "templates"),
        static_folder=str(PACKAGE / "static"),
    )
    app.config.update(settings)
    # The look of every page, from the one palette (pbem.drawing.style): the CSS
    # custom properties base.html writes, and the colours templates write literally.
    app.jinja_env.globals.update(css_properties=CSS_ROOT, look=LOOK)
    app.jinja_env.globals.update(bank_text=bank_text, Vacation=Vacation)  # a clock's time, "2 days 5 hours" (pbem.words.banks)
    app.json = Answers(app)
    app.session_interface = CookieSession()

    if settings["TRUSTED_PROXIES"]:
        hops = int(settings["TRUSTED_PROXIES"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]

    engine = make_engine(settings["DATABASE_URL"])
    celery = celery_init_app(app)
    ctx = Context(engine=engine, config=settings, relay=celery.relay, computer=celery.computer,
                  limit=Limits(app))
    app.extensions["pbem"] = ctx

    security.init_app(app)
    csrf.init_app(app)
    errors.init_app(app)
    locale.init_app(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(api_premoves.bp)
    app.register_blueprint(premove_pages.bp)
    app.register_blueprint(lobby_api.bp)
    app.register_blueprint(match_api.bp)
    app.register_blueprint(people_api.bp)
    practice_api.init_app(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(unsubscribe.bp)
    health.init_app(app)
    monitoring.init_app(app)
    app.register_blueprint(watch.bp)
    app.register_blueprint(webhook_pages.bp)
    app.register_blueprint(seat_extras_api.bp)
    app.register_blueprint(seat_extras_pages.bp)
    calendars.init_app(app)
    app.register_blueprint(dashboard_pages.unsubscribing)
    app.register_blueprint(push_api.bp)
    if settings["MAILBOX"]:
        app.register_blueprint(mailbox.bp)
        # The demo game's webhook lands here: it exists only where the mailbox does.
        app.register_blueprint(catcher.bp)
    return app
