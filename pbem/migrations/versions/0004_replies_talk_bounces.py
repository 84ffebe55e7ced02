"""replies by mail, table talk, bounces

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 07:10:00
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'bounce',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('address_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('soft', sa.Integer(), nullable=False),
        sa.Column('bouncing_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('last_status', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(op.f('ix_bounce_address_hash'), 'bounce', ['address_hash'], unique=True)
    op.create_table(
        'reply_token',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('seat_id', sa.Integer(), nullable=False),
        sa.Column('ply', sa.Integer(), nullable=False),
        sa.Column('token_salt', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('token_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('used_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['game.id']),
        sa.ForeignKeyConstraint(['seat_id'], ['seat.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('seat_id', 'ply'),
        sa.UniqueConstraint('token_hash'),
    )
    op.create_index(op.f('ix_reply_token_game_id'), 'reply_token', ['game_id'], unique=False)
    op.create_table(
        'inbound',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('message_key', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column('recipient', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column('sender', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column('raw', sa.LargeBinary(), nullable=False),
        sa.Column('received_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column('outcome', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('handled_at', sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('message_key'),
    )
    op.create_index(op.f('ix_inbound_status'), 'inbound', ['status'], unique=False)
    op.create_table(
        'table_message',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('seat_id', sa.Integer(), nullable=False),
        sa.Column('text', sa.Text(), nullable=False),
        sa.Column('source', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id']),
        sa.ForeignKeyConstraint(['seat_id'], ['seat.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(op.f('ix_table_message_game_id'), 'table_message', ['game_id'], unique=False)
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('talk_mail', sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('talk_mail')
    op.drop_index(op.f('ix_table_message_game_id'), table_name='table_message')
    op.drop_table('table_message')
    op.drop_index(op.f('ix_inbound_status'), table_name='inbound')
    op.drop_table('inbound')
    op.drop_index(op.f('ix_reply_token_game_id'), table_name='reply_token')
    op.drop_table('reply_token')
    op.drop_index(op.f('ix_bounce_address_hash'), table_name='bounce')
    op.drop_table('bounce')
