"""The Redis databases that tests running a real broker empty: their own only."""

from __future__ import annotations

import pytest
import redis

#: Set in the broker databases these tests empty: a database holding keys but not
#: this one is someone else's, and is left alone.
MARK = "pbem-tests:broker"


def broker_db(url: str) -> str:
    """A Redis database of its own for these tests, emptied first: only if it is
    empty or these tests' (never someone else's data)."""
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    if client.dbsize() and not client.exists(MARK):
        pytest.fail(f"Redis database {url} holds keys that are not these tests'; point "
                    "PBEM_TEST_REDIS at a Redis whose databases below its own are free")
    empty(url)
    return url


def empty(url: str) -> None:
    """Empty a broker database of these tests' and mark it theirs (a worker's late
    write after this must not make the next run take it for someone else's)."""
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    client.flushdb()
    client.set(MARK, "1")
