"""a person's daily mail and private calendar feeds (issue 31)

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04 16:50:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'daily_mail',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('email', sa.String(length=254), nullable=False),
        sa.Column('on', sa.Boolean(), nullable=False),
        sa.Column('hour', sa.Integer(), nullable=False),
        sa.Column('time_zone', sa.String(length=64), nullable=True),
        sa.Column('last_day', sa.String(length=10), nullable=True),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('daily_mail', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_daily_mail_email'), ['email'], unique=True)
    op.create_table(
        'calendar_feed',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('email', sa.String(length=254), nullable=True),
        sa.Column('seat_id', sa.Integer(), nullable=True),
        sa.Column('token_salt', sa.String(length=64), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['seat_id'], ['seat.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('email'),
        sa.UniqueConstraint('seat_id'),
        sa.UniqueConstraint('token_hash'),
    )


def downgrade() -> None:
    op.drop_table('calendar_feed')
    with op.batch_alter_table('daily_mail', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_daily_mail_email'))
    op.drop_table('daily_mail')
