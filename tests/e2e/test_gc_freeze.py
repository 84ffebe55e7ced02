"""gunicorn started as the README starts it (``-c python:pbem.gunicorn_conf``)
freezes what a worker made to start out of the garbage collector's sight: a
full collection walked all of it on every turn, to free nothing, and held a
request up by about 100 ms every 50 to 60 lobby listings (bench, lobby).  A
Celery pool process does the same once forked."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import requests
from billiard import Pipe, Process  # type: ignore[import-untyped]  # no type information
from celery.signals import worker_process_init

from tests.support.config import SECRET
from tests.support.smtp import free_port

GUNICORN = Path(sys.executable).with_name("gunicorn")
ROOT = Path(__file__).resolve().parents[2]


def _serve(sqlite_url: str, tmp_path: Path, *config: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PBEM_DATABASE_URL": sqlite_url, "PBEM_SECRET_KEY": SECRET, "PBEM_BASE_URL": base}
    proc = subprocess.Popen([str(GUNICORN), "-w", "1", "-b", f"127.0.0.1:{port}", *config,
                             "--pythonpath", str(ROOT), "tests.support.gc_probe:make()"], env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while True:
        try:
            if requests.get(base + "/healthz", timeout=1).status_code == 200:
                return proc, base
        except requests.RequestException:
            pass  # not listening yet
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError((proc.stderr.read() if proc.stderr else b"").decode())
        time.sleep(0.2)


def _held(sqlite_url: str, tmp_path: Path, *config: str) -> dict[str, int]:
    proc, base = _serve(sqlite_url, tmp_path, *config)
    try:
        assert requests.get(base + "/", timeout=10).status_code == 200  # the app itself still answers
        answer = requests.get(base + "/__gc", timeout=10)
        assert answer.status_code == 200
        held: dict[str, int] = answer.json()
        return held
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_the_worker_freezes_what_it_made_to_start(sqlite_url: str, tmp_path: Path) -> None:
    with_hook = _held(sqlite_url, tmp_path, "-c", "python:pbem.gunicorn_conf")
    without = _held(sqlite_url, tmp_path)
    # Without the hook every object of the started app is the collector's to walk.
    assert without["frozen"] == 0 and without["tracked"] > 50_000, without
    # With it, those are frozen; what the first requests made is all it walks.
    assert with_hook["frozen"] > without["tracked"] // 2, (with_hook, without)
    assert with_hook["tracked"] < without["tracked"] // 4, (with_hook, without)


def _pool_child(answer: Any) -> None:
    # What Celery's prefork pool sends in each child it forks.
    worker_process_init.send(sender=None)
    answer.send((gc.get_freeze_count(), len(gc.get_objects())))


def test_a_celery_pool_process_freezes_what_it_was_started_with() -> None:
    import pbem.workers.tasks  # noqa: F401  (connects the signal, as the worker's app does)

    ours, theirs = Pipe()
    child = Process(target=_pool_child, args=(theirs,))
    child.start()
    try:
        assert ours.poll(60), "the child did not answer"
        frozen, tracked = ours.recv()
    finally:
        child.join(30)
    assert child.exitcode == 0
    assert frozen > 50_000 and tracked < frozen // 4, (frozen, tracked)


def test_the_worker_s_own_process_freezes_nothing() -> None:
    """The solo pool sends the signal in the worker's own process, which may be a
    program that started a worker among other things (these tests do)."""
    import pbem.workers.tasks  # noqa: F401

    before = gc.get_freeze_count()
    worker_process_init.send(sender=None)
    assert gc.get_freeze_count() == before
