"""Handing a row to the workers through a Redis broker: the message Celery would
write, written for less.

After each move the relay publishes one message per outbox row.  Through
``apply_async`` that cost about a millisecond of the move's three (issue 34):
routing the task name anew, ``saferepr`` of the arguments, copies of the
exchange and queue objects, the producer pool.  The messages are always the
same shape (one row id, no callbacks, no ETA), so here they are written as
Celery's protocol 2 over kombu's Redis transport writes them: the same
headers, properties and base64 JSON body, pushed onto the same list (a queue
at priority 0 is the list of its name).  Workers cannot tell them apart;
``tests/e2e/test_handoff.py`` compares each field with the message
``apply_async`` writes and has a real worker run one.

Only for a ``redis://`` broker; any other publishes through ``apply_async``.
A Redis that is down fails the push within ``BROKER_TIMEOUT`` as a publish
would, and the relay leaves the rows to the outbox sweep."""

from __future__ import annotations

import base64
import json
import os
import re
import threading
import uuid
from datetime import datetime, timedelta, timezone
from functools import cached_property
from typing import Any

import orjson
import redis
from celery import Celery, Task
from celery.utils.nodenames import anon_nodename

#: The body's third element: a task with no callbacks, errbacks, chain or chord.
_EMBED = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}
_EMBED_JSON = json.dumps(_EMBED).encode()
#: Where a message's own parts go in its written shape (Handoff.written): marks
#: that no part of Celery's message holds.
_ID, _TAG, _ARGS, _BODY = range(4)
_MARKS = {_ID: "pbem-mark-id", _TAG: "pbem-mark-tag", _ARGS: "pbem-mark-args", _BODY: "pbem-mark-body"}
_MARK_OF = {m.encode(): k for k, m in _MARKS.items()}


