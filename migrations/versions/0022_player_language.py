"""Languages (issue 23): the language each player reads.

- `players.language`: one of `cafe.i18n.LANGUAGES` (`en`, `cs`, `de`, `ru`); the players
  who registered before it read English, as they did. Added and dropped in place, never
  by rebuilding the table, which SQLite's enforced foreign keys of every other table forbid.

Revision ID: 0022
Revises: 0021
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0022'
down_revision: str | None = '0021'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        'players',
        sa.Column(
            'language',
            sqlmodel.sql.sqltypes.AutoString(length=8),
            server_default='en',
            nullable=False,
        ),
    )


def downgrade() -> None:
    op.drop_column('players', 'language')
