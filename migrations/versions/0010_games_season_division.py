"""A season's games by division: one index on (season_id, division) in place of the index
on season_id, so that a division's page finds its games without reading the games' rows.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = '0010'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.create_index('ix_games_season_division', ['season_id', 'division'], unique=False)
        batch_op.drop_index(batch_op.f('ix_games_season_id'))


def downgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_games_season_id'), ['season_id'], unique=False)
        batch_op.drop_index('ix_games_season_division')
