"""The one place that makes HTTP requests: posting to a webhook.

The address is checked again just before the post (:mod:`pbem.webhook_targets`)
and the connection goes to the very IP address that was checked, with the
host's name only in ``Host`` and TLS (SNI and the certificate check): a name
that resolves to a private address on the second look-up (DNS rebinding)
is never connected to.  Short time-outs, no redirects followed, no proxies from
the environment, and at most :data:`MAX_ANSWER` bytes of the answer read.

A post has :data:`DEADLINE` seconds in all: before the connection, the TLS
handshake and every read or write the socket's time-out is set to what is
left, so a receiver that dribbles its answer cannot hold a worker.  A post
that runs out of time is refused (:class:`WebhookRefused`, not tried again:
it counts as a failure of the webhook all the same).

What the setter of a webhook is told of a failure is a coarse category
(:func:`category`), never what the receiver said.  What the operator sees (the
log, the outbox row's error in ``pbem admin outbox``) is what it said made
harmless: every exception :func:`send` raises has a one-line message without
terminal control sequences or control characters (:func:`shown`), so a
receiver cannot clear or rewrite an operator's terminal."""

from __future__ import annotations

import http.client
import io
import re
import select
import socket
import ssl
import time
from functools import lru_cache
from typing import Any, Mapping

from ..errors import Invalid
from ..webhook_targets import IP, Target, Unresolvable, check_target
from ..webhooks import (BAD_ANSWER, NO_CONNECTION, NOT_ALLOWED, NOT_FOUND, REDIRECT, REFUSED, TIMED_OUT,
                        TLS_ERROR)
from .transport import PermanentFailure
from .webhook_posts import USER_AGENT, Post

#: Seconds for the connection, and for each read or write on it (at most).
TIMEOUT = 10.0
#: Seconds for a whole post: connecting, sending and reading the answer.
DEADLINE = 15.0
#: The most of an answer read (for the log).
MAX_ANSWER = 2048
#: Answers worth another try (the receiver is busy or down for a while); any
#: other 4xx is the receiver refusing this post for good.
_RETRY = {408, 425, 429}



# ESC sequences: CSI (ESC [ ... final), OSC/DCS/PM/APC/SOS strings (to BEL or
# ESC \\), and any other ESC with the character after it; then the 8-bit CSI.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]?|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?|\x9b[0-?]*[ -/]*[@-~]?",
                      re.DOTALL)


def shown(text: str, most: int = 500) -> str:
    """What a receiver said, as it may reach a log or a terminal: escape
    sequences removed, every other control or invisible character (C0, C1,
    DEL, line and paragraph breaks, bidirectional overrides) a space, runs of
    spaces one, at most ``most`` characters.

    >>> shown("ok\\x1b[2J\\x1b]0;pwned\\x07 done\\r\\nnext\\x9b31m line\\x00\\u202e!")
    'ok done next line !'
    """
    text = _ESCAPES.sub("", text)
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())[:most]


class _Clock:
    """The time left of one post."""

    def __init__(self, seconds: float, most: float) -> None:
        self._end = time.monotonic() + seconds
        self._most = most

    def left(self) -> float:
        """Seconds left for the next step (at most the per-step time-out);
        ``TimeoutError`` once there are none."""
        left = self._end - time.monotonic()
        if left <= 0:
            raise TimeoutError("the webhook's post ran out of time")
        return min(left, self._most)


class _Reader(io.RawIOBase):
    """The answer's bytes, every read of the socket within the time left."""

    def __init__(self, sock: socket.socket, clock: _Clock, keep: io.BufferedIOBase) -> None:
        super().__init__()
        self._sock = sock
        self._clock = clock
        # http.client's own reader: holding it open holds the socket open once the
        # connection has passed it to the answer (an answer that ends the connection).
        self._keep = keep

    def close(self) -> None:
        if not self.closed:
            self._keep.close()
        super().close()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self._sock.settimeout(self._clock.left())
        return self._sock.recv_into(buffer)


def _response_class(clock: _Clock) -> type[http.client.HTTPResponse]:
    class Response(http.client.HTTPResponse):
        def __init__(self, sock: socket.socket, *args: Any, **kwargs: Any) -> None:
            super().__init__(sock, *args, **kwargs)
            # In place of http.client's own reader (which has no deadline).
            self.fp = io.BufferedReader(_Reader(sock, clock, self.fp))

    return Response


@lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    return ssl.create_default_context()


