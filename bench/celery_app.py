"""The Celery application the mail benchmark's workers run when the repository has no
``worker.py`` yet: the same thing it would hold, the app that ``create_app()`` wires to
the ``PBEM_*`` settings, so the tasks are pbem's own (``pbem.deliver``).

    celery -A bench.celery_app:celery worker -c 1
"""

from __future__ import annotations

from pbem.web import create_app

flask_app = create_app()
celery = flask_app.extensions["celery"]
