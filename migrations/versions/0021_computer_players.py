"""Computer players (issue 27): practice games and computer seats.

- `players.computer`: the account is a computer player's (`computer-1`, …), whose turns
  the worker plays.
- `games.computers`, `games.computer_level`: a game's computer players and their strength.
- `games.computer_turn` (indexed): the player to move is a computer, for the worker.

Revision ID: 0021
Revises: 0020
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ADD COLUMNs, not batches: SQLite's batch copies a table, which would lose the
    # expression index on lower(name) and trip the foreign keys that point at games
    op.add_column(
        "players", sa.Column("computer", sa.Boolean(), server_default=sa.false(), nullable=False)
    )
    op.add_column("games", sa.Column("computers", sa.JSON(), server_default="[]", nullable=False))
    op.add_column("games", sa.Column("computer_level", sa.Integer(), nullable=True))
    op.add_column(
        "games",
        sa.Column("computer_turn", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.create_index("ix_games_computer_turn", "games", ["computer_turn"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_games_computer_turn", table_name="games")
    op.drop_column("games", "computer_turn")
    op.drop_column("games", "computer_level")
    op.drop_column("games", "computers")
    op.drop_column("players", "computer")
