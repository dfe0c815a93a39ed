"""One player name ignoring case: a unique index on lower(name), so that two registrations
racing for "Ann" and "ann" cannot both succeed.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        'ix_players_name_lower', 'players', [sa.text('lower(name)')], unique=True
    )


def downgrade() -> None:
    op.drop_index('ix_players_name_lower', table_name='players')
