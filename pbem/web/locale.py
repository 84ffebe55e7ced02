"""Which language and time zone a page speaks, and the switch that changes it.

A seat page speaks its seat's language (the player chose it, or whoever
started the game chose it for them); any other page the language this browser
picked with the switch, else the browser's ``Accept-Language``, else English.
Flask-Babel serves the page templates' ``_()``/``{% trans %}`` from the same
catalogs the mail uses; Python code reads :func:`words`."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, g, has_request_context, redirect, request, session
from flask_babel import Babel, refresh

from ..words.language import (BABEL_LOCALES, CATALOGS, DEFAULT_TIME_ZONE, LANGUAGES, NATIVE_NAMES, UnknownLanguage,
                              best_language, clean_language)
from ..rules.views import SeatView
from ..words import Words

bp = Blueprint("language", __name__)


def language() -> str:
    """This request's language code (``en``, ``hu``, ``cs``, ``pt``)."""
    if "language" not in g:
        g.language = _chosen()
    return str(g.language)


def _chosen() -> str:
    try:
        return clean_language(session.get("language", ""))
    except UnknownLanguage:
        pass
    return best_language(request.accept_languages) or "en"


def time_zone() -> str:
    return str(g.get("time_zone") or DEFAULT_TIME_ZONE)


def seat_words(view: SeatView) -> Words:
    """A seat's page (or a message for one): speak the seat's language, write
    times in its time zone; the reader, for sentences built in Python."""
    g.language = view["language"]
    g.time_zone = view["time_zone"] or DEFAULT_TIME_ZONE
    refresh()  # Flask-Babel caches the locale per request
    return words()


def words() -> Words:
    """The reader of this page, for sentences built in Python (English in UTC
    outside a request, e.g. a template filter called on its own)."""
    if not has_request_context():
        return Words()
    return Words(language(), time_zone())


def safe_next(target: str | None) -> str:
    """A path on this site to go back to (never another site's address)."""
    target = (target or "/")[:500]
    # Browsers drop tabs and line breaks from a Location ("/\t/evil.example" is
    # "//evil.example"): a path with any blank or control character is refused.
    if any(c.isspace() or not c.isprintable() for c in target):
        return "/"
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


@bp.post("/language")
def switch() -> Any:
    """The language switch on pages that are not a seat's: remembered for this browser."""
    try:
        session["language"] = clean_language(request.form.get("language", ""))
        g.pop("language", None)
    except UnknownLanguage:
        pass  # an unknown choice changes nothing: back to the page as it was
    return redirect(safe_next(request.form.get("next")), 303)


def _globals() -> dict[str, Any]:
    code = language()
    return {"w": words(), "languages": [(c, NATIVE_NAMES[c]) for c in LANGUAGES], "page_language": code}


def init_app(app: Flask) -> None:
    Babel(app, locale_selector=lambda: BABEL_LOCALES[language()], timezone_selector=time_zone,
          default_translation_directories=str(CATALOGS))
    # Whitespace inside {% trans %} is folded, so the catalog holds clean sentences.
    app.jinja_env.policies["ext.i18n.trimmed"] = True
    app.context_processor(_globals)
    app.register_blueprint(bp)
