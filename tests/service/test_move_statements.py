"""A common move costs at most four statements on PostgreSQL (issue 34); it
costs two, and this holds them.

The seat's game with its seats (and whether it has webhooks, pre-moves or push
subscriptions, which addresses bounce, the vacation banks), then the game
advanced with the move and its turn mail in one statement.  The relay after it
asks nothing either: the move tells it which new rows are webhook posts.
Before issue 34 it was seven, with the relay's look-up.

Neither statement is inside a transaction: the write is one statement, atomic
on its own, and the mover's view is made before it (so that nothing fails
after it), which saves the BEGIN and the COMMIT round trips.  A move that
writes more (a clock to charge, a pre-move that fires, the last move) is one
transaction from its first write."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from sqlalchemy import event
from sqlmodel import col, select

from pbem import games
from pbem.core.db import session_scope
from pbem.core.models import MoveRecord, Outbox
from pbem.core.outbox import OutboxKind, posts_among
from tests.support.games import db_id, new_game, seat_tokens, to_move

MOVE_MOST = 2


@pytest.fixture
def statements(ctx: Any) -> Iterator[list[str]]:
    seen: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    event.listen(ctx.engine, "before_cursor_execute", count)
    yield seen
    event.remove(ctx.engine, "before_cursor_execute", count)


@pytest.fixture
def autocommit(ctx: Any) -> Iterator[list[tuple[str, bool]]]:
    """Each statement's first line, and whether it ran outside a transaction."""
    seen: list[tuple[str, bool]] = []

    def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append((statement.strip().split("\n")[0][:60], bool(conn.connection.dbapi_connection.autocommit)))

    event.listen(ctx.engine, "before_cursor_execute", note)
    yield seen
    event.remove(ctx.engine, "before_cursor_execute", note)


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


def test_a_common_move_runs_outside_a_transaction(database_url: str, ctx: Any,
                                                   autocommit: list[tuple[str, bool]]) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("PostgreSQL's autocommit: SQLite's move is one transaction")
    ctx.relay = lambda *args: None  # the workers' part is not the move's
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    autocommit.clear()
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    assert len(autocommit) == 2 and all(outside for _, outside in autocommit), autocommit


def test_a_seat_without_an_address_costs_no_statement(database_url: str, ctx: Any, statements: list[str]) -> None:
    """A seat whose address was emptied (as an admin's removal does): the view's
    question about its bounces is answered by the look-up too."""
    if not database_url.startswith("postgresql"):
        pytest.skip("the count is PostgreSQL's")
    from pbem.core.models import Seat

    ctx.relay = lambda *args: None
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    with session_scope(ctx.engine) as session:
        other = session.exec(select(Seat).where(Seat.game_id == db_id(session, game_id),
                                                Seat.position != view["seat"])).first()
        assert other is not None
        other.email = ""
        session.add(other)
    statements.clear()
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    assert len(statements) <= MOVE_MOST, "\n".join(s.split("\n")[0] for s in statements)


def test_a_move_that_charges_a_clock_is_one_transaction(database_url: str, ctx: Any,
                                                       autocommit: list[tuple[str, bool]]) -> None:
    """The look-up reads statement by statement; every write after it is in one
    transaction (the game, the move, the mail and the mover's bank)."""
    if not database_url.startswith("postgresql"):
        pytest.skip("PostgreSQL's autocommit: SQLite's move is one transaction")
    ctx.relay = lambda *args: None
    options = games.parse_time_options({"days": 3, "increment_hours": 12, "max_days": 5}, False, None)
    game_id = games.start_game(ctx, games.parse_players([{"name": "Ann", "email": "ann@example.org"},
                                                         {"name": "Bob", "email": "bob@example.org"}]),
                               options=options)
    toks = seat_tokens(ctx, game_id)
    for t in toks:
        games.accept(ctx, t)
    mover, view = to_move(ctx, toks)
    autocommit.clear()
    after = games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    assert after["ply"] == view["ply"] + 1
    lookup, *writes = autocommit
    assert lookup[1] is True
    assert writes and not any(outside for _, outside in writes), autocommit
    assert any(statement.startswith("UPDATE seat") for statement, _ in writes), autocommit


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
                                                      "guard_ply": game.ply, "guard_state": game.state})
        outbox_before = len(session.exec(select(Outbox.id)).all())
        assert moves.store_move(ctx, session, game, seats, seat, position, move, None, ctx.now(),
                                autopilot=False) is None
        assert len(session.exec(select(Outbox.id)).all()) == outbox_before
        assert session.exec(select(MoveRecord.id).where(MoveRecord.game_id == game.id)).all() == []


