"""each seat's language and time zone; the language of a seatless message

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 07:00:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('language', sqlmodel.sql.sqltypes.AutoString(length=8),
                                      nullable=False, server_default='en'))
        batch_op.add_column(sa.Column('time_zone', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('language', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('language')
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('time_zone')
        batch_op.drop_column('language')
