"""PostgreSQL's server processes, for tests of connections that die."""

from __future__ import annotations

import psycopg

from .config import POSTGRES_ADMIN


def kill_backend(pid: int) -> None:
    """End one server process, from a connection outside every pool under test."""
    with psycopg.connect(POSTGRES_ADMIN.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        assert conn.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone() == (True,)
