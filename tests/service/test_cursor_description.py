"""PostgreSQL cursors describe a result's columns only when asked (pbem.core.db
``_Cursor``): what they describe is what psycopg's own cursors describe."""

from __future__ import annotations

from typing import Iterator

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from pbem.core import db

QUERY = "SELECT 1 AS one, 'x'::text AS letter, now() AS at, NULL::int[] AS nothing"


@pytest.fixture
def engine(postgresql_url: str) -> Iterator[Engine]:
    engine = db.make_engine(postgresql_url)
    yield engine
    engine.dispose()


def _described(description: object) -> list[tuple[object, ...]]:
    return [tuple(column) for column in description]  # type: ignore[attr-defined]


def test_a_description_read_is_psycopgs(engine: Engine) -> None:
    with engine.connect() as conn:
        driver = conn.connection.dbapi_connection
        assert driver is not None
        ours = driver.cursor()
        plain = psycopg.Cursor(driver)  # type: ignore[arg-type]
        for cursor in (ours, plain):
            cursor.execute(QUERY)
        assert type(ours).__name__ == "_Cursor"
        assert len(ours.description) == 4
        assert _described(ours.description) == _described(plain.description)
        assert [c.name for c in ours.description] == ["one", "letter", "at", "nothing"]
        ours.execute("SELECT 1 WHERE false")
        assert [c.name for c in ours.description] == ["?column?"]
        ours.execute("CREATE TEMPORARY TABLE t (n int)")
        assert ours.description is None


def test_sqlalchemy_reads_the_columns_the_first_time_and_after(engine: Engine) -> None:
    for _ in range(3):  # the first run describes, the later ones use what SQLAlchemy cached
        with engine.connect() as conn:
            row = conn.execute(text(QUERY)).one()
            assert (row.one, row.letter, row.nothing) == (1, "x", None)
            assert list(conn.execute(text(QUERY)).keys()) == ["one", "letter", "at", "nothing"]


def test_a_description_read_after_its_cursor_moved_on_is_refused(engine: Engine) -> None:
    with engine.connect() as conn:
        driver = conn.connection.dbapi_connection
        assert driver is not None
        cursor = driver.cursor()
        cursor.execute(QUERY)
        kept = cursor.description
        cursor.execute("SELECT 2 AS two")
        with pytest.raises(RuntimeError, match="another statement"):
            kept[0]
