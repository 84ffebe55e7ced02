"""The pages people use, as one blueprint (``pages``) whose views live by area:
``home`` (the home page, its forms and a game's public page), ``seat_pages``
(a player's view of their game, with the move controls), ``signin_pages``
(signing in, out, and a player's list of games).  Here: the blueprint, and what
every page shares (template filters, who is signed in, the templates' globals).

Views only translate requests into service calls and service errors into pages.
What a page shows of a game comes from ``games.seat_view`` / ``games.public_game``
(``table.seat_page`` for a seat's page) and nothing else.  GET and HEAD never change
anything (mail scanners open links); every change is a POST from a page's form,
checked against forgery by ``csrf``."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any

from flask import Blueprint, g, session
from markupsafe import Markup, escape

from .. import games
from ..core.app_context import context
from ..core.models import MailChoice
from ..drawing.style import (CLAN_COLOURS, TERRAIN_COLOURS, clan_colour, clan_glyph, clan_mark,
                             clan_text_colour, terrain_colour)
from ..drawing.svg import clan_icon
from ..people import signin
from ..rules.tables import CLANS
from ..table.webhooks import HookState
from ..words import sentence, when_text
from .locale import words

#: The pages' blueprint.  Its views are added by the modules of each area, which
#: the app factory imports before it registers the blueprint.
bp = Blueprint("pages", __name__)

#: A whole number typed in a form (a page number, a ply, days, a seat).
WHOLE = re.compile(r"\s*(\d{1,9})\s*", re.ASCII)

bp.add_app_template_filter(sentence, "sentence")


@bp.app_template_filter("autolink")
def autolink(text: object) -> Markup:
    """Escape ``text`` first, then make its http(s) addresses clickable."""
    escaped = str(escape("" if text is None else str(text)))

    def link(m: re.Match[str]) -> str:
        url = m.group(0)
        trail = ""
        while url and url[-1] in ".,;:!?)]":
            trail = url[-1] + trail
            url = url[:-1]
        return f'<a href="{url}" rel="noopener noreferrer">{url}</a>{trail}'

    return Markup(_URL.sub(link, escaped))


# After escaping, quotes and angle brackets are entities: a URL stops there.
_URL = re.compile(r"https?://(?:(?!&#34;|&#39;|&quot;|&lt;|&gt;)[^\s])+")


@bp.app_template_filter("when")
def when(value: object) -> str:
    """An ISO time in words, in the page's language and time zone."""
    return when_text(_parse_time(value), words())


@bp.app_template_filter("iso")
def iso(value: object) -> str:
    at = _parse_time(value)
    return at.replace(microsecond=0).isoformat().replace("+00:00", "Z") if at else ""


def _parse_time(value: object) -> datetime | None:
    if isinstance(value, datetime):
        at = value
    elif isinstance(value, str):
        try:
            at = datetime.fromisoformat(value)
        except ValueError:
            return None
    else:
        return None
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    return at.astimezone(timezone.utc)


def signed_in_email() -> str | None:
    """The address this browser is signed in as, if its session is still good
    (not signed out, not too old); a session that is not is forgotten."""
    if "signed_in" not in g:
        email, login_id = session.get("email"), session.get("login")
        ok = email is not None and signin.signed_in(context(), email, login_id)
        if email is not None and not ok:
            session.pop("email", None)
            session.pop("login", None)
        g.signed_in = email if ok else None
    signed_in: str | None = g.signed_in
    return signed_in


@bp.app_context_processor
def _globals() -> dict[str, Any]:
    return {
        "signed_in": signed_in_email() if "email" in session else None,
        "clan_colours": CLAN_COLOURS,
        "terrain_colours": TERRAIN_COLOURS,
        "clan_colour": clan_colour,
        "clan_mark": clan_mark,
        "clan_icon": lambda clan: Markup(clan_icon(str(clan))),
        "board_clans": CLANS,
        "clan_glyph": clan_glyph,
        "clan_text_colour": clan_text_colour,
        "terrain_colour": terrain_colour,
        # The states templates test: a view's status, a seat's mail, a webhook's.
        "Status": games.SeatStatus,
        "Mail": MailChoice,
        "HookState": HookState,
    }
