"""A turn notice costs at most eight statements on PostgreSQL (issue 34's limit).

Counted from the worker's claim to the row marked sent, over the real SMTP
server: the claim; the reader in one statement (never-mail list and bounces,
and their own rows a game mail shows: daily-mail switch, vacation bank,
pre-moves, notes; pbem.mail.reader); the game with its seats; the view's
bounces; the reply token (one upsert); the table talk since the reader last had
it (one statement); and the mark with the mail's fingerprint.  Before issue 34
it was thirteen, before the features of issues 30-33 were in it."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from sqlalchemy import event
from sqlmodel import col, select

from pbem import games
from pbem.core.db import session_scope
from pbem.core.models import Outbox
from pbem.core.outbox import OutboxKind
from pbem.mail import delivery
from pbem.mail.transport import transport_for
from pbem.table import talk
from tests.support.games import new_game, to_move

NOTICE_MOST = 8


@pytest.fixture
def statements(sctx: Any) -> Iterator[list[str]]:
    seen: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if not statement.startswith("BEGIN"):  # SQLite's BEGIN IMMEDIATE (db.py)
            seen.append(statement)

    event.listen(sctx.engine, "before_cursor_execute", count)
    yield seen
    event.remove(sctx.engine, "before_cursor_execute", count)


def _turn_row(ctx: Any) -> int:
    with session_scope(ctx.engine) as session:
        row = session.exec(select(Outbox.id).where(Outbox.kind == OutboxKind.TURN, Outbox.status == "pending")
                           .order_by(col(Outbox.id).desc())).first()
        assert row is not None
        return row


@pytest.mark.parametrize("with_talk", [False, True], ids=["quiet table", "table talk"])
def test_a_turn_notice_costs_at_most_eight_statements(database_url: str, sctx: Any, smtp: Any,
                                                      statements: list[str], with_talk: bool) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("the count is PostgreSQL's (SQLite's transactions add their own BEGIN)")
    ctx = sctx
    ctx.relay = lambda ids: None  # the notice is delivered below, where it is counted
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    if with_talk:
        talk.talk(ctx, toks[(toks.index(mover) + 2) % len(toks)], "Good luck, all")
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    row = _turn_row(ctx)
    transport = transport_for(ctx.config, ctx.engine)
    statements.clear()
    assert delivery.deliver(ctx, row, transport) == "sent"
    assert len(statements) <= NOTICE_MOST, "\n".join(s.split("\n")[0] for s in statements)
    sent = smtp.collector.wait_for(1, kind="turn")[-1].message
    assert ("Good luck, all" in sent.get_body(preferencelist=("plain",)).get_content()) == with_talk
