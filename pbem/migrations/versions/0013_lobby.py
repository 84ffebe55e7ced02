"""the lobby: tables with open seats for strangers, and who holds each open seat (issue 30)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04 16:40:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'lobby_table',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('seats', sa.Integer(), nullable=False),
        sa.Column('turn_hours', sa.Integer(), nullable=False),
        sa.Column('language', sa.String(length=8), nullable=False),
        sa.Column('min_in_time', sa.Float(), nullable=True),
        sa.Column('min_rating', sa.Float(), nullable=True),
        sa.Column('max_rating', sa.Float(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('game_id'),
    )
    with op.batch_alter_table('lobby_table', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_lobby_table_created_at'), ['created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_lobby_table_language'), ['language'], unique=False)
    op.create_table(
        'lobby_seat',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('seat_id', sa.Integer(), nullable=False),
        sa.Column('mailbox', sa.String(length=254), nullable=True),
        sa.Column('held_until', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['game.id']),
        sa.ForeignKeyConstraint(['seat_id'], ['seat.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('seat_id'),
    )
    with op.batch_alter_table('lobby_seat', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_lobby_seat_game_id'), ['game_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_lobby_seat_mailbox'), ['mailbox'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('lobby_seat', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_lobby_seat_mailbox'))
        batch_op.drop_index(batch_op.f('ix_lobby_seat_game_id'))
    op.drop_table('lobby_seat')
    with op.batch_alter_table('lobby_table', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_lobby_table_language'))
        batch_op.drop_index(batch_op.f('ix_lobby_table_created_at'))
    op.drop_table('lobby_table')
