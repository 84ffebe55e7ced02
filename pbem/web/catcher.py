"""The demo's webhook catcher: a receiver for the demo game's json webhook,
showing every post it got (newest first) and whether its ``X-PBEM-Signature``
is the game's.  It exists only where the mailbox does (the demo, or
``PBEM_MAILBOX=1`` on a loopback base URL): posts are kept in this process's
memory, and anyone who can reach the page sees them."""

from __future__ import annotations

import json
from collections import deque
from datetime import datetime, timezone
from typing import Any

from flask import Blueprint, current_app, render_template, request

from ..table import webhooks
from ..core.app_context import context

bp = Blueprint("catcher", __name__, url_prefix="/webhook-catcher")

#: Posts kept (the oldest go first).
KEPT = 100
#: The largest post kept whole.
MAX_BODY = 8192


def _posts() -> deque[dict[str, Any]]:
    found: deque[dict[str, Any]] = current_app.extensions.setdefault("pbem_caught_posts", deque(maxlen=KEPT))
    return found


@bp.post("/")
def catch() -> Any:
    body = request.get_data()[:MAX_BODY]
    header = request.headers.get(webhooks.SIGNATURE_HEADER, "")
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None
    game = parsed.get("game") if isinstance(parsed, dict) else None
    _posts().appendleft({
        "at": datetime.now(timezone.utc), "signature": header, "body": body.decode("utf-8", "replace"),
        "signed": bool(header) and game is not None and webhooks.signed_by_game(context(), game, body, header),
    })
    return "", 204


@bp.get("/")
def index() -> Any:
    return render_template("catcher.html", posts=list(_posts()))
