"""Leagues: leagues, their seasons and members' standings, ratings and their history; games
that are private, start when full, are rated, or belong to a league season.

Existing games are public, start by hand, and are unrated.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('leagues',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('slug', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('organiser_id', sa.Integer(), nullable=False),
    sa.Column('open', sa.Boolean(), nullable=False),
    sa.Column('game_size', sa.Integer(), nullable=False),
    sa.Column('clock', sa.JSON(), nullable=True),
    sa.Column('options', sa.JSON(), nullable=False),
    sa.Column('division_size', sa.Integer(), nullable=False),
    sa.Column('promote', sa.Integer(), nullable=False),
    sa.Column('relegate', sa.Integer(), nullable=False),
    sa.Column('invited', sa.JSON(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['organiser_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('slug')
    )
    with op.batch_alter_table('leagues', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_leagues_organiser_id'), ['organiser_id'], unique=False)

    op.create_table('ratings',
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('mu', sa.Float(), nullable=False),
    sa.Column('sigma', sa.Float(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('player_id')
    )
    op.create_table('seasons',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('league_id', sa.Integer(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('seed_hex', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=True),
    sa.Column('commitment', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
    sa.Column('games_left', sa.Integer(), nullable=False),
    sa.Column('moves', sa.JSON(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('started_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('finished_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('digest_due', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['league_id'], ['leagues.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('league_id', 'number')
    )
    with op.batch_alter_table('seasons', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_seasons_digest_due'), ['digest_due'], unique=False)
        batch_op.create_index(batch_op.f('ix_seasons_league_id'), ['league_id'], unique=False)

    op.create_table('season_members',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('season_id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('division', sa.Integer(), nullable=True),
    sa.Column('registered_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('withdrawn_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('points_units', sa.Integer(), nullable=False),
    sa.Column('score_sum', sa.Integer(), nullable=False),
    sa.Column('wins', sa.Integer(), nullable=False),
    sa.Column('played', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.ForeignKeyConstraint(['season_id'], ['seasons.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('season_id', 'player_id')
    )
    with op.batch_alter_table('season_members', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_season_members_player_id'), ['player_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_season_members_season_id'), ['season_id'], unique=False)

    op.create_table('rating_history',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('finished_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('mu', sa.Float(), nullable=False),
    sa.Column('sigma', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('player_id', 'game_id')
    )
    with op.batch_alter_table('rating_history', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rating_history_game_id'), ['game_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_rating_history_player_id'), ['player_id'], unique=False)

    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('private', sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column('auto_start', sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column('rated', sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column('season_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('division', sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f('ix_games_season_id'), ['season_id'], unique=False)
        batch_op.create_foreign_key('fk_games_season_id', 'seasons', ['season_id'], ['id'])



def downgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_constraint('fk_games_season_id', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_games_season_id'))
        batch_op.drop_column('division')
        batch_op.drop_column('season_id')
        batch_op.drop_column('rated')
        batch_op.drop_column('auto_start')
        batch_op.drop_column('private')

    with op.batch_alter_table('rating_history', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rating_history_player_id'))
        batch_op.drop_index(batch_op.f('ix_rating_history_game_id'))

    op.drop_table('rating_history')
    with op.batch_alter_table('season_members', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_season_members_season_id'))
        batch_op.drop_index(batch_op.f('ix_season_members_player_id'))

    op.drop_table('season_members')
    with op.batch_alter_table('seasons', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_seasons_league_id'))
        batch_op.drop_index(batch_op.f('ix_seasons_digest_due'))

    op.drop_table('seasons')
    op.drop_table('ratings')
    with op.batch_alter_table('leagues', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_leagues_organiser_id'))

    op.drop_table('leagues')
