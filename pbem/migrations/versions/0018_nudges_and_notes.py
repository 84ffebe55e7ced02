"""nudges (issue 32) and a seat's private notes (issue 33)

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-04 16:30:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'nudge',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('seat_id', sa.Integer(), nullable=False),
        sa.Column('mover_id', sa.Integer(), nullable=False),
        sa.Column('ply', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id']),
        sa.ForeignKeyConstraint(['seat_id'], ['seat.id']),
        sa.ForeignKeyConstraint(['mover_id'], ['seat.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_nudge_game_id', 'nudge', ['game_id'], unique=False)
    op.create_index('ix_nudge_seat_created', 'nudge', ['seat_id', 'created_at'], unique=False)
    op.create_table(
        'seat_note',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('seat_id', sa.Integer(), nullable=False),
        sa.Column('text', sa.Text(), nullable=False),
        sa.Column('in_turn_mail', sa.Boolean(), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['seat_id'], ['seat.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('seat_id'),
    )


def downgrade() -> None:
    op.drop_table('seat_note')
    op.drop_index('ix_nudge_seat_created', table_name='nudge')
    op.drop_index('ix_nudge_game_id', table_name='nudge')
    op.drop_table('nudge')
