"""the reminder scan's index also holds each game's half-turn mark (issue 32)

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-04 21:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0022'
down_revision = '0021'
branch_labels = None
depends_on = None

# As pbem.core.models.UNREMINDED_DEADLINE and HalfTurnMark (a migration keeps its own copy).
UNREMINDED_DEADLINE = "nullif(deadline, reminded_for)"
HALF_TURN_MARK = {
    "postgresql": ("(timezone('UTC'::text, nullif(deadline, reminded_for))"
                   " - turn_hours::double precision * '00:30:00'::interval)"),
    "sqlite": "(datetime(nullif(deadline, reminded_for), '-' || (turn_hours * 30) || ' minutes'))",
}


def upgrade() -> None:
    mark = HALF_TURN_MARK[op.get_bind().dialect.name]
    op.create_index('ix_game_reminder_due', 'game', [sa.text(f"({UNREMINDED_DEADLINE})"), sa.text(mark)],
                    unique=False, postgresql_where=sa.text("status = 'active'"),
                    sqlite_where=sa.text("status = 'active'"))
    # Its first column is the old index's whole: every scan the old one served, the
    # new one does.  SQLite lost the old one already, when a later migration rebuilt
    # the table (batch mode does not carry an expression index over).
    op.execute("DROP INDEX IF EXISTS ix_game_unreminded_deadline")


def downgrade() -> None:
    op.create_index('ix_game_unreminded_deadline', 'game', [sa.text(f"({UNREMINDED_DEADLINE})")], unique=False,
                    postgresql_where=sa.text("status = 'active'"), sqlite_where=sa.text("status = 'active'"))
    op.drop_index('ix_game_reminder_due', table_name='game')
