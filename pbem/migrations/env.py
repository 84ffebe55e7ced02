"""Alembic's environment: runs migrations on the URL given by ``pbem.core.db``."""

from alembic import context
from sqlalchemy import create_engine, pool

import pbem.core.models
import pbem.core.premove_tables
import pbem.core.seat_extras_tables  # noqa: F401
import pbem.core.daily_tables
import pbem.core.lobby_tables
import pbem.core.match_tables  # noqa: F401 - quick match (issue 30)
import pbem.core.people_tables  # noqa: F401 - profiles, blocks, reports (issue 30)
import pbem.core.vacation_tables
import pbem.core.push_tables  # noqa: F401
from sqlmodel import SQLModel

config = context.config
target_metadata = SQLModel.metadata


def run_migrations_offline() -> None:
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata,
                      literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    url = config.get_main_option("sqlalchemy.url")
    assert url is not None  # pbem.core.db.alembic_config sets it
    engine = create_engine(url, poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
