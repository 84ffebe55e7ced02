"""Fixtures of the page and API tests."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from sqlalchemy import event


@pytest.fixture
def statements(ctx: Any) -> Iterator[list[str]]:
    """The SQL statements (queries) the app's engine runs while the test watches."""
    seen: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        # Not SQLite's BEGIN IMMEDIATE (db.py), which every transaction starts with.
        if not statement.startswith("BEGIN"):
            seen.append(statement)

    event.listen(ctx.engine, "before_cursor_execute", count)
    yield seen
    event.remove(ctx.engine, "before_cursor_execute", count)
