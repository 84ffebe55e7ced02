"""What makes the site an installable web app with Web Push: the manifest, its
icons (the brand mark as PNG, :mod:`pbem.drawing.app_icon`), the service
worker at the site's root (so that its scope is every page), and the seat
page's push settings (``templates/seat/_push.html``, a CSRF-protected form).
The subscription itself is the API's (:mod:`.push_api`), called by
``static/push.js`` with the seat token of the page's own address."""

from __future__ import annotations

import json
from typing import Any

from flask import abort, current_app, flash, redirect, request, send_from_directory, url_for

from ..core.app_context import context
from ..core.models import PushMode
from ..drawing.app_icon import SIZES, icon_png
from ..drawing.style import PAGE_PROPERTIES, THEME
from ..table import push
from ..words import N_
from ..core.errors import Invalid
from .locale import seat_words
from .pages import WHOLE, bp
from .seat_pages import Refusal, answer_refusals
from .. import games

#: The app's names are the brand's, the same in every language.
APP_NAME = "Clans by Mail"
SHORT_NAME = "Clans"


@bp.app_context_processor
def _push_context() -> dict[str, Any]:
    return {"push_settings": lambda token: push.settings_of(context(), token), "PushMode": PushMode,
            "push_minutes": push.MINUTES}


@bp.get("/manifest.webmanifest")
def manifest() -> Any:
    icons = [{"src": url_for(".app_icon", size=s), "sizes": f"{s}x{s}", "type": "image/png", "purpose": "any"}
             for s in SIZES]
    icons.append({"src": url_for(".app_icon_maskable"), "sizes": "512x512", "type": "image/png",
                  "purpose": "maskable"})
    body = {"id": "/", "name": APP_NAME, "short_name": SHORT_NAME, "start_url": "/", "scope": "/",
            "display": "standalone", "background_color": PAGE_PROPERTIES["--bg"], "theme_color": THEME,
            "icons": icons}
    return (json.dumps(body, separators=(",", ":")), 200,
            {"Content-Type": "application/manifest+json", "Cache-Control": "public, max-age=3600"})


@bp.get("/icons/<int:size>.png")
def app_icon(size: int) -> Any:
    if size not in SIZES:
        abort(404)
    return icon_png(size), 200, {"Content-Type": "image/png", "Cache-Control": "public, max-age=86400"}


@bp.get("/icons/maskable-512.png")
def app_icon_maskable() -> Any:
    return icon_png(512, True), 200, {"Content-Type": "image/png", "Cache-Control": "public, max-age=86400"}


@bp.get("/sw.js")
def service_worker() -> Any:
    """The service worker, from the site's root: its scope is every page."""
    response = send_from_directory(str(current_app.static_folder), "sw.js", mimetype="text/javascript",
                                   max_age=0)
    # A new worker is fetched as soon as there is one (browsers check at most daily anyway).
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Service-Worker-Allowed"] = "/"
    return response


@bp.post("/play/<token>/push")
def push_mode(token: str) -> Any:
    """How the turn is announced while notifications are on."""
    answer_refusals(Refusal(N_("%(error)s Nothing was changed."), answers=(Invalid,)))
    found = WHOLE.fullmatch(request.form.get("minutes", "")[:20])
    minutes: object = int(found.group(1)) if found else request.form.get("minutes", "")[:20]
    push.set_mode(context(), token, request.form.get("mode", "")[:20], minutes)
    w = seat_words(games.seat_view(context(), token))
    flash(w._("Saved: how we tell you of your turn while notifications are on."), "ok")
    return redirect(url_for(".play", token=token) + "#push", 303)
