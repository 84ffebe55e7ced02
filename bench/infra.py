"""The benchmark's servers: PostgreSQL databases with unique names, processes (gunicorn,
Celery workers, the SMTP sink) in their own process groups, all cleaned up on the way out,
errors included.  Everything listens on loopback only."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
HOST = "127.0.0.1"
POSTGRES_ADMIN = os.environ.get("PBEM_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
#: A Redis URL to use instead of a private redis-server (the shared server on 6379 has
#: databases that the test suite flushes, which would drop queued tasks mid-run).
SHARED_REDIS = os.environ.get("PBEM_BENCH_REDIS", "")
SECRET = "bench-secret-key-long-enough-for-the-start-check"
BASE_URL = "https://clans.bench"
LOGS: Path = ROOT / "bench" / "data" / "logs"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def sqlalchemy_url(name: str) -> str:
    return POSTGRES_ADMIN.replace("postgresql://", "postgresql+psycopg://").rsplit("/", 1)[0] + f"/{name}"


def psycopg_url(name: str) -> str:
    return POSTGRES_ADMIN.rsplit("/", 1)[0] + f"/{name}"


def dbapi_url(url: str) -> str:
    """The psycopg form of a database's SQLAlchemy URL."""
    return url.replace("postgresql+psycopg://", "postgresql://")


