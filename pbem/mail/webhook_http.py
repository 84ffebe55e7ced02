"""The one place that makes HTTP requests: posting to a webhook.

The address is checked again just before the post (:mod:`pbem.webhook_targets`)
and the connection goes to the very IP address that was checked, with the
host's name only in ``Host`` and TLS (SNI and the certificate check): a name
that resolves to a private address on the second look-up (DNS rebinding)
is never connected to.  Short time-outs, no redirects followed, no proxies from
the environment, and at most :data:`MAX_ANSWER` bytes of the answer read."""

from __future__ import annotations

import http.client
import socket
import ssl
from functools import lru_cache
from typing import Any, Mapping

from ..errors import Invalid
from ..webhook_targets import IP, Target, Unresolvable, check_target
from .transport import PermanentFailure
from .webhook_posts import USER_AGENT, Post

#: Seconds for the connection, and for each read or write on it.
TIMEOUT = 10.0
#: The most of an answer read (for the log).
MAX_ANSWER = 2048
#: Answers worth another try (the receiver is busy or down for a while); any
#: other 4xx is the receiver refusing this post for good.
_RETRY = {408, 425, 429}


@lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    return ssl.create_default_context()


class _HTTPConnection(http.client.HTTPConnection):
    def __init__(self, target: Target, ip: IP, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self._ip = ip

    def connect(self) -> None:
        self.sock = socket.create_connection((str(self._ip), self.port), self.timeout)


class _HTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, target: Target, ip: IP, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout, context=_tls_context())
        self._ip = ip

    def connect(self) -> None:
        raw = socket.create_connection((str(self._ip), self.port), self.timeout)
        # The name, not the address, is what the certificate must be for.
        self.sock = _tls_context().wrap_socket(raw, server_hostname=self.host)


class WebhookRefused(PermanentFailure):
    """The receiver answered with a refusal that another try will not change."""


def send(post: Post, config: Mapping[str, Any], *, timeout: float = TIMEOUT) -> None:
    """POST the body; returns once the receiver answered 2xx.  Raises
    :class:`WebhookRefused` for a lasting refusal (an address no longer allowed,
    a 4xx, a redirect), anything else (no connection, a time-out, 5xx, 429)
    to be tried again."""
    try:
        target, ip = check_target(post.url, config)
    except Unresolvable as e:
        raise ConnectionError(str(e)) from e  # DNS may be back later
    except Invalid as e:
        raise WebhookRefused(f"the address is refused now: {e}") from e
    kind = _HTTPSConnection if target.scheme == "https" else _HTTPConnection
    conn = kind(target, ip, timeout)
    try:
        headers = {"User-Agent": USER_AGENT, "Content-Length": str(len(post.body)), **post.headers}
        conn.request("POST", target.path, body=post.body, headers=headers)
        answer = conn.getresponse()
        said = answer.read(MAX_ANSWER).decode("utf-8", "replace")
        status = answer.status
    finally:
        conn.close()
    if 200 <= status < 300:
        return
    summary = f"HTTP {status} from {target.host}: {' '.join(said.split())[:200]}"
    if 300 <= status < 500 and status not in _RETRY:
        raise WebhookRefused(summary)
    raise ConnectionError(summary)
