"""Web Push: a seat's subscription, and how its turn is announced (issue 31)

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04 16:40:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'push_subscription',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('seat_id', sa.Integer(), nullable=False),
        sa.Column('endpoint', sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
        sa.Column('p256dh', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column('auth', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['seat_id'], ['seat.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('seat_id'),
    )
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('push_mode', sa.String(length=12), nullable=False, server_default='mail'))
        batch_op.add_column(sa.Column('push_minutes', sa.Integer(), nullable=False, server_default='30'))


def downgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('push_minutes')
        batch_op.drop_column('push_mode')
    op.drop_table('push_subscription')
