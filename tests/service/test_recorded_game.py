"""One whole game, played the same way, stores, answers and mails exactly what the
recorded run did (``tests/support/recorded.py``), on both databases.

The record was written by the tree before issue 34 (a6e54e9); the moves written
in one statement, the notices in seven, the relay's hand-off and the search's
playouts must change none of it: not a row, not an answer, not a byte of mail."""

from __future__ import annotations

import email
import email.policy
import itertools
import os
from typing import Any

import pytest

from tests.support import recorded


def test_a_recorded_game_is_stored_answered_and_mailed_as_before(
        database_url: str, smtp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.web import create_app

    app = create_app(smtp.config(database_url))
    ctx = app.extensions["pbem"]
    try:
        clock = recorded.determined(monkeypatch, ctx)
        run = recorded.play(app.test_client(), ctx, clock, smtp)
    finally:
        ctx.engine.dispose()
    if os.environ.get("PBEM_RECORD") == "write":
        recorded.write(database_url, run)
        pytest.skip(f"wrote {recorded.recorded_path(database_url)}")
    before = recorded.load(database_url)
    full = run["_full"]
    assert len(run["answers"]) == len(before["answers"]) > 40
    for k, (old, new) in enumerate(zip(before["answers"], run["answers"])):
        assert new == old, f"answer {k} ({new[0]} {new[1]}) differs; it is now:\n{full['answers'][k]}"
    for table in recorded.TABLES:
        for k, (old, new) in enumerate(itertools.zip_longest(before["rows"][table], run["rows"][table])):
            assert new == old, f"row {k} of {table} differs; it is now:\n{full['rows'][table][k:k + 1]}"
    assert len(run["mails"]) == len(before["mails"]) > 40
    for old, new in zip(before["mails"], run["mails"]):
        if new != old:
            message = email.message_from_bytes(full["mails"][new[3]], policy=email.policy.default)
            raise AssertionError(f"mail to {new[0]} ({new[1]}, {new[2]!r}) differs; it is now:\n"
                                 + message.as_string()[:3000])
