"""Restore the unique index on lower(players.name) where 0005 lost it: SQLite alters a table
by copying it, the copy is built from reflection, and reflection does not see an index on an
expression — so on SQLite, from 0005 on, "Ann" and "ann" could both register when they
raced. PostgreSQL altered the table in place and kept the index (IF NOT EXISTS: nothing to
do there).

Names that already differ only in case stop the upgrade, naming them, before anything
changes: an operator renames all but one of each and upgrades again.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from server.migrate import MigrationRefused

revision: str = '0011'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    clashes = op.get_bind().execute(
        sa.text(
            "SELECT name FROM players WHERE lower(name) IN "
            "(SELECT lower(name) FROM players GROUP BY lower(name) HAVING count(*) > 1) "
            "ORDER BY lower(name), name"
        )
    ).scalars().all()
    if clashes:
        raise MigrationRefused(
            "these players' names differ only in case: "
            f"{', '.join(clashes)}; rename all but one of each "
            "(UPDATE players SET name = '…' WHERE name = '…') and run the upgrade again"
        )
    op.execute("CREATE UNIQUE INDEX IF NOT EXISTS ix_players_name_lower ON players (lower(name))")


def downgrade() -> None:
    """Nothing: the index belongs to 0003, whose downgrade drops it."""
