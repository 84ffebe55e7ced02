"""The service as it runs in production, on one machine: gunicorn servers, Celery workers
and beat processes as separate "hosts" that share nothing but one PostgreSQL database and
one Redis, plus an SMTP sink that records what it accepted and when.

Each host is a process group with its own working directory (beat's schedule file lives
there) and its own node name, configured by ``PBEM_*`` variables as an operator would.
Nothing here is pbem's own code: it is started with the commands the README gives."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .infra import BIN, HOST, LOGS, Infra, children, free_port, service_env, wait_port
from .smtp_sink import Received, read_record

#: The installed Celery entry point (README, "Processes").
CELERY_APP = "pbem.worker"
#: The gunicorn command the move bench keeps (sync workers: arrival order, tight p99).
GUNICORN_WORKERS = 4


@dataclass
class Host:
    label: str
    role: str  # web, worker or beat
    proc: subprocess.Popen[bytes]
    argv: list[str]
    env: dict[str, str]
    base_url: str = ""


@dataclass
class Stack:
    """Start with :meth:`start_sink`, then :meth:`web`, :meth:`worker`, :meth:`beat`;
    ``infra`` stops everything on the way out."""

    infra: Infra
    database_url: str
    settings: dict[str, str] = field(default_factory=dict)
    hosts: list[Host] = field(default_factory=list)
    sink_port: int = 0
    record: Path = Path()

    def start_sink(self) -> None:
        self.sink_port = free_port()
        self.record = LOGS / f"sink-{self.infra.run_id}-{self.sink_port}.tsv"
        self.record.unlink(missing_ok=True)
        proc = self.infra.spawn(f"sink-{self.sink_port}", [sys.executable, "-m", "bench.smtp_sink",
                                                           str(self.sink_port), "--record", str(self.record)])
        wait_port(HOST, self.sink_port, proc, 15)

    def env(self, host: str) -> dict[str, str]:
        assert self.sink_port, "start the sink first"
        return service_env(self.database_url, self.infra.redis, PBEM_SMTP_HOST=HOST,
                           PBEM_SMTP_PORT=str(self.sink_port), **self.settings)

    def _folder(self, label: str) -> Path:
        folder = LOGS / f"host-{self.infra.run_id}-{label}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def web(self, label: str, workers: int = GUNICORN_WORKERS) -> Host:
        env = self.env(label)
        base = self.infra.gunicorn(label, "pbem.web:create_app()", env, workers=workers, worker_class="sync")
        proc = self.infra.procs[-1][1]  # the gunicorn just started
        host = Host(label, "web", proc, [str(a) for a in proc.args], env, base)
        self.hosts.append(host)
        return host

    def worker(self, label: str, *extra: str) -> Host:
        """``celery -A pbem.worker worker`` with its default pool and concurrency (one
        process per CPU), as the README runs it; ``extra`` for other options."""
        argv = [str(BIN / "celery"), "-A", CELERY_APP, "worker", "-n", f"{label}@%h", "--loglevel", "WARNING",
                "--without-gossip", "--without-mingle", *extra]
        return self._start(label, "worker", argv)

    def beat(self, label: str) -> Host:
        folder = self._folder(label)
        argv = [str(BIN / "celery"), "-A", CELERY_APP, "beat", "--loglevel", "WARNING",
                "--schedule", str(folder / "celerybeat-schedule"), "--pidfile", ""]
        return self._start(label, "beat", argv)

    def _start(self, label: str, role: str, argv: list[str]) -> Host:
        env = self.env(label)
        proc = self.infra.spawn(label, argv, env)
        host = Host(label, role, proc, argv, env)
        self.hosts.append(host)
        return host

    def host(self, label: str) -> Host:
        return next(h for h in self.hosts if h.label == label)

    def kill(self, label: str) -> None:
        """The host dies at once: SIGKILL to its whole process group (pool processes too)."""
        import os
        import signal

        host = self.host(label)
        try:
            os.killpg(host.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        host.proc.wait(10)
        self.infra.procs = [(n, p) for n, p in self.infra.procs if p is not host.proc]

    def restart(self, label: str) -> Host:
        """Stop the host the polite way (SIGTERM, as a deploy does) and start it again."""
        host = self.host(label)
        self.infra.stop(host.proc)
        host.proc = self.infra.spawn(f"{label}-again", host.argv, host.env)
        return host

    def alive(self, label: str) -> bool:
        return self.host(label).proc.poll() is None

    def pool(self, label: str) -> list[int]:
        host = self.host(label)
        return [host.proc.pid, *children(host.proc.pid)]

    def received(self) -> list[Received]:
        return read_record(self.record)

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Until every web host answers ``/readyz`` 200 (database and broker reached)."""
        import http.client
        import time

        for h in self.hosts:
            if h.role != "web":
                continue
            port = int(h.base_url.rsplit(":", 1)[1])
            end = time.monotonic() + timeout
            while True:
                conn = http.client.HTTPConnection(HOST, port, timeout=5)
                conn.request("GET", "/readyz")
                status = conn.getresponse().status
                conn.close()
                if status == 200:
                    break
                if time.monotonic() > end:
                    raise RuntimeError(f"{h.label} is not ready after {timeout:.0f} s")
                time.sleep(0.2)


def outbox(database_url: str, game_ids: list[int]) -> list[dict[str, Any]]:
    """The outbox rows of these games (kind, event, recipient, status, Message-ID, game)."""
    import psycopg

    from .infra import dbapi_url

    with psycopg.connect(dbapi_url(database_url)) as conn:
        cur = conn.execute("SELECT id, game_id, kind, event, recipient, status, message_id, attempts "
                           "FROM outbox WHERE game_id = ANY(%s)", [game_ids])
        names = [d.name for d in cur.description]  # type: ignore[union-attr]
        return [dict(zip(names, r)) for r in cur.fetchall()]


def wait_sent(database_url: str, timeout: float, game_ids: list[int] | None = None) -> bool:
    """Until no outbox row (of these games, if given) is pending; ``False`` after
    ``timeout`` seconds."""
    import time

    import psycopg

    from .infra import dbapi_url

    sql = "SELECT count(*) FROM outbox WHERE status = 'pending'"
    args: list[Any] = []
    if game_ids is not None:
        sql, args = sql + " AND game_id = ANY(%s)", [game_ids]
    end = time.monotonic() + timeout
    with psycopg.connect(dbapi_url(database_url), autocommit=True) as conn:
        while time.monotonic() < end:
            if not conn.execute(sql, args).fetchone()[0]:  # type: ignore[index]
                return True
            time.sleep(0.2)
    return False


__all__ = ["Stack", "Host", "outbox", "wait_sent", "CELERY_APP"]
