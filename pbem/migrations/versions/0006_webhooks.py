"""webhooks per game (issue 15)

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02 05:00:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'webhook',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('seat_id', sa.Integer(), nullable=False),
        sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column('url', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column('secret_salt', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('first_failure_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('last_error', sqlmodel.sql.sqltypes.AutoString(length=300), nullable=True),
        sa.Column('disabled_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['game.id']),
        sa.ForeignKeyConstraint(['seat_id'], ['seat.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(op.f('ix_webhook_game_id'), 'webhook', ['game_id'], unique=False)
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('discord_id', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('discord_id')
    op.drop_index(op.f('ix_webhook_game_id'), table_name='webhook')
    op.drop_table('webhook')
