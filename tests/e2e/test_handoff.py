"""The relay's hand-off writes the message Celery would write (issue 34).

``pbem.workers.handoff`` pushes outbox rows onto the Redis broker itself; here
each field of its message is compared with the one ``apply_async`` writes for
the same task and row (ids, tags and the expiry's instant aside), and a real
worker runs a handed-off message.  ``tests/e2e/test_worker_redis.py`` plays
whole games through it."""

from __future__ import annotations

import base64
import time
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


def _pushes(broker_app: Any) -> tuple[Any, Any, redis.Redis, str]:
    celery = broker_app.extensions["celery"]
    handoff, task = celery.pbem_handoff, celery.tasks["pbem.deliver"]
    return handoff, task, redis.Redis.from_url(celery.conf.broker_url), handoff.queue_of(task)


def _rows_on(client: redis.Redis, queue: str) -> list[int]:
    return sorted(json.loads(base64.b64decode(json.loads(m)["body"]))[0][0] for m in client.lrange(queue, 0, -1))


def _client_id(handoff: Any) -> int:
    """The Redis client id of the connection this thread's pushes go on."""
    connection = handoff._held_here().connection
    connection.send_command("CLIENT", "ID")
    return int(connection.read_response())


def test_a_push_after_redis_dropped_the_connection_arrives(broker_app: Any) -> None:
    """The hand-off holds its connection between pushes: one that Redis closed
    meanwhile (a restart, its idle time-out) is opened anew, the push not lost."""
    handoff, task, client, queue = _pushes(broker_app)
    handoff.publish(task, 1)
    held = _client_id(handoff)
    handoff.publish(task, 2)
    assert _client_id(handoff) == held  # one connection, from push to push
    killed = client.client_kill_filter(_type="normal", skipme=True)
    assert killed >= 1
    handoff.publish(task, 3)
    assert _rows_on(client, queue) == [1, 2, 3]
    assert _client_id(handoff) != held


