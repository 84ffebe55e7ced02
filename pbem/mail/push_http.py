"""Sending one Web Push: a POST to the browser's push service through the one
HTTP client (:mod:`pbem.mail.webhook_http`), so a push endpoint gets what a
webhook gets: the address guard again just before the post (public https
only, ``PBEM_WEBHOOK_ALLOW`` exempt), the connection to the very address
checked, short time-outs and a deadline, no redirects, the breaker per receiver.

A push service answers ``201 Created``.  ``404``/``410`` mean the subscription
is gone for good (:class:`PushGone`: the caller forgets it); another 4xx is a
refusal of this push; 429 and 5xx are tried again later."""

from __future__ import annotations

from typing import Any, Mapping

from . import webhook_http
from .push_posts import PushPost
from .transport import PermanentFailure
from .webhook_posts import Post

#: What a push service answers for a subscription that has expired or was withdrawn.
GONE = ("HTTP 404", "HTTP 410")


class PushGone(PermanentFailure):
    """The push service says the subscription is no more."""


def send(push: PushPost, config: Mapping[str, Any]) -> None:
    """Post the push; returns once the push service took it (2xx)."""
    try:
        webhook_http.send(Post(webhook_id=0, url=push.endpoint, body=push.body, headers=push.headers), config)
    except webhook_http.WebhookRefused as e:
        if e.category in GONE:
            raise PushGone(str(e)) from e
        raise
