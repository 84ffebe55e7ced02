"""The relay's hand-off writes the message Celery would write (issue 34).

``pbem.workers.handoff`` pushes outbox rows onto the Redis broker itself; here
each field of its message is compared with the one ``apply_async`` writes for
the same task and row (ids, tags and the expiry's instant aside), and a real
worker runs a handed-off message.  ``tests/e2e/test_worker_redis.py`` plays
whole games through it."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any, Iterator

import pytest
import redis
from celery.contrib.testing.worker import start_worker

from tests.support.config import redis_db

#: Fresh per message: the task id (and the ids equal to it) and kombu's delivery tag.
_FRESH = {("headers", "id"), ("headers", "root_id"), ("properties", "correlation_id"),
          ("properties", "delivery_tag")}


@pytest.fixture
def broker_app(database_url: str, redis_url: str) -> Iterator[Any]:
    from pbem.web import create_app
    from tests.support.config import app_config

    broker = redis_db(3)
    client = redis.Redis.from_url(broker)
    client.flushdb()
    app = create_app(app_config(database_url, BROKER_URL=broker))
    yield app
    app.extensions["pbem"].engine.dispose()
    client.flushdb()


def _written(client: redis.Redis, queue: str) -> dict[str, Any]:
    raw = client.rpop(queue)
    assert raw is not None, f"nothing on {queue}"
    message: dict[str, Any] = json.loads(raw)
    return message


def _masked(message: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(message))
    for part, name in _FRESH:
        assert out[part][name], (part, name)
        out[part][name] = "fresh"
    if out["headers"]["expires"] is not None:
        out["headers"]["expires"] = datetime.fromisoformat(out["headers"]["expires"]).utcoffset()
    return out


@pytest.mark.parametrize("expires", [None, 30.0])
@pytest.mark.parametrize("name", ["pbem.deliver", "pbem.deliver_webhook"])
def test_the_hand_off_writes_what_apply_async_writes(broker_app: Any, name: str, expires: float | None) -> None:
    celery = broker_app.extensions["celery"]
    handoff = celery.pbem_handoff
    assert handoff is not None, "a redis:// broker hands off through pbem.workers.handoff"
    task = celery.tasks[name]
    client = redis.Redis.from_url(celery.conf.broker_url)
    with broker_app.app_context():
        task.apply_async((41,), retry=False, expires=expires)
        queue = handoff.queue_of(task)
        celerys = _written(client, queue)
        handoff.publish(task, 41, expires)
        ours = _written(client, queue)
    assert client.llen(queue) == 0
    assert _masked(ours) == _masked(celerys)
    assert json.loads(base64.b64decode(ours["body"])) == json.loads(base64.b64decode(celerys["body"]))
    if expires is not None:
        apart = (datetime.fromisoformat(ours["headers"]["expires"])
                 - datetime.fromisoformat(celerys["headers"]["expires"])).total_seconds()
        assert 0 <= apart < 5


def test_a_worker_runs_a_handed_off_row(broker_app: Any) -> None:
    """The row's id reaches the task: a row that does not exist is done with at once."""
    celery = broker_app.extensions["celery"]
    seen: list[Any] = []
    from celery.signals import task_postrun

    def record(sender: Any = None, args: Any = None, retval: Any = None, **_: Any) -> None:
        seen.append((sender.name, tuple(args or ()), retval))

    task_postrun.connect(record, weak=False)
    try:
        with start_worker(celery, pool="solo", concurrency=1, perform_ping_check=False, loglevel="WARNING",
                          shutdown_timeout=10):
            with broker_app.app_context():
                celery.pbem_handoff.publish(celery.tasks["pbem.deliver"], 987654)
            import time

            deadline = time.monotonic() + 20
            while not seen and time.monotonic() < deadline:
                time.sleep(0.05)
    finally:
        task_postrun.disconnect(record)
    assert seen and seen[0][0] == "pbem.deliver" and seen[0][1] == (987654,), seen
