"""Whether the services the processes depend on answer: the database, the
broker and the SMTP server, each within a short time-out.

``GET /readyz`` asks the first two every few seconds; ``pbem admin check``
asks all three once and prints what went wrong.  A probe never raises: it
returns a :class:`Probe`, whose ``detail`` is for the operator's eyes (the
readiness answer, which anyone may fetch, says only ``ok`` or ``failed``).
Nothing here reads a secret into its answer: URLs are shown without their
password."""

from __future__ import annotations

import math
import smtplib
import socket
import ssl
import threading
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping

from sqlalchemy import text
from sqlmodel import create_engine
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.pool import NullPool


#: Seconds a readiness probe waits for each service.
TIMEOUT = 2.0


class ProbeState(StrEnum):
    OK = "ok"
    FAILED = "failed"
    #: A service the configuration leaves out.
    NOT_CONFIGURED = "not configured"


@dataclass(frozen=True)
class Probe:
    name: str
    state: ProbeState
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.state == ProbeState.FAILED


def shown_url(url: str) -> str:
    """A URL fit for a log or a terminal: its password masked."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - not a database URL (a broker's): mask by hand
        scheme, sep, rest = url.partition("://")
        credentials, at, host = rest.rpartition("@")
        if not at or ":" not in credentials:
            return url
        return f"{scheme}{sep}{credentials.partition(':')[0]}:***@{host}"


def _within(seconds: float, work: Callable[[], str]) -> str:
    """``work()``'s answer, or ``TimeoutError`` once ``seconds`` have passed.
    The work runs in a daemon thread: a server that accepts the connection and
    then never answers cannot hold the probe (or the request) beyond it."""
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = work()
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            result["error"] = e

    thread = threading.Thread(target=run, name="pbem-probe", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise TimeoutError(f"no answer within {seconds:g} s")
    if "error" in result:
        raise result["error"]
    return str(result.get("value", ""))


@lru_cache(maxsize=8)
def _probe_engine(url: str, timeout: float) -> Engine:
    """An engine of its own for the probe: no pool (a connection that a hung
    server holds is not kept), and a connect time-out, which the app's engine
    leaves to the operating system."""
    if make_url(url).get_backend_name() == "sqlite":
        return create_engine(url, poolclass=NullPool)
    seconds = max(2, math.ceil(timeout))  # libpq counts whole seconds, at least 2
    return create_engine(url, poolclass=NullPool,
                         connect_args={"connect_timeout": seconds,
                                       "options": f"-c statement_timeout={seconds * 1000}"})


def database(url: str, timeout: float = TIMEOUT) -> Probe:
    """``SELECT 1`` on the configured database."""
    def ask() -> str:
        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:") \
                and not Path(parsed.database).is_file():
            # Connecting would create an empty file: a probe changes nothing.
            raise FileNotFoundError(f"no database file {parsed.database} (run pbem db upgrade)")
        with _probe_engine(url, timeout).connect() as conn:
            conn.execute(text("SELECT 1"))
        return "answers"

    try:
        return Probe("database", ProbeState.OK, f"{shown_url(url)} {_within(timeout, ask)}")
    except Exception as e:  # noqa: BLE001 - any failure is the answer
        return Probe("database", ProbeState.FAILED, f"{shown_url(url)}: {_first_line(e)}")


@lru_cache(maxsize=8)
def _redis(url: str, timeout: float) -> Any:
    import redis

    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)


def broker(url: str, timeout: float = TIMEOUT) -> Probe:
    """``PING`` to the Redis broker (any other kind of broker: a connection by
    Celery's transport); ``not configured`` when work runs in-process."""
    if not url:
        return Probe("broker", ProbeState.NOT_CONFIGURED, "no PBEM_BROKER_URL: background work runs in this process")

    def ask() -> str:
        if url.startswith(("redis://", "rediss://", "unix://")):
            _redis(url, timeout).ping()
            return "answers PING"
        from kombu import Connection  # type: ignore[attr-defined]

        with Connection(url, connect_timeout=timeout) as conn:  # type: ignore[no-untyped-call]
            conn.ensure_connection(max_retries=1)
        return "accepts a connection"

    try:
        return Probe("broker", ProbeState.OK, f"{shown_url(url)} {_within(timeout + 0.5, ask)}")
    except Exception as e:  # noqa: BLE001 - any failure is the answer
        return Probe("broker", ProbeState.FAILED, f"{shown_url(url)}: {_first_line(e)}")


def smtp(config: Mapping[str, Any], timeout: float = 10.0) -> Probe:
    """Connect to the SMTP server, ``EHLO``, ``STARTTLS`` and log in as the
    configuration asks, then ``QUIT``: no message is sent."""
    host = str(config.get("SMTP_HOST") or "")
    if not host:
        return Probe("smtp", ProbeState.NOT_CONFIGURED,
                     "no PBEM_SMTP_HOST: mail is caught in the database (the demo's mailbox)")
    port = int(config.get("SMTP_PORT") or 25)
    where = f"{host}:{port}"
    try:
        with smtplib.SMTP(host, port, timeout=timeout) as server:
            server.ehlo()
            said = ["answers EHLO"]
            if config.get("SMTP_TLS"):
                server.starttls(context=ssl.create_default_context())
                server.ehlo()
                said.append("STARTTLS")
            if config.get("SMTP_USER"):
                server.login(str(config["SMTP_USER"]), str(config.get("SMTP_PASSWORD") or ""))
                said.append(f"login as {config['SMTP_USER']}")
        return Probe("smtp", ProbeState.OK, f"{where} {', '.join(said)}")
    except smtplib.SMTPAuthenticationError as e:
        return Probe("smtp", ProbeState.FAILED, f"{where}: the server refused PBEM_SMTP_USER/PBEM_SMTP_PASSWORD "
                                       f"({e.smtp_code})")
    except smtplib.SMTPNotSupportedError as e:
        return Probe("smtp", ProbeState.FAILED, f"{where}: {_first_line(e)} (PBEM_SMTP_TLS or PBEM_SMTP_USER asks "
                                       "for something the server does not offer)")
    except (OSError, smtplib.SMTPException, socket.timeout) as e:
        return Probe("smtp", ProbeState.FAILED, f"{where}: {_first_line(e)}")


def _first_line(e: BaseException) -> str:
    words = str(e).strip().splitlines()
    return f"{e.__class__.__name__}: {words[0] if words else 'no message'}"


def schema(url: str) -> Probe:
    """Whether the database's schema is the newest this code knows
    (``pbem db upgrade`` brings it there)."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from ..core.db import alembic_config

    try:
        heads = set(ScriptDirectory.from_config(alembic_config(url)).get_heads())
        with _probe_engine(url, TIMEOUT).connect() as conn:
            current = set(MigrationContext.configure(conn).get_current_heads())
    except Exception as e:  # noqa: BLE001 - any failure is the answer
        return Probe("schema", ProbeState.FAILED, f"cannot read the schema's revision: {_first_line(e)}")
    if current == heads:
        return Probe("schema", ProbeState.OK, f"at the newest revision ({', '.join(sorted(heads))})")
    if not current:
        return Probe("schema", ProbeState.FAILED, "the database has no schema yet: run pbem db upgrade")
    return Probe("schema", ProbeState.FAILED, f"at revision {', '.join(sorted(current))}, this code needs "
                                     f"{', '.join(sorted(heads))}: run pbem db upgrade")
