"""strangers, safely: public profiles, blocks, reported table messages (issue 30)

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04 16:40:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'profile',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('email', sa.String(length=254), nullable=False),
        sa.Column('public_id', sa.String(length=24), nullable=False),
        sa.Column('hidden', sa.Boolean(), nullable=False),
        sa.Column('show_rating', sa.Boolean(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_profile_email', 'profile', ['email'], unique=True)
    op.create_index('ix_profile_public_id', 'profile', ['public_id'], unique=True)
    op.create_table(
        'block',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('blocker', sa.String(length=254), nullable=False),
        sa.Column('blocked', sa.String(length=254), nullable=False),
        sa.Column('name', sa.String(length=60), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('blocker', 'blocked', name='uq_block_pair'),
    )
    op.create_index('ix_block_blocked', 'block', ['blocked'], unique=False)
    op.create_table(
        'talk_report',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('message_id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('seat_id', sa.Integer(), nullable=False),
        sa.Column('reason', sa.Text(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id']),
        sa.ForeignKeyConstraint(['message_id'], ['table_message.id']),
        sa.ForeignKeyConstraint(['seat_id'], ['seat.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('message_id', 'seat_id', name='uq_talk_report'),
    )
    op.create_index('ix_talk_report_created_at', 'talk_report', ['created_at'], unique=False)
    op.create_index('ix_talk_report_game_id', 'talk_report', ['game_id'], unique=False)
    op.create_index('ix_talk_report_message_id', 'talk_report', ['message_id'], unique=False)


def downgrade() -> None:
    op.drop_table('talk_report')
    op.drop_table('block')
    op.drop_table('profile')
