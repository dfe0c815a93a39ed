"""Table talk (issue 24): the players of a game write to each other.

- `table_talk`: the messages, by game (indexed with the id, for a game's talk in order and
  `?after=`) and by writer (indexed with the time, for the limits per hour and day).
- `mutes`: who muted whom; the muted player's messages are hidden from the muter.
- `game_seats.talk_mailed`: the newest message an email to the seat's player quoted (0:
  none); `game_seats.talk_due` (indexed, for the worker): when a message not emailed by
  then is sent alone.
- `players.talk_emails`: `each`, `with_turns` (everyone's, as before they could choose) or
  `off`.

Columns are added and dropped in place, never by rebuilding a table, which SQLite's
enforced foreign keys of every other table forbid.

Revision ID: 0023
Revises: 0022
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "table_talk",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("text", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_table_talk_game", "table_talk", ["game_id", "id"], unique=False)
    op.create_index(
        "ix_table_talk_player", "table_talk", ["player_id", "created_at"], unique=False
    )
    op.create_table(
        "mutes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("muted_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["muted_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("player_id", "muted_id"),
    )
    op.add_column(
        "game_seats",
        sa.Column("talk_mailed", sa.Integer(), server_default="0", nullable=False),
    )
    op.add_column(
        "game_seats",
        sa.Column("talk_due", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    )
    op.create_index("ix_game_seats_talk_due", "game_seats", ["talk_due"], unique=False)
    op.add_column(
        "players",
        sa.Column(
            "talk_emails",
            sqlmodel.sql.sqltypes.AutoString(length=10),
            server_default="with_turns",
            nullable=False,
        ),
    )


def downgrade() -> None:
    op.drop_column("players", "talk_emails")
    op.drop_index("ix_game_seats_talk_due", table_name="game_seats")
    op.drop_column("game_seats", "talk_due")
    op.drop_column("game_seats", "talk_mailed")
    op.drop_table("mutes")
    op.drop_index("ix_table_talk_player", table_name="table_talk")
    op.drop_index("ix_table_talk_game", table_name="table_talk")
    op.drop_table("table_talk")
