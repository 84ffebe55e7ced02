"""The JSON API of Web Push (``/api/v1``): the service's public key, and a
seat's subscription.  Described in :mod:`.openapi_push`."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from ..core.app_context import context
from ..table import push
from .api import _bearer, _challenge, _json_body

bp = Blueprint("push_api", __name__, url_prefix="/api/v1")


bp.after_request(_challenge)


@bp.get("/push/key")
def key() -> Any:
    """The VAPID public key a browser subscribes with (404 ``push-off`` without push)."""
    return jsonify({"public_key": push.public_key(context())})


@bp.post("/seat/push")
def subscribe() -> Any:
    """Store this seat's subscription: the browser's ``PushSubscription`` JSON."""
    token = _bearer()
    return jsonify(push.subscribe(context(), token, _json_body()).json())


@bp.delete("/seat/push")
def unsubscribe() -> Any:
    return jsonify(push.unsubscribe(context(), _bearer()).json())
