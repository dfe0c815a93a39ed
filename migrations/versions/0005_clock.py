"""Clocks: games' time control, indexed deadline and players' clock facts, players' vacation
bank and reminder and time-zone preferences, vacations, the development clock.

Existing games keep no clock (they were created without one); existing players get the
defaults, their vacation bank counting from their registration.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('dev_clock',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('offset_seconds', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('vacations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=9), nullable=False),
    sa.Column('start', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('end', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('days', sa.Integer(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_vacations_player_end', 'vacations', ['player_id', 'end'], unique=False)
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('clock', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('turn_started_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('deadline', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('clock_serial', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('player_clocks', sa.JSON(), server_default='{}', nullable=False))
        batch_op.create_index(batch_op.f('ix_games_deadline'), ['deadline'], unique=False)
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reminders', sa.Boolean(), server_default=sa.true(), nullable=False))
        batch_op.add_column(sa.Column('timezone', sqlmodel.sql.sqltypes.AutoString(length=64), server_default='UTC', nullable=False))
        batch_op.add_column(sa.Column('vacation_hours', sa.Integer(), server_default='336', nullable=False))
        batch_op.add_column(sa.Column('vacation_as_of', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('vacation_carry', sa.Integer(), server_default='0', nullable=False))
    op.execute('UPDATE players SET vacation_as_of = created_at')
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.alter_column('vacation_as_of', existing_type=sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('vacation_carry')
        batch_op.drop_column('vacation_as_of')
        batch_op.drop_column('vacation_hours')
        batch_op.drop_column('timezone')
        batch_op.drop_column('reminders')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_games_deadline'))
        batch_op.drop_column('player_clocks')
        batch_op.drop_column('clock_serial')
        batch_op.drop_column('deadline')
        batch_op.drop_column('turn_started_at')
        batch_op.drop_column('clock')
    op.drop_index('ix_vacations_player_end', table_name='vacations')
    op.drop_table('vacations')
    op.drop_table('dev_clock')
