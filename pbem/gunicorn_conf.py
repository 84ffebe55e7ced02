"""Gunicorn's hooks for the web app: ``gunicorn -c python:pbem.gunicorn_conf
"pbem.web:create_app()"``.

Only what metrics need: with ``PROMETHEUS_MULTIPROC_DIR`` set, the workers'
count files are cleared when the server starts (counts from a previous run
would be summed with this one's), and a worker that exits hands back its
live gauges.  Every other setting stays on gunicorn's command line."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def on_starting(server: Any) -> None:
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        for stale in Path(folder).glob("*.db"):
            stale.unlink()


def child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
