"""The Celery entry point in a checkout: ``celery -A worker worker`` and
``celery -A worker beat``; an installed copy uses ``-A pbem.worker``, which
this is."""

from pbem.worker import app, celery, flask_app

__all__ = ["app", "celery", "flask_app"]
