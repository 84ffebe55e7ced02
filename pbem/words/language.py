"""Which languages and time zones the service speaks, and its translation
catalogs (``pbem/translations/LOCALE/LC_MESSAGES/messages.po``, compiled to
``.mo`` by ``make``).  The sentences themselves are written in
:mod:`pbem.words` and the templates; this module only finds the catalog for a
language, so the mail built in a worker never borrows a request's locale."""

from __future__ import annotations

import gettext
from functools import lru_cache
from pathlib import Path
from typing import Iterable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from babel import Locale
from babel.support import Translations

CATALOGS = Path(__file__).resolve().parents[1] / "translations"

#: The language codes seats, forms and the API use, in the order the switch offers them.
LANGUAGES = ("en", "hu", "cs", "pt")
DEFAULT_LANGUAGE = "en"
#: Each language by its own name, for the language switch (never translated).
NATIVE_NAMES = {"en": "English", "hu": "Magyar", "cs": "Čeština", "pt": "Português"}
#: The Babel locale (and catalog folder) of each language.  Portuguese is the
#: European one: the players in Lisbon learned Clans from the Portuguese edition.
BABEL_LOCALES = {"en": "en", "hu": "hu", "cs": "cs", "pt": "pt_PT"}
#: The IETF tag for ``<html lang>`` and ``Content-Language``.
TAGS = {"en": "en", "hu": "hu", "cs": "cs", "pt": "pt-PT"}
DEFAULT_TIME_ZONE = "UTC"


class UnknownLanguage(ValueError):
    pass


class UnknownTimeZone(ValueError):
    pass


def clean_language(value: object) -> str:
    """A language code from a form or the API: one of :data:`LANGUAGES`
    (``pt-PT``, ``pt_PT`` and ``HU`` are taken too)."""
    text = str(value or "").strip().replace("_", "-").lower()
    code = text.split("-", 1)[0]
    if code not in LANGUAGES:
        raise UnknownLanguage(text[:20])
    return code


def clean_time_zone(value: object) -> str:
    """An IANA time zone name such as ``Europe/Budapest``."""
    text = str(value or "").strip()
    if text not in time_zones() and text != DEFAULT_TIME_ZONE:
        raise UnknownTimeZone(text[:60])
    return text


@lru_cache(maxsize=1)
def time_zones() -> tuple[str, ...]:
    """The time zones offered: the IANA names of places (``Area/City``), sorted."""
    return tuple(sorted(z for z in available_timezones()
                        if "/" in z and not z.startswith(("Etc/", "SystemV/", "posix/", "right/"))))


def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or DEFAULT_TIME_ZONE)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(DEFAULT_TIME_ZONE)


def best_language(wanted: Iterable[tuple[str, float]]) -> str | None:
    """The first of ``(tag, quality)`` pairs (an ``Accept-Language``, best
    first) that the service speaks, or ``None``."""
    for tag, quality in wanted:
        if quality <= 0:
            continue
        try:
            return clean_language(tag)
        except UnknownLanguage:
            continue
    return None


@lru_cache(maxsize=None)
def translations(language: str) -> gettext.NullTranslations:
    """The compiled catalog of a language (English is the source: no catalog)."""
    if language == DEFAULT_LANGUAGE:
        return gettext.NullTranslations()
    found = Translations.load(str(CATALOGS), [BABEL_LOCALES[language]], "messages")
    return found


@lru_cache(maxsize=None)
def locale(language: str) -> Locale:
    return Locale.parse(BABEL_LOCALES[language])
