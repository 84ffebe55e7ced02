"""quick match's pool and substitute offers: each waits as the seat of a one-seat holding game (issue 30)

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-04 17:50:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'match_request',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('game_id', sa.Integer(), sa.ForeignKey('game.id'), nullable=False, unique=True),
        sa.Column('seat_id', sa.Integer(), sa.ForeignKey('seat.id'), nullable=False, unique=True),
        sa.Column('mailbox', sa.String(length=254), nullable=False),
        sa.Column('players', sa.String(length=16), nullable=False),
        sa.Column('turn_hours', sa.Integer(), nullable=False),
        sa.Column('language', sa.String(length=8), nullable=False),
        sa.Column('rating', sa.Float(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('confirmed_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('seated_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('seated_game_id', sa.Integer(), sa.ForeignKey('game.id'), nullable=True),
    )
    with op.batch_alter_table('match_request') as batch:
        batch.create_index('ix_match_request_mailbox', ['mailbox'])
        batch.create_index('ix_match_request_turn_hours', ['turn_hours'])
        batch.create_index('ix_match_request_confirmed_at', ['confirmed_at'])
    op.create_table(
        'substitute_offer',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('seat_id', sa.Integer(), sa.ForeignKey('seat.id'), nullable=False),
        sa.Column('game_id', sa.Integer(), sa.ForeignKey('game.id'), nullable=False),
        sa.Column('holding_game_id', sa.Integer(), sa.ForeignKey('game.id'), nullable=False, unique=True),
        sa.Column('holding_seat_id', sa.Integer(), sa.ForeignKey('seat.id'), nullable=False, unique=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('taken_at', sa.DateTime(timezone=True), nullable=True),
    )
    with op.batch_alter_table('substitute_offer') as batch:
        batch.create_index('ix_substitute_offer_seat_id', ['seat_id'])


def downgrade() -> None:
    op.drop_table('substitute_offer')
    op.drop_table('match_request')
