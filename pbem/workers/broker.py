"""The Redis broker as kombu's, with one Redis client held per channel.

kombu's Redis transport wraps its pool of connections in a new ``redis.Redis``
for every message it publishes: the connections are kept, but each client is
built anew, with its table of some 170 reply callbacks (issue 34 measured that
at about 0.15 ms of each move's hand-off).  Here each channel keeps the one
client it made, over the same pool: a client is safe to share between threads,
since each command borrows a connection from the pool as a new client's would.

Nothing else changes: the same pool, connections and time-outs, the same
messages, queues and task names, and a publish to a Redis that is down fails
as before (the relay leaves the rows to the outbox sweep).  Only ``redis://``
brokers use it (:data:`TRANSPORT`); any other keeps kombu's own transport."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from kombu.transport import redis as kombu_redis


class Channel(kombu_redis.Channel):
    #: The client held, with the pool it was made over.
    _held: tuple[Any, Any] | None = None

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        if client:
            yield client
            return
        # kombu drops the channel's pool after a fork (and makes a new one on the
        # next use): a client held over the old pool is then made again.
        pool = self.pool
        held = self._held
        if held is None or held[0] is not pool:
            held = self._held = (pool, self._create_client())  # type: ignore[no-untyped-call]
        yield held[1]


class Transport(kombu_redis.Transport):
    Channel = Channel


#: Celery's ``broker_transport`` for a ``redis://`` broker.
TRANSPORT = f"{__name__}:Transport"
