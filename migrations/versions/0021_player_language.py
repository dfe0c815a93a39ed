"""Languages (issue 23): the language each player reads.

- `players.language`: one of `cafe.i18n.LANGUAGES` (`en`, `cs`, `de`, `ru`); the players
  who registered before it read English, as they did.

Revision ID: 0021
Revises: 0020
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0021'
down_revision: str | None = '0020'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                'language',
                sqlmodel.sql.sqltypes.AutoString(length=8),
                server_default='en',
                nullable=False,
            )
        )


def downgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('language')
