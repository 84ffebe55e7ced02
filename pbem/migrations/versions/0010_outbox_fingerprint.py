"""a fingerprint of what each mail with a reply address said (issue 27)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03 13:30:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('fingerprint', sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('fingerprint')
