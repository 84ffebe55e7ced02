"""public game ids, sign-out, the suppression list

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 04:10:00
"""
import secrets

from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

# As pbem.tokens.PUBLIC_ID_ALPHABET (copied: a migration must not change when the code does).
_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


def upgrade() -> None:
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('public_id', sqlmodel.sql.sqltypes.AutoString(length=24), nullable=True))
    conn = op.get_bind()
    game = sa.table('game', sa.column('id', sa.Integer), sa.column('public_id', sa.String))
    for (game_id,) in conn.execute(sa.select(game.c.id)).all():
        conn.execute(game.update().where(game.c.id == game_id).values(
            public_id="".join(secrets.choice(_ALPHABET) for _ in range(14))))
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.alter_column('public_id', nullable=False)
        batch_op.create_index(batch_op.f('ix_game_public_id'), ['public_id'], unique=True)

    with op.batch_alter_table('login', schema=None) as batch_op:
        batch_op.add_column(sa.Column('ended_at', sa.DateTime(timezone=True), nullable=True))

    op.create_table('suppression',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('address_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('suppression', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_suppression_address_hash'), ['address_hash'], unique=True)


def downgrade() -> None:
    with op.batch_alter_table('suppression', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_suppression_address_hash'))
    op.drop_table('suppression')
    with op.batch_alter_table('login', schema=None) as batch_op:
        batch_op.drop_column('ended_at')
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_game_public_id'))
        batch_op.drop_column('public_id')
