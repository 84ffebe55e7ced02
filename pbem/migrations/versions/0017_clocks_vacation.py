"""correspondence clocks, weekends off and the per-person vacation bank (issue 32)

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04 16:50:00

The pause's days were a seat's (``seat.vacation_days_left``, 7 per game); they
become a person's bank, which starts full (``PBEM_VACATION_DAYS``) for
everyone when it is first read: nobody's days are carried over from a game,
and nobody has fewer than before (the column stays, unused, for a release
still running during the upgrade).
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes


revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'vacation_bank',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('address_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('days', sa.Float(), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('vacation_bank', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_vacation_bank_address_hash'), ['address_hash'], unique=True)
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('clock_days', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('clock_increment_hours', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('clock_max_days', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('weekends_off', sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column('vacation_off', sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column('turn_started_at', sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('bank_seconds', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('bank_seconds')
    with op.batch_alter_table('game', schema=None) as batch_op:
        for name in ('turn_started_at', 'vacation_off', 'weekends_off', 'clock_max_days', 'clock_increment_hours',
                     'clock_days'):
            batch_op.drop_column(name)
    with op.batch_alter_table('vacation_bank', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_vacation_bank_address_hash'))
    op.drop_table('vacation_bank')
