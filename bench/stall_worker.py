"""The Celery app of the stall bench's webhook worker: ``pbem.worker``'s, with
``PBEM_WEBHOOK_ALLOW`` naming 127.0.0.1 allowed (a public service refuses
loopback webhooks; only the tests and this bench may post to local receivers)."""

from pbem.web import create_app

flask_app = create_app({"TESTING": True})
celery = flask_app.extensions["celery"]
app = celery