def test_threads_push_on_connections_of_their_own(broker_app: Any) -> None:
    """gunicorn's threaded workers push from several threads at once: each on its
    own connection, or their commands and replies would interleave."""
    import threading

    handoff, task, client, queue = _pushes(broker_app)
    handoff.publish(task, 0)  # the main thread's connection, open before the others start
    ids = [_client_id(handoff)]

    def pushes(k: int) -> None:
        for n in range(50):
            handoff.publish(task, 100 * k + n)
        ids.append(_client_id(handoff))

    threads = [threading.Thread(target=pushes, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert _rows_on(client, queue) == [0] + [100 * k + n for k in range(1, 5) for n in range(50)]
    assert len(set(ids)) == 5


def test_each_thread_writes_the_message_apply_async_writes_in_it(broker_app: Any) -> None:
    """The relay's message is written from a shape kept per thread: in each,
    what apply_async writes there (its reply-to is the thread's), with ids of
    its own and the row's number, however many rows went before."""
    import threading

    celery = broker_app.extensions["celery"]
    handoff, task, client, queue = _pushes(broker_app)
    seen: list[tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]] = []
    wrote, end = threading.Semaphore(0), threading.Event()

    def writes(first: int) -> None:
        with broker_app.app_context():
            task.apply_async((first,), retry=False)
            celerys = _written(client, queue)
            ours = []
            for row in (first, first + 1, first + 2):
                handoff.publish(task, row)
                ours.append(_written(client, queue))
        seen.append((celerys, ours[0], ours))
        wrote.release()
        end.wait(10)  # alive until all have written: each thread a distinct one

    threads = [threading.Thread(target=writes, args=(k * 1000,)) for k in range(3)]
    for t in threads:  # one at a time, so that each reads its own messages
        t.start()
        assert wrote.acquire(timeout=10)
    end.set()
    for t in threads:
        t.join()
    assert len(seen) == 3 and len({c["properties"]["reply_to"] for c, _, _ in seen}) == 3
    for celerys, first, ours in seen:
        assert _masked(first) == _masked(celerys)
        rows = [json.loads(base64.b64decode(m["body"]))[0][0] for m in ours]
        assert rows == [rows[0], rows[0] + 1, rows[0] + 2]
        assert [m["headers"]["argsrepr"] for m in ours] == [f"({r},)" for r in rows]
        for m in ours:
            assert m["headers"]["id"] == m["headers"]["root_id"] == m["properties"]["correlation_id"]
        assert len({m["headers"]["id"] for m in ours} | {m["properties"]["delivery_tag"] for m in ours}) == 6


def test_a_message_that_holds_a_mark_of_the_shape_is_written_whole(broker_app: Any) -> None:
    # The shape's marks are plain text: a task name holding one would have it
    # filled in, so such a task's messages are built field by field.
    celery = broker_app.extensions["celery"]
    handoff = celery.pbem_handoff

    def marked(row_id: int) -> None:
        pass

    task = celery.task(name="pbem.test.pbem-mark-id", shared=False, lazy=False)(marked)
    try:
        with broker_app.app_context():
            assert handoff._shape(task) is None
            queue, written = handoff.written(task, 5)
    finally:
        celery.tasks.unregister(task.name)
    message = json.loads(written)
    assert message["headers"]["task"] == "pbem.test.pbem-mark-id"
    assert message["headers"]["argsrepr"] == "(5,)"
    assert json.loads(base64.b64decode(message["body"]))[0] == [5]


def test_a_forked_child_pushes_on_a_connection_of_its_own(broker_app: Any) -> None:
    """A child made by fork (gunicorn's and Celery's workers) must not write on
    the socket its parent holds: each pushes on its own."""
    import os

    handoff, task, client, queue = _pushes(broker_app)
    handoff.publish(task, 1)
    parent_id = _client_id(handoff)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        code = 1
        try:
            handoff.publish(task, 2)
            os.write(write, str(_client_id(handoff)).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    child_id = int(os.read(read, 64))
    os.close(read)
    handoff.publish(task, 3)
    assert _rows_on(client, queue) == [1, 2, 3]
    assert child_id != parent_id and _client_id(handoff) == parent_id  # the parent's own, unharmed


def test_a_redis_that_does_not_answer_fails_the_push_once(broker_app: Any) -> None:
    """A time-out is not retried (a hung Redis would hold the move for each try):
    the push fails after BROKER_TIMEOUT, and the next one connects anew."""
    import socket
    import time

    from pbem.workers.handoff import Handoff

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # accepts, never answers
    try:
        celery = broker_app.extensions["celery"]
        handoff = Handoff(celery, f"redis://127.0.0.1:{silent.getsockname()[1]}/0", 0.5)
        task = celery.tasks["pbem.deliver"]
        for _ in range(2):
            started = time.monotonic()
            with pytest.raises(redis.TimeoutError):
                handoff.publish(task, 1)
            assert 0.4 < time.monotonic() - started < 0.95  # one wait, not two
    finally:
        silent.close()


def test_a_push_that_timed_out_leaves_no_answer_for_the_next(broker_app: Any) -> None:
    """Redis may answer a push after it gave up waiting: that answer must not be
    read as the next command's (the connection is dropped, the next connects anew)."""
    from pbem.workers.handoff import Handoff

    celery = broker_app.extensions["celery"]
    handoff = Handoff(celery, celery.conf.broker_url, 0.3)
    task = celery.tasks["pbem.deliver"]
    client = redis.Redis.from_url(celery.conf.broker_url)
    queue = handoff.queue_of(task)
    handoff.publish(task, 1)
    client.client_pause(600, all=False)  # writes wait 0.6 s: longer than the push's 0.3
    with pytest.raises(redis.TimeoutError):
        handoff.publish(task, 2)
    time.sleep(0.5)  # the pause is over
    handoff.publish(task, 3)
    assert _client_id(handoff) != 1  # a client id, not the late answer to a push
    # The connection that gave up was closed, so Redis dropped the push it held
    # back (had it stayed open, 2 would be pushed now and its answer read by 3's
    # push): row 2 is the outbox sweep's, as for any failed push.
    assert _rows_on(client, queue) == [1, 3]