class Infra:
    """Owns everything the run starts; ``close()`` (or leaving the ``with``) stops the
    processes and drops the databases, even after an error or Ctrl-C."""

    def __init__(self) -> None:
        self.procs: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.databases: list[str] = []
        self.redis_keys: list[str] = []
        self.run_id = uuid.uuid4().hex[:8]
        self._redis_url = SHARED_REDIS
        LOGS.mkdir(parents=True, exist_ok=True)

    @property
    def redis(self) -> str:
        """The broker: a private ``redis-server`` on a free loopback port (no persistence),
        started on first use, unless ``PBEM_BENCH_REDIS`` names one."""
        if not self._redis_url:
            port = free_port()
            proc = self.spawn("redis", ["redis-server", "--bind", HOST, "--port", str(port), "--save", "",
                                        "--appendonly", "no", "--protected-mode", "yes"])
            wait_port(HOST, port, proc, 10)
            self._redis_url = f"redis://{HOST}:{port}/0"
        return self._redis_url

    def __enter__(self) -> "Infra":
        self._old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
        for s in self._old:
            signal.signal(s, _raise_exit)
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self.close()
        finally:
            for s, handler in self._old.items():
                signal.signal(s, handler)

    # -- databases -------------------------------------------------------------

    def database(self, label: str, migrate: bool = True) -> str:
        """A new, migrated PostgreSQL database; returns its SQLAlchemy URL."""
        import psycopg

        name = f"pbem_bench_{self.run_id}_{label}"
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        self.databases.append(name)
        url = sqlalchemy_url(name)
        if migrate:
            from pbem.core.db import upgrade

            upgrade(url)
        return url

    def drop_database(self, url: str) -> None:
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if name in self.databases:
            self.databases.remove(name)

    # -- processes -------------------------------------------------------------

    def spawn(self, label: str, argv: Sequence[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """Start a process in its own session (so its children go with it); output goes to
        ``bench/data/logs/<label>.log``."""
        log = open(LOGS / f"{label}.log", "wb")
        full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
        proc = subprocess.Popen(list(argv), cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        self.procs.append((label, proc))
        return proc

    def stop(self, proc: subprocess.Popen[bytes], timeout: float = 8.0) -> None:
        """SIGTERM to the process group, SIGKILL if it has not gone after ``timeout``."""
        if proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait(5)
        # Workers left behind by a leader that died first.
        _signal_group(proc, signal.SIGKILL)
        self.procs = [(n, p) for n, p in self.procs if p is not proc]

    def gunicorn(self, label: str, app: str, env: dict[str, str], *, workers: int, worker_class: str,
                 threads: int = 1, timeout: float = 30.0) -> str:
        """Serve ``app`` with gunicorn on a free loopback port; returns the base URL once
        it answers."""
        port = free_port()
        # The production command's settings (README, "Running it in public"): its hooks
        # are part of what is measured, the floor's server started the same way.
        argv = [str(BIN / "gunicorn"), "-c", "python:pbem.gunicorn_conf",
                "-b", f"{HOST}:{port}", "-w", str(workers), "-k", worker_class,
                "--threads", str(threads), "--keep-alive", "30", "--backlog", "256",
                "--graceful-timeout", "3", "--log-level", "warning", app]
        proc = self.spawn(label, argv, env)
        wait_http(HOST, port, "/", proc, timeout)
        return f"http://{HOST}:{port}"

    def profile(self, label: str, pid: int, seconds: float) -> subprocess.Popen[bytes] | None:
        """With ``--profile`` (``BENCH_PROFILE=1``): sample ``pid`` with py-spy for ``seconds``
        into ``bench/results/profile-<label>.speedscope.json`` (open it in speedscope.app)."""
        exe = BIN / "py-spy"
        if os.environ.get("BENCH_PROFILE") != "1" or not exe.exists():
            return None
        out = ROOT / "bench" / "results" / f"profile-{label}.speedscope.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        return self.spawn(f"py-spy-{label}", [str(exe), "record", "--pid", str(pid), "--duration",
                                              str(max(1, round(seconds))), "--rate", "250", "--nonblocking",
                                              "--format", "speedscope", "-o", str(out)])

    def close(self) -> None:
        errors = []
        for _label, proc in list(reversed(self.procs)):
            try:
                self.stop(proc)
            except Exception as e:  # noqa: BLE001
                errors.append(f"stop {proc.args!r}: {e}")
        if self.redis_keys and SHARED_REDIS:
            try:
                import redis

                redis.Redis.from_url(SHARED_REDIS, socket_connect_timeout=3).delete(*self.redis_keys)
            except Exception as e:  # noqa: BLE001
                errors.append(f"redis: {e}")
        self.redis_keys.clear()
        for name in list(self.databases):
            try:
                self.drop_database(sqlalchemy_url(name))
            except Exception as e:  # noqa: BLE001
                errors.append(f"drop {name}: {e}")
        for problem in errors:
            print(f"bench: {problem}", file=sys.stderr)


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (gunicorn's workers, Celery's pool processes)."""
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def cpu_seconds(pids: Sequence[int]) -> float:
    """User plus system CPU time used so far by ``pids`` (from ``/proc``; 0 for a pid that
    is gone).  Per request, it shows where a change went even when other load on the
    machine moves the throughput."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return total / tick


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _raise_exit(signum: int, _frame: Any) -> None:
    raise SystemExit(128 + signum)


def service_env(database_url: str, broker_url: str, **extra: str) -> dict[str, str]:
    """The ``PBEM_*`` settings of a benchmark server or worker."""
    return {
        "PBEM_DATABASE_URL": database_url,
        "PBEM_SECRET_KEY": SECRET,
        "PBEM_BASE_URL": BASE_URL,
        "PBEM_BROKER_URL": broker_url,
        # The servers only queue mail (the broker is set), but a public base URL needs a mail
        # transport to start at all; nothing listens here, the mail bench sets its sink.
        "PBEM_SMTP_HOST": HOST,
        "PBEM_SMTP_PORT": "9",
        "PBEM_MAILBOX": "false",
        **extra,
    }


def wait_http(host: str, port: int, path: str, proc: subprocess.Popen[bytes] | None, timeout: float) -> None:
    """Until something answers HTTP on the port (any status)."""
    end = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited with {proc.returncode} before answering; see {LOGS}")
        try:
            conn = http.client.HTTPConnection(host, port, timeout=2)
            conn.request("GET", path)
            conn.getresponse().read()
            conn.close()
            return
        except OSError:
            if time.monotonic() > end:
                raise RuntimeError(f"nothing answered on {host}:{port} within {timeout:.0f} s") from None
            time.sleep(0.1)


def wait_port(host: str, port: int, proc: subprocess.Popen[bytes] | None, timeout: float) -> None:
    end = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited with {proc.returncode}; see {LOGS}")
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            if time.monotonic() > end:
                raise RuntimeError(f"nothing listens on {host}:{port} after {timeout:.0f} s") from None
            time.sleep(0.05)


__all__ = ["Infra", "service_env", "free_port", "wait_http", "wait_port", "SECRET", "BASE_URL", "HOST"]
