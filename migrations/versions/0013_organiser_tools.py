"""A league organiser's tools (issue 20 item 18): the season log of what they did, a season's
pause of every clock of its games (`seasons.paused_at`, each game's `clock_holds`), and a
member's removal by the organiser with its reason (`season_members.removed_reason`).

Existing games have no hold, no season is paused, no member was removed by an organiser.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0013'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('season_log',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('season_id', sa.Integer(), nullable=False),
    sa.Column('at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('by_id', sa.Integer(), nullable=False),
    sa.Column('action', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=True),
    sa.Column('game_id', sa.Integer(), nullable=True),
    sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.ForeignKeyConstraint(['by_id'], ['players.id'], ),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.ForeignKeyConstraint(['season_id'], ['seasons.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('season_log', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_season_log_season_id'), ['season_id'], unique=False)

    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('clock_holds', sa.JSON(), server_default='[]', nullable=False))

    with op.batch_alter_table('season_members', schema=None) as batch_op:
        batch_op.add_column(sa.Column('removed_reason', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=True))

    with op.batch_alter_table('seasons', schema=None) as batch_op:
        batch_op.add_column(sa.Column('paused_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('seasons', schema=None) as batch_op:
        batch_op.drop_column('paused_at')

    with op.batch_alter_table('season_members', schema=None) as batch_op:
        batch_op.drop_column('removed_reason')

    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_column('clock_holds')

    with op.batch_alter_table('season_log', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_season_log_season_id'))

    op.drop_table('season_log')
