"""practice games: a game started from another's position, never rated (issue 33)

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-04 16:50:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('practice_of', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('practice_ply', sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f('ix_game_practice_of'), ['practice_of'], unique=False)
        batch_op.create_foreign_key('fk_game_practice_of_game', 'game', ['practice_of'], ['id'])


def downgrade() -> None:
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_constraint('fk_game_practice_of_game', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_game_practice_of'))
        batch_op.drop_column('practice_ply')
        batch_op.drop_column('practice_of')
