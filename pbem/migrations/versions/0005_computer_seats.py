"""seats the computer plays

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 12:00:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('bot', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True))
        batch_op.add_column(sa.Column('bot_from', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('bot_from')
        batch_op.drop_column('bot')
