"""Rows of a Core query made into the ORM's objects, for the look-up every seat
request starts with.

Through the ORM that look-up (a game, its seats and what a move asks of them,
one row per seat) cost about 130 µs more than the same statement run by Core,
a twentieth of a move (issue 34): the ORM's per-query set-up, not the rows.
Here the statement runs as :mod:`pbem.core.prepared` runs it (on the driver, or
through Core), with SQLAlchemy's own conversion of each column,
and each entity's columns become an instance as the ORM's loading makes one:
a new instance of the mapped class, its attributes as loaded (nothing to
write), in the session's identity map.  An object the session holds already
is the one returned, its unchanged attributes as they were and its expired
ones from the row, as the ORM's loading does."""

from __future__ import annotations

from typing import Any, Sequence, TypeVar

from sqlalchemy import inspect
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.attributes import instance_state, set_committed_value
from sqlmodel import Session, SQLModel

from . import prepared

M = TypeVar("M", bound=SQLModel)


class Entity:
    """How one mapped class's columns sit in a row: ``width`` of them, in its
    table's order (as ``select(Model)`` lists them)."""

    def __init__(self, model: type[SQLModel]) -> None:
        mapper = inspect(model)
        self.model = model
        self.mapper = mapper
        self.keys = [mapper.get_property_by_column(c).key for c in mapper.local_table.columns]
        self.names = frozenset(self.keys)
        self.width = len(self.keys)
        self.primary = [self.keys.index(mapper.get_property_by_column(c).key) for c in mapper.primary_key]
        # Session.add walks each of the class's properties for the save-update
        # cascade: 10 µs for a seat's 26 columns, a third of making the object
        # (issue 34), to find nothing when the class has no relationship.  Such
        # an instance is attached as add attaches it, without the walk.
        self.attach_alone = not mapper.relationships and hasattr(Session, "_save_or_update_impl")

    def load(self, session: Session, values: Sequence[Any]) -> Any:
        key = self.mapper.identity_key_from_primary_key([values[i] for i in self.primary])
        held = session.identity_map.get(key)
        if held is not None:
            # Kept as it is, but what was expired (by a rollback, say) is filled
            # from the row, as the ORM's loading fills it, rather than read again.
            for name in inspect(held).expired_attributes & self.names:
                set_committed_value(held, name, values[self.keys.index(name)])
            return held
        instance = self.mapper.class_manager.new_instance()
        instance.__dict__.update(zip(self.keys, values))
        # As loaded: the attributes are the row's, with no change to write.
        make_transient_to_detached(instance)
        if self.attach_alone:
            session._save_or_update_impl(instance_state(instance))
        else:
            session.add(instance)
        return instance


def rows_as_objects(session: Session, statement: Any, params: dict[str, Any],
                    entities: Sequence[Entity]) -> list[tuple[Any, ...]]:
    """``session.exec(statement, params=params).all()`` for a ``select`` of
    ``entities`` (mapped classes, in order) followed by any other columns:
    the same rows, each entity an instance in ``session``."""
    if session.autoflush:
        session.flush()  # as the ORM's query would first (nothing, mostly: no statement)
    result = prepared.rows(session.connection(), statement, params)
    out = []
    for row in result:
        values: list[Any] = []
        at = 0
        for entity in entities:
            values.append(entity.load(session, row[at:at + entity.width]))
            at += entity.width
        values.extend(row[at:])
        out.append(tuple(values))
    return out
