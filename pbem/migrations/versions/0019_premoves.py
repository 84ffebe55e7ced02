"""a seat's pre-moves: the ranked moves it set for its next turn (issue 33)

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-04 16:45:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'premove_list',
        sa.Column('seat_id', sa.Integer(), sa.ForeignKey('seat.id', ondelete='CASCADE'), primary_key=True),
        sa.Column('moves', sa.Text(), nullable=True),
        sa.Column('fired', sa.Text(), nullable=True),
        sa.Column('missed', sa.Text(), nullable=True),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table('premove_list')