class _HTTPConnection(http.client.HTTPConnection):
    def __init__(self, target: Target, ip: IP, clock: _Clock) -> None:
        super().__init__(target.host, target.port, timeout=clock.left())
        self._ip = ip
        self._clock = clock
        self.response_class = _response_class(clock)

    def _connect(self) -> socket.socket:
        sock = socket.create_connection((str(self._ip), self.port), self._clock.left())
        sock.settimeout(self._clock.left())  # for the request's writes
        return sock

    def connect(self) -> None:
        self.sock = self._connect()


class _HTTPSConnection(_HTTPConnection):
    default_port = http.client.HTTPS_PORT

    def connect(self) -> None:
        raw = self._connect()
        # The name, not the address, is what the certificate must be for.
        sock = _tls_context().wrap_socket(raw, server_hostname=self.host, do_handshake_on_connect=False)
        try:
            sock.settimeout(0.0)
            while True:  # the handshake step by step, each wait within the time left
                try:
                    sock.do_handshake()
                    break
                except ssl.SSLWantReadError:
                    ready = select.select([sock], [], [], self._clock.left())[0]
                except ssl.SSLWantWriteError:
                    ready = select.select([], [sock], [], self._clock.left())[1]
                if not ready:
                    raise TimeoutError("the TLS handshake ran out of time")
            sock.settimeout(self._clock.left())
        except BaseException:
            sock.close()
            raise
        self.sock = sock


class WebhookRefused(PermanentFailure):
    """The receiver answered with a refusal that another try will not change
    (or took too long: that post is not tried again)."""

    def __init__(self, message: str, category: str) -> None:
        super().__init__(message)
        self.category = category


class WebhookUnavailable(ConnectionError):
    """The receiver could not take the post now: tried again later."""

    def __init__(self, message: str, category: str) -> None:
        super().__init__(message)
        self.category = category


def category(error: BaseException) -> str:
    """What the setter of a webhook is told of a failed post: a category, never
    what the receiver said (``HTTP 404``, or a sentence to translate)."""
    if isinstance(error, (WebhookRefused, WebhookUnavailable)):
        return error.category
    if isinstance(error, TimeoutError):
        return TIMED_OUT
    if isinstance(error, (ssl.SSLError, ssl.CertificateError)):
        return TLS_ERROR
    if isinstance(error, ConnectionRefusedError):
        return REFUSED
    if isinstance(error, http.client.HTTPException):
        return BAD_ANSWER
    return NO_CONNECTION


def send(post: Post, config: Mapping[str, Any], *, timeout: float = TIMEOUT,
         deadline: float | None = None) -> None:
    """POST the body; returns once the receiver answered 2xx.  Raises
    :class:`WebhookRefused` for a lasting refusal (an address no longer allowed,
    a 4xx, a redirect) or a post that ran out of :data:`DEADLINE`, anything else
    (no connection, 5xx, 429) to be tried again.  The message of whatever it
    raises is :func:`shown` (the receiver may have written it)."""
    try:
        _send(post, config, timeout, deadline)
    except (WebhookRefused, WebhookUnavailable):
        raise
    except Exception as e:  # noqa: BLE001 - anything else, its message made harmless, is worth another try
        raise WebhookUnavailable(shown(f"{e.__class__.__name__}: {e}"), category(e)) from e


def _send(post: Post, config: Mapping[str, Any], timeout: float, deadline: float | None) -> None:
    try:
        target, ip = check_target(post.url, config)
    except Unresolvable as e:
        raise WebhookUnavailable(shown(str(e)), NOT_FOUND) from e  # DNS may be back later
    except Invalid as e:
        raise WebhookRefused(shown(f"the address is refused now: {e}"), NOT_ALLOWED) from e
    clock = _Clock(DEADLINE if deadline is None else deadline, timeout)
    kind = _HTTPSConnection if target.scheme == "https" else _HTTPConnection
    try:
        conn = kind(target, ip, clock)
        try:
            headers = {"User-Agent": USER_AGENT, "Content-Length": str(len(post.body)), **post.headers}
            conn.request("POST", target.path, body=post.body, headers=headers)
            answer = conn.getresponse()
            said = answer.read(MAX_ANSWER).decode("utf-8", "replace")
            status = answer.status
        finally:
            conn.close()
    except TimeoutError as e:
        # Not tried again: a receiver this slow would hold a worker on every try.
        raise WebhookRefused(shown(f"no answer from {target.host} within the time allowed: {e}"), TIMED_OUT) from e
    if 200 <= status < 300:
        return
    # For the operator's log (the outbox row): the setter sees only the category.
    summary = f"HTTP {status} from {target.host}: {shown(said, 200)}"
    if 300 <= status < 400:
        raise WebhookRefused(summary, REDIRECT)
    if status < 500 and status not in _RETRY:
        raise WebhookRefused(summary, f"HTTP {status}")
    raise WebhookUnavailable(summary, f"HTTP {status}")
