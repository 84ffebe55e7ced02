"""Gunicorn's hooks for the web app: ``gunicorn -c python:pbem.gunicorn_conf
"pbem.web:create_app()"``.

The access log's logger: gunicorn's own writes each request's path, and a
path holds a seat, sign-in or unsubscribe token (``GET /play/<token>``), so
:class:`RedactingLogger` masks tokens and addresses in every atom of the line
(``pbem.core.logs.redact_access``), whatever ``--access-logformat`` says.

And what metrics need: with ``PROMETHEUS_MULTIPROC_DIR`` set, the workers'
count files are cleared when the server starts (counts from a previous run
would be summed with this one's), and a worker that exits hands back its
live gauges.

And the worker's garbage collector: once the worker has loaded the app, what
it made to start is frozen out of the collector's sight
(:func:`pbem.core.heap.freeze_started`, which says why).  (Python's
documentation suggests freezing in the parent before the fork, to keep pages
shared with it; without ``--preload`` gunicorn's master holds no app to share,
so the freeze is the worker's own.)  Every other setting stays on gunicorn's
command line."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gunicorn.glogging import Logger  # type: ignore[import-untyped]  # no type information

from .core.heap import freeze_started
from .core.logs import redact_access


class RedactingLogger(Logger):  # type: ignore[misc]
    """gunicorn's logger, its access lines with tokens and addresses masked."""

    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
        return redact_access(super().atoms(resp, req, environ, request_time))


#: gunicorn reads its settings from this module's names (``-c python:pbem.gunicorn_conf``).
logger_class = RedactingLogger


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


def post_worker_init(worker: Any) -> None:
    # After the app is loaded (gunicorn calls this once the worker imported it),
    # before the first request: what exists now is the worker's for its life.
    freeze_started()
