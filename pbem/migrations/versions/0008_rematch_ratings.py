"""rematch and ratings (issue 15)

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 05:00:00
"""
import json

from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'rating',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('address_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('opted_in', sa.Boolean(), nullable=False),
        sa.Column('mu', sa.Float(), nullable=False),
        sa.Column('sigma', sa.Float(), nullable=False),
        sa.Column('games', sa.Integer(), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('rating', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rating_address_hash'), ['address_hash'], unique=True)
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('rematch_of', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('rated_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f('ix_game_rematch_of'), ['rematch_of'], unique=True)
        batch_op.create_foreign_key('fk_game_rematch_of_game', 'game', ['rematch_of'], ['id'])
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('final_score', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('won', sa.Boolean(), nullable=True))
    _results_of_finished_games()


def _results_of_finished_games() -> None:
    """The players' stats read each seat's result: write it for the games that
    finished before it was stored (read from their positions, as the pages do)."""
    from pbem.rules import Game

    conn = op.get_bind()
    games = conn.execute(sa.text("SELECT id, state FROM game WHERE status = 'finished' AND state IS NOT NULL"))
    for game_id, state in games.fetchall():
        outcome = Game.from_json(json.loads(state)).outcome()
        if outcome is None:
            continue
        best = max(outcome.final_scores)
        for position, score in enumerate(outcome.final_scores):
            conn.execute(sa.text("UPDATE seat SET final_score = :score, won = :won "
                                 "WHERE game_id = :game AND position = :position"),
                         {"score": score, "won": score == best, "game": game_id, "position": position})


def downgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('won')
        batch_op.drop_column('final_score')
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_constraint('fk_game_rematch_of_game', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_game_rematch_of'))
        batch_op.drop_column('rated_at')
        batch_op.drop_column('rematch_of')
    with op.batch_alter_table('rating', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rating_address_hash'))
    op.drop_table('rating')
