"""A seat's look-up makes its rows into objects without the ORM's query
(pbem/core/loading.py): the same objects, in the session, as if loaded."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import event, inspect
from sqlmodel import select

from pbem.core.db import session_scope
from pbem.core.loading import Entity, rows_as_objects
from pbem.core.models import Game, MailChoice, Seat
from pbem.games import lookup
from tests.support.games import db_id, new_game, seat_tokens


def _columns(obj: Any) -> dict[str, Any]:
    return {c.key: getattr(obj, c.key) for c in inspect(type(obj)).columns}


def _varied(ctx: Any, game_id: int) -> None:
    """Values of every kind in the rows: enums, dates, text, null."""
    with session_scope(ctx.engine) as session:
        seats = session.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.position)).all()
        seats[1].mail = MailChoice.DIGEST
        seats[1].paused_until = datetime(2026, 12, 24, 9, 30, tzinfo=timezone.utc)
        seats[0].language = "cs"


def test_the_look_up_gives_what_the_orm_loads(ctx: Any) -> None:
    public_id, _ = new_game(ctx, 3)
    game_id = db_id(ctx, public_id)
    _varied(ctx, game_id)
    token = seat_tokens(ctx, public_id)[1]
    with session_scope(ctx.engine) as session:
        seat, game, seats = lookup.seat_and_game(session, token)
        ours = [_columns(s) for s in seats] + [_columns(game)]
        assert seat is seats[1] and seat.mail is MailChoice.DIGEST and game.status.value == "active"
        for obj in [*seats, game]:
            state = inspect(obj)
            assert state.persistent and not state.modified and obj in session and not state.expired_attributes
        assert not session.dirty and not session.new
    with session_scope(ctx.engine) as session:
        orm = [_columns(s) for s in session.exec(select(Seat).where(Seat.game_id == game_id)
                                                 .order_by(Seat.position)).all()]
        orm.append(_columns(session.get(Game, game_id)))
    assert ours == orm
    assert {type(v) for row in ours for v in row.values()} >= {int, str, datetime, MailChoice, type(None)}


def test_loaded_objects_write_only_what_changes(ctx: Any) -> None:
    public_id, _ = new_game(ctx, 2)
    token = seat_tokens(ctx, public_id)[0]
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    event.listen(ctx.engine, "before_cursor_execute", seen)
    try:
        with session_scope(ctx.engine) as session:
            seat, game, _seats = lookup.seat_and_game(session, token)
            session.flush()
            looked_up = len(statements)
            seat.language = "hu"
            game.turn_hours = 96
    finally:
        event.remove(ctx.engine, "before_cursor_execute", seen)
    # The look-up (and SQLite's BEGIN); the flush of nothing wrote nothing.
    assert [s.split()[0].upper() for s in statements[:looked_up]] in (["SELECT"], ["BEGIN", "SELECT"])
    writes = [s for s in statements[looked_up:] if s.lstrip().upper().startswith("UPDATE")]
    assert len(writes) == 2 and any("language" in s for s in writes) and any("turn_hours" in s for s in writes)
    assert not any("name" in s.split("WHERE")[0] for s in writes)  # only the changed columns
    with session_scope(ctx.engine) as session:
        again, game, _ = lookup.seat_and_game(session, token)
        assert again.language == "hu" and game.turn_hours == 96


def test_an_object_the_session_holds_is_the_one_returned(ctx: Any) -> None:
    public_id, _ = new_game(ctx, 2)
    game_id = db_id(ctx, public_id)
    with session_scope(ctx.engine) as session:
        held = session.get(Game, game_id)
        assert held is not None
        held.turn_hours = 7  # not yet written: the look-up's flush writes it, and keeps the object
        rows = rows_as_objects(session, lookup._SEATS_OF_GAME, {"game_id": game_id}, (Entity(Seat), Entity(Game)))
        assert all(row[1] is held for row in rows) and held.turn_hours == 7
    with session_scope(ctx.engine) as session:
        assert session.get(Game, game_id).turn_hours == 7  # type: ignore[union-attr]


def test_a_seat_added_before_the_look_up_is_found(ctx: Any) -> None:
    public_id, _ = new_game(ctx, 2)
    game_id = db_id(ctx, public_id)
    with session_scope(ctx.engine) as session:
        session.add(Seat(game_id=game_id, position=2, name="Cid", email="cid@example.org", token_salt="s",
                         token_hash="h" * 64, accepted_at=datetime.now(timezone.utc) - timedelta(hours=1)))
        _game, seats = lookup.game_and_seats(session, game_id)
        assert [s.name for s in seats][-1] == "Cid" and inspect(seats[-1]).persistent


def test_a_held_object_s_expired_attributes_come_from_the_row(ctx: Any) -> None:
    public_id, _ = new_game(ctx, 2)
    game_id = db_id(ctx, public_id)
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    with session_scope(ctx.engine) as session:
        held = session.get(Game, game_id)
        assert held is not None
        expected = _columns(held)
        session.expire(held)
        event.listen(ctx.engine, "before_cursor_execute", seen)
        try:
            rows = rows_as_objects(session, lookup._SEATS_OF_GAME, {"game_id": game_id},
                                   (Entity(Seat), Entity(Game)))
            assert rows[0][1] is held and not inspect(held).expired_attributes
            assert _columns(held) == expected
        finally:
            event.remove(ctx.engine, "before_cursor_execute", seen)
    assert [s.split()[0].upper() for s in statements] == ["SELECT"]  # nothing read again


def test_attached_without_the_cascade_walk_as_add_would_attach(ctx: Any) -> None:
    """Seats and games have no relationship, so their objects are attached
    without Session.add's walk of every property: in the same state as add
    leaves them (persistent, in the identity map, nothing to write), and a
    change to one is written as add's would be."""
    public_id, _ = new_game(ctx, 2)
    game_id = db_id(ctx, public_id)
    assert Entity(Seat).attach_alone and Entity(Game).attach_alone

    def loaded(entity: Entity, session: Any) -> Any:
        row = session.connection().execute(select(Seat).where(Seat.game_id == game_id)
                                           .order_by(Seat.position)).first()
        return entity.load(session, list(row))

    by_add = Entity(Seat)
    by_add.attach_alone = False  # what a class with a relationship gets: Session.add
    outcomes = []
    for entity in (Entity(Seat), by_add):
        with session_scope(ctx.engine) as session:
            seat = loaded(entity, session)
            state = inspect(seat)
            key = inspect(Seat).identity_key_from_primary_key([seat.id])
            outcomes.append((state.persistent, state.session_id == session.hash_key, session.identity_map.get(key)
                             is seat, state.modified, bool(session.dirty), bool(session.new)))
            seat.name = f"Renamed {len(outcomes)}"
            assert list(session.dirty) == [seat]
        with session_scope(ctx.engine) as session:
            assert session.get(Seat, seat.id).name == f"Renamed {len(outcomes)}"
    assert outcomes[0] == outcomes[1] == (True, True, True, False, False, False)