def test_the_movers_view_from_the_write_is_the_view_read_afresh(database_url: str, ctx: Any) -> None:
    """The view that answers a move takes the bounces and the vacation bank from
    the seat's look-up: it says what a view read on its own says."""
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


def test_a_mailbox_the_look_up_cannot_name_is_read_on_its_own(database_url: str, ctx: Any,
                                                              statements: list[str]) -> None:
    """The look-up finds a bank kept under the address itself; one kept under a
    mailbox that differs from the address (a +tag) is read by the view."""
    from sqlmodel import Session

    from pbem.core.models import Seat
    from pbem.people import vacation

    ctx.config["VACATION_DAYS"] = 10
    ctx.relay = lambda *args: None
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    with session_scope(ctx.engine) as session:
        me = session.exec(select(Seat).where(Seat.game_id == db_id(session, game_id),
                                             Seat.position == view["seat"])).one()
        me.email = "ann.lee+games@example.org"
        session.add(me)
    with Session(ctx.engine) as session, session.begin():
        assert vacation.spend(session, "ann.lee@example.org", 4, ctx.now(), ctx.config)  # the same mailbox
    statements.clear()
    after = games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    assert after["vacation_days_left"] == view["vacation_days_left"] - 4
    if database_url.startswith("postgresql"):
        assert len(statements) == MOVE_MOST + 1, "the bank, read on its own"


@pytest.mark.parametrize("operator", ["cancel", "forget"])
def test_a_move_read_before_the_operator_changed_the_game_writes_nothing(database_url: str, ctx: Any,
                                                                         operator: str) -> None:
    """The operator cancels the game, or forgets a player (whose name leaves the
    stored position), between a move's look-up and its write: the ply is the
    same, so only the guard on the position and the status stops the move from
    writing the game it read back over theirs (a cancelled game running again, a
    forgotten name back in the record)."""
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite holds its write lock from the move's first statement: no one comes between")
    from pbem.core import errors
    from pbem.core.models import Game, Seat
    from pbem.ops import admin

    public_id, toks = new_game(ctx, 3)
    game_id = db_id(ctx, public_id)
    mover, view = to_move(ctx, toks)
    with session_scope(ctx.engine) as session:
        other = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.position != view["seat"])
                             .order_by(col(Seat.position))).first()
        assert other is not None
        name, address = other.name, other.email
    came_between: list[str] = []

    def operator_first(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if not came_between and statement.lstrip().startswith("WITH advanced"):
            came_between.append(statement)
            done = admin.cancel(ctx, public_id) if operator == "cancel" else admin.forget(ctx, address)
            assert done.changed

    event.listen(ctx.engine, "before_cursor_execute", operator_first)
    try:
        with pytest.raises(errors.Conflict) as refused:
            games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
        # A cancelled game is over; a forgotten player's game changed under the move.
        assert refused.value.code == ("game-over" if operator == "cancel" else "stale")
    finally:
        event.remove(ctx.engine, "before_cursor_execute", operator_first)
    assert came_between, "the move never reached its write"
    with session_scope(ctx.engine) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.ply == view["ply"]
        assert session.exec(select(MoveRecord.id).where(MoveRecord.game_id == game_id)).all() == []
        if operator == "cancel":
            assert game.status == "cancelled" and game.deadline is None
        else:
            assert game.status == "active" and name not in str(game.state)
