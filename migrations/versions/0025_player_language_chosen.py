"""Languages (issue 23): whether a player chose the language they read.

- `players.language_chosen`: set once the player gives a `language` (the API, the settings
  page, the switch); until then their language is the one that registered them, and `cafe`
  speaks the terminal's rather than keeping it. A player stored before reads a language
  other than English only by choice or by registering in it, as the profiles of `cafe`
  kept it: theirs counts as chosen; English does not. Added in place, never by
  rebuilding the table, which SQLite's enforced foreign keys of every other table forbid.

Revision ID: 0025
Revises: 0024
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "players",
        sa.Column("language_chosen", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    players = sa.table("players", sa.column("language", sa.String), sa.column("language_chosen"))
    op.execute(players.update().where(players.c.language != "en").values(language_chosen=True))


def downgrade() -> None:
    op.drop_column("players", "language_chosen")
