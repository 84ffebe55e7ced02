"""The Celery entry point of an installed copy: ``celery -A pbem.worker worker``
and ``celery -A pbem.worker beat`` (the checkout's ``worker.py`` is the same).

It builds the web app (configured by the ``PBEM_*`` environment variables, like
every process of the service) and exposes its Celery app as ``celery`` and
``app`` (the names ``celery -A`` looks for); ``flask_app`` is the Flask app the
tasks run inside, with its database, mail transport and clock."""

from .core.config import UnsafeConfig
from pbem.web import create_app

try:
    flask_app = create_app()
except UnsafeConfig as e:
    raise SystemExit(f"pbem: refusing to start: {e}") from None
celery = flask_app.extensions["celery"]
app = celery

__all__ = ["app", "celery", "flask_app"]
