"""a seat's board style: standard or high contrast (issue 15)

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 05:00:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('board_style', sqlmodel.sql.sqltypes.AutoString(length=16),
                                      nullable=False, server_default='standard'))


def downgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('board_style')
