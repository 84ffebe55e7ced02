"""The one place that makes HTTP requests: posting to a webhook.

The address is checked again just before the post (:mod:`pbem.table.webhook_targets`)
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

A receiver that does not answer in time (or cannot be connected to)
:data:`BREAKER_FAILURES` times in a row is skipped for :data:`BREAKER_PAUSE`
seconds: its posts fail at once, without a connection, and are tried again
later like any failed post (the circuit breaker, :class:`Breaker`).  The
breaker is per receiver (scheme, host and port), so one slow server cannot
hold the webhook workers with many webhooks; its state is in Redis when the
broker is Redis (shared by every worker; keys hold a hash of the receiver, not
its name), else in the process.  A day of failures still switches a webhook
off (:func:`pbem.table.webhooks.failed`): the skipped posts count.

What the setter of a webhook is told of a failure is a coarse category
(:func:`category`), never what the receiver said.  What the operator sees (the
log, the outbox row's error in ``pbem admin outbox``) is what it said made
harmless: every exception :func:`send` raises has a one-line message without
terminal control sequences or control characters (:func:`shown`), so a
receiver cannot clear or rewrite an operator's terminal."""

from __future__ import annotations

import hashlib
import http.client
import io
import logging
import re
import threading
import select
import socket
import ssl
import time
from functools import lru_cache
from typing import Any, Mapping

from ..core.errors import Invalid
from ..table.webhook_targets import IP, Target, Unresolvable, check_target
from ..table.webhooks import (BAD_ANSWER, NO_CONNECTION, NOT_ALLOWED, NOT_FOUND, REDIRECT, REFUSED, TIMED_OUT,
                              TLS_ERROR)
from .transport import PermanentFailure
from .webhook_posts import USER_AGENT, Post

log = logging.getLogger(__name__)

#: Seconds for the connection, and for each read or write on it (at most).
TIMEOUT = 5.0
#: Seconds for a whole post: connecting, sending and reading the answer.  A
#: webhook receiver answers in well under a second (Discord's and Slack's do);
#: one that takes longer holds a webhook worker, so it gets a few seconds.
DEADLINE = 5.0
#: Posts to one receiver that found no answer in time or no connection, one
#: after another, before it is skipped for BREAKER_PAUSE seconds.
BREAKER_FAILURES = 3
BREAKER_PAUSE = 600.0
#: The failures the breaker counts: the slow or unreachable (an answer, even a
#: refusal, shows the receiver is there and quick).
_SLOW = {TIMED_OUT, NO_CONNECTION, REFUSED, TLS_ERROR}
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


class Breaker:
    """Consecutive slow failures per receiver, and the receivers skipped for now.
    In Redis at ``url`` (a ``redis://`` URL), else in this process; if Redis
    cannot be reached the breaker stays closed (the deadline still bounds a post)."""

    PREFIX = "pbem:webhook-breaker:"

    def __init__(self, url: str | None) -> None:
        self._redis: Any = None
        if url and url.startswith(("redis://", "rediss://", "unix://")):
            import redis

            self._redis = redis.Redis.from_url(url, socket_timeout=1.0, socket_connect_timeout=1.0)
        self._lock = threading.Lock()
        self._failures: dict[str, int] = {}
        self._open: dict[str, tuple[float, str]] = {}

    @staticmethod
    def key(target: Target) -> str:
        return hashlib.sha256(f"{target.scheme}://{target.host}:{target.port}".encode()).hexdigest()[:32]

    def skipped(self, key: str) -> str | None:
        """The category of the failures that opened the breaker, if it is open."""
        if self._redis is not None:
            try:
                value = self._redis.get(self.PREFIX + key + ":open")
            except Exception as e:  # noqa: BLE001 - no breaker without Redis; the deadline holds
                log.warning("webhook breaker: Redis unavailable (%s)", e)
                return None
            return value.decode() if value is not None else None
        with self._lock:
            until, why = self._open.get(key, (0.0, ""))
            return why if until > time.monotonic() else None

    def failed(self, key: str, category: str) -> bool:
        """Count a slow failure; whether the breaker opened."""
        if self._redis is not None:
            try:
                count_key = self.PREFIX + key
                with self._redis.pipeline() as pipe:
                    count = pipe.incr(count_key).expire(count_key, int(BREAKER_PAUSE) * 6).execute()[0]
                if count >= BREAKER_FAILURES:
                    self._redis.set(self.PREFIX + key + ":open", category, ex=int(BREAKER_PAUSE))
                    self._redis.delete(count_key)
                    return True
            except Exception as e:  # noqa: BLE001 - as above
                log.warning("webhook breaker: Redis unavailable (%s)", e)
            return False
        with self._lock:
            count = self._failures[key] = self._failures.get(key, 0) + 1
            if count >= BREAKER_FAILURES:
                self._open[key] = (time.monotonic() + BREAKER_PAUSE, category)
                del self._failures[key]
                return True
        return False

    def answered(self, key: str) -> None:
        """The receiver answered (whatever it said): the run of failures ends."""
        if self._redis is not None:
            try:
                self._redis.delete(self.PREFIX + key)
            except Exception as e:  # noqa: BLE001 - as above
                log.warning("webhook breaker: Redis unavailable (%s)", e)
            return
        with self._lock:
            self._failures.pop(key, None)


@lru_cache(maxsize=8)
def breaker(url: str | None) -> Breaker:
    """The breaker of a broker URL (one client per process)."""
    return Breaker(url)


def send(post: Post, config: Mapping[str, Any], *, timeout: float = TIMEOUT,
         deadline: float | None = None) -> None:
    """POST the body; returns once the receiver answered 2xx.  Raises
    :class:`WebhookRefused` for a lasting refusal (an address no longer allowed,
    a 4xx, a redirect) or a post that ran out of :data:`DEADLINE`, anything else
    (no connection, 5xx, 429) to be tried again.  The message of whatever it
    raises is :func:`shown` (the receiver may have written it)."""
    try:
        target, ip = check_target(post.url, config)
    except Unresolvable as e:
        raise WebhookUnavailable(shown(str(e)), NOT_FOUND) from e  # DNS may be back later
    except Invalid as e:
        raise WebhookRefused(shown(f"the address is refused now: {e}"), NOT_ALLOWED) from e
    broker_url = str(config.get("BROKER_URL") or "")
    circuit, key = breaker(broker_url or None), Breaker.key(target)
    why = circuit.skipped(key)
    if why is not None:
        raise WebhookUnavailable(f"{target.host} skipped for a while: its last {BREAKER_FAILURES} posts "
                                 f"failed ({why})", why)
    try:
        _send(post, target, ip, timeout, deadline)
    except Exception as e:
        failure = e if isinstance(e, (WebhookRefused, WebhookUnavailable)) else \
            WebhookUnavailable(shown(f"{e.__class__.__name__}: {e}"), category(e))
        if failure.category in _SLOW:
            if circuit.failed(key, failure.category):
                log.warning("webhook receiver %s skipped for %d s: %d posts in a row failed (%s)",
                            target.host, BREAKER_PAUSE, BREAKER_FAILURES, failure.category)
        else:
            circuit.answered(key)
        if failure is e:
            raise
        raise failure from e
    circuit.answered(key)


def _send(post: Post, target: Target, ip: IP, timeout: float, deadline: float | None) -> None:
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
