"""A common move costs at most four statements on PostgreSQL (issue 34); it
costs two, and this holds them.

From the request's look-up to the commit: the seat's game with its seats (and
whether it has webhooks, pre-moves or push subscriptions), then the game
advanced with the move and its turn mail in one statement, which also answers
what the mover's view asks (which addresses bounce, the mover's vacation bank).
The relay after the commit asks nothing either: the move tells it which new
rows are webhook posts.  Before issue 34 it was seven, with the relay's look-up."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from sqlalchemy import event
from sqlmodel import col, select

from pbem import games
from pbem.core.db import session_scope
from pbem.core.models import MoveRecord, Outbox
from pbem.core.outbox import OutboxKind, posts_among
from tests.support.games import db_id, new_game, to_move

MOVE_MOST = 2


@pytest.fixture
def statements(ctx: Any) -> Iterator[list[str]]:
    seen: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    event.listen(ctx.engine, "before_cursor_execute", count)
    yield seen
    event.remove(ctx.engine, "before_cursor_execute", count)


def test_a_common_move_costs_two_statements(database_url: str, ctx: Any, statements: list[str]) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("the count is PostgreSQL's: SQLite writes the game, the move and the mail one by one")
    relayed: list[Any] = []
    ctx.relay = relayed.append
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    statements.clear()
    after = games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    assert len(statements) <= MOVE_MOST, "\n".join(s.split("\n")[0] for s in statements)
    assert after["ply"] == view["ply"] + 1
    # All three writes happened: the game, the move, and the next player's turn mail.
    with session_scope(ctx.engine) as session:
        gid = db_id(session, game_id)
        assert session.exec(select(MoveRecord.ply).where(MoveRecord.game_id == gid)).all() == [view["ply"]]
        turns = session.exec(select(Outbox.id).where(Outbox.game_id == gid, Outbox.kind == OutboxKind.TURN)
                             .order_by(col(Outbox.id))).all()
    assert relayed and list(relayed[-1]) == [turns[-1]]
    assert posts_among(relayed[-1]) == frozenset(), "the relay would look the rows up again"


def test_a_stale_move_in_one_statement_writes_nothing(database_url: str, ctx: Any) -> None:
    """The guard holds for all three writes: a move for a ply already played."""
    if not database_url.startswith("postgresql"):
        pytest.skip("the one-statement write is PostgreSQL's")
    from pbem.core.models import Game
    from pbem.games import moves
    from pbem.games.lookup import rules_game, seat_and_game

    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, mover)
        position = rules_game(game)
        assert position is not None
        move = next(iter(position.legal_moves()))
        position.push(move)
        # Someone else's move got there first: the row is at the next ply.
        session.connection().execute(moves._ADVANCE, {"ply": game.ply + 1, "guard_id": game.id,
                                                      "guard_ply": game.ply})
        outbox_before = len(session.exec(select(Outbox.id)).all())
        assert moves.store_move(ctx, session, game, seats, seat, position, move, None, ctx.now(),
                                autopilot=False) is None
        assert len(session.exec(select(Outbox.id)).all()) == outbox_before
        assert session.exec(select(MoveRecord.id).where(MoveRecord.game_id == game.id)).all() == []


def test_the_movers_view_from_the_write_is_the_view_read_afresh(database_url: str, ctx: Any) -> None:
    """The view that answers a move takes the bounces and the vacation bank from
    the move's one statement: it says what a view read on its own says."""
    from datetime import datetime, timezone

    from pbem.core.models import Bounce, Seat
    from pbem.people import vacation
    from pbem.people.players import address_hash

    ctx.config["VACATION_DAYS"] = 10  # the tests' default gives none
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    with session_scope(ctx.engine) as session:
        seats = session.exec(select(Seat).where(Seat.game_id == db_id(session, game_id))
                             .order_by(col(Seat.position))).all()
        other = next(s for s in seats if s.position != view["seat"])
        me = next(s for s in seats if s.position == view["seat"])
        session.add(Bounce(address_hash=address_hash(other.email), bouncing_at=datetime.now(timezone.utc)))
        assert vacation.spend(session, me.email, 3, ctx.now(), ctx.config)
    after = games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    assert [p["unreachable"] for p in after["players"]] == [p["seat"] == other.position for p in after["players"]]
    assert after["vacation_days_left"] == view["vacation_days_left"] - 3
    assert after == games.seat_view(ctx, mover)
