"""the reminder scan's index (issue 16)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02 14:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None

# As pbem.models.UNREMINDED_DEADLINE (a migration keeps its own copy: the model may change later).
UNREMINDED_DEADLINE = "nullif(deadline, reminded_for)"


def upgrade() -> None:
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.create_index('ix_game_unreminded_deadline', [sa.text(f"({UNREMINDED_DEADLINE})")], unique=False,
                              postgresql_where=sa.text("status = 'active'"),
                              sqlite_where=sa.text("status = 'active'"))


def downgrade() -> None:
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_index('ix_game_unreminded_deadline')