class Handoff:
    """Publishes tasks of one Celery app straight onto its Redis broker."""

    def __init__(self, celery: Celery, url: str, timeout: float) -> None:
        self.celery = celery
        self.client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=min(timeout, 3))
        self.queues: dict[str, str] = {}
        self._held = threading.local()

    @cached_property
    def origin(self) -> str:
        # Celery's name for a client that is not a worker: gen<pid>@<host>.
        return str(anon_nodename())

    def queue_of(self, task: Task) -> str:
        queue = self.queues.get(task.name)
        if queue is None:
            # Celery's router, asked once per task name.
            queue = self.queues[task.name] = self.celery.amqp.router.route({}, task.name)["queue"].name
        return queue

    def message(self, task: Task, row_id: int, expires: float | None = None) -> tuple[str, dict[str, Any]]:
        """The queue and the message ``task.apply_async((row_id,), expires=expires)``
        would write."""
        task_id = str(uuid.uuid4())
        queue = self.queue_of(task)
        expiry = None
        if expires is not None:
            expiry = (datetime.now(timezone.utc) + timedelta(seconds=expires)).isoformat()
        headers = {
            "lang": "py", "task": task.name, "id": task_id, "shadow": None, "eta": None, "expires": expiry,
            "group": None, "group_index": None, "retries": 0, "timelimit": [task.time_limit, task.soft_time_limit],
            "root_id": task_id, "parent_id": None, "argsrepr": f"({row_id!r},)", "kwargsrepr": "{}",
            "origin": self.origin, "ignore_result": task.ignore_result, "replaced_task_nesting": 0,
            "stamped_headers": None, "stamps": {},
        }
        properties: dict[str, Any] = {"correlation_id": task_id, "reply_to": self.celery.thread_oid,
                                      "delivery_mode": 2}
        if expires is not None:
            properties["expiration"] = str(int(expires * 1000))
        properties.update({"delivery_info": {"exchange": "", "routing_key": queue}, "priority": 0,
                           "body_encoding": "base64", "delivery_tag": str(uuid.uuid4())})
        body = json.dumps([[row_id], {}, _EMBED]).encode()  # Celery's very bytes
        return queue, {"body": base64.b64encode(body).decode(), "content-encoding": "utf-8",
                       "content-type": "application/json", "headers": headers, "properties": properties}

    def written(self, task: Task, row_id: int, expires: float | None = None) -> tuple[str, bytes]:
        """The queue and the bytes pushed for :meth:`message`'s message: the
        document kombu's json writes, without its spaces (kombu reads either)."""
        return self._written(self._held_here(), task, row_id, expires)

    def _written(self, held: Any, task: Task, row_id: int, expires: float | None) -> tuple[str, bytes]:
        shape = None if expires is not None else self._shape_of(held, task)
        if shape is None:
            queue, message = self.message(task, row_id, expires)
            return queue, orjson.dumps(message)
        # The relay's message (no expiry) differs from one row to the next only
        # in its ids and its row: written once as orjson writes it, with marks
        # where those go, and filled in.  Building and writing the whole
        # document took a move 50-70 µs under load (issue 34).  Kept by thread
        # and process, as the message's reply-to names them; the task's limits
        # are read when the shape is made.
        queue, pieces = shape
        task_id, tag = str(uuid.uuid4()).encode(), str(uuid.uuid4()).encode()
        fills = {_ID: task_id, _TAG: tag, _ARGS: f"({row_id!r},)".encode(),
                 _BODY: base64.b64encode(b"[[%s], {}, %s]" % (json.dumps(row_id).encode(), _EMBED_JSON))}
        return queue, b"".join(fills[p] if isinstance(p, int) else p for p in pieces)

    def _shape_of(self, held: Any, task: Task) -> tuple[str, list[bytes | int]] | None:
        shapes: dict[str, tuple[str, list[bytes | int]] | None] = held.shapes
        if task.name not in shapes:
            shapes[task.name] = self._shape(task)
        return shapes[task.name]

    def _shape(self, task: Task) -> tuple[str, list[bytes | int]] | None:
        queue, message = self.message(task, 0)
        headers, properties = message["headers"], message["properties"]
        headers["id"] = headers["root_id"] = properties["correlation_id"] = _MARKS[_ID]
        properties["delivery_tag"] = _MARKS[_TAG]
        headers["argsrepr"] = _MARKS[_ARGS]
        message["body"] = _MARKS[_BODY]
        text = orjson.dumps(message)
        pieces: list[bytes | int] = []
        for mark in re.split(b"(%s)" % b"|".join(re.escape(m.encode()) for m in _MARKS.values()), text):
            pieces.append(_MARK_OF.get(mark, mark))
        # Each mark where it was put, and nowhere else: a task or host name
        # that held one would be filled in, so such a message is built whole.
        if sorted(p for p in pieces if isinstance(p, int)) != [_ID, _ID, _ID, _TAG, _ARGS, _BODY]:
            return None
        return queue, pieces

    def publish(self, task: Task, row_id: int, expires: float | None = None) -> None:
        held = self._held_here()
        queue, body = self._written(held, task, row_id, expires)
        pushed_before, held.pushed = held.pushed, False
        try:
            _push(held.connection, queue, body)
        except redis.ConnectionError:
            if not pushed_before:
                raise
            # Redis closed the connection since the last push (a restart, its
            # idle time-out): once more, on a new one.  (A time-out is not
            # retried: a Redis that hangs fails the push, and the relay leaves
            # the row to the sweep, as before.)
            _push(held.connection, queue, body)
        held.pushed = True

    def _held_here(self) -> Any:
        """This thread's connection to the broker, held from one push to the next.
        Through the client's pool each push cost 30 µs more (issue 34): taking a
        connection and polling its socket for anything left to read, then
        giving it back.  Not shared: a thread's commands and replies would
        interleave with another's; not inherited across a fork: parent and
        child would write to one socket."""
        held = self._held
        if getattr(held, "pid", None) != os.getpid():
            # Made as the pool makes its own, without counting against its limit
            # (a connection held here is never given back to it).
            pool = self.client.connection_pool
            held.connection = pool.connection_class(**pool.connection_kwargs)
            held.pid = os.getpid()
            held.pushed = False
            held.shapes = {}
        return held


def _push(connection: Any, queue: str, body: bytes) -> None:
    try:
        connection.send_command("LPUSH", queue, body)
        connection.read_response()  # raises Redis's refusal, if it refuses
    except BaseException:
        # In an unknown state (a reply may be on its way): the next push
        # connects anew rather than read this one's reply as its own.
        connection.disconnect()
        raise
