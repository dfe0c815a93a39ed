"""League channels (issue 26): a channel belongs to a player or to a league.

- `channels.league_id` (indexed, a foreign key to `leagues`): a league's shared channel,
  which its organiser manages; it hears every game event of the league's seasons once.
- `channels.player_id` may be empty: a league's channel has no player.

Existing channels are players' and stay so. On PostgreSQL both are ALTERs in place. On
SQLite a column's NOT NULL goes only by copying the table, and dropping the old copy with
foreign keys on (as our connections have them) is refused while deliveries point at it: the
deliveries are set aside in a plain table, `channel_deliveries` is dropped, `channels` copied
by Alembic's batch, then `channel_deliveries` made again as 0024 made it and refilled.

Revision ID: 0026
Revises: 0025
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op
from alembic.operations import BatchOperations

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_Text = sqlmodel.sql.sqltypes.AutoString
_Time = sqlmodel.sql.sqltypes.UTCDateTime

_FOREIGN_KEY = "fk_channels_league_id"
_INDEX = "ix_channels_league_id"
#: The columns of `channel_deliveries`, in 0024's order.
_DELIVERY_COLUMNS = (
    "id, channel_id, delivery_id, event, game_id, version, payload, status, attempts,"
    " available_at, claimed_by, claimed_until, last_error, created_at, sent_at"
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _rebuild_on_sqlite(_add_league)
        return
    op.alter_column("channels", "player_id", existing_type=sa.Integer(), nullable=True)
    op.add_column("channels", sa.Column("league_id", sa.Integer(), nullable=True))
    op.create_foreign_key(_FOREIGN_KEY, "channels", "leagues", ["league_id"], ["id"])
    op.create_index(_INDEX, "channels", ["league_id"], unique=False)


def downgrade() -> None:
    """Back to players' channels only: the leagues' channels and their deliveries go."""
    league_channels = "SELECT id FROM channels WHERE league_id IS NOT NULL"
    op.execute(f"DELETE FROM channel_deliveries WHERE channel_id IN ({league_channels})")
    op.execute("DELETE FROM channels WHERE league_id IS NOT NULL")
    if op.get_bind().dialect.name == "sqlite":
        _rebuild_on_sqlite(_drop_league)
        return
    op.drop_index(_INDEX, table_name="channels")
    op.drop_constraint(_FOREIGN_KEY, "channels", type_="foreignkey")
    op.drop_column("channels", "league_id")
    op.alter_column("channels", "player_id", existing_type=sa.Integer(), nullable=False)


def _add_league(batch: BatchOperations) -> None:
    batch.alter_column("player_id", existing_type=sa.Integer(), nullable=True)
    batch.add_column(sa.Column("league_id", sa.Integer(), nullable=True))
    batch.create_foreign_key(_FOREIGN_KEY, "leagues", ["league_id"], ["id"])
    batch.create_index(_INDEX, ["league_id"], unique=False)


def _drop_league(batch: BatchOperations) -> None:
    batch.drop_index(_INDEX)
    batch.drop_constraint(_FOREIGN_KEY, type_="foreignkey")
    batch.drop_column("league_id")
    batch.alter_column("player_id", existing_type=sa.Integer(), nullable=False)


def _rebuild_on_sqlite(change: Callable[[BatchOperations], None]) -> None:
    """Copy `channels` with `change` made (Alembic's batch), its deliveries set aside in a
    plain table meanwhile and put back into a `channel_deliveries` made as 0024 made it."""
    op.execute(
        f"CREATE TABLE _deliveries_kept AS SELECT {_DELIVERY_COLUMNS} FROM channel_deliveries"
    )
    op.drop_index("ix_channel_deliveries_due", table_name="channel_deliveries")
    op.drop_index("ix_channel_deliveries_channel_id", table_name="channel_deliveries")
    op.drop_table("channel_deliveries")
    with op.batch_alter_table("channels", recreate="always") as batch:
        change(batch)
    _create_deliveries()
    op.execute(
        f"INSERT INTO channel_deliveries ({_DELIVERY_COLUMNS})"
        f" SELECT {_DELIVERY_COLUMNS} FROM _deliveries_kept"
    )
    op.drop_table("_deliveries_kept")


def _create_deliveries() -> None:
    """`channel_deliveries` as 0024 made it."""
    op.create_table(
        "channel_deliveries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("delivery_id", _Text(length=40), nullable=False),
        sa.Column("event", _Text(length=16), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("payload", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("status", _Text(length=12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("available_at", _Time(), nullable=False),
        sa.Column("claimed_by", _Text(length=32), nullable=True),
        sa.Column("claimed_until", _Time(), nullable=True),
        sa.Column("last_error", _Text(length=500), nullable=True),
        sa.Column("created_at", _Time(), nullable=False),
        sa.Column("sent_at", _Time(), nullable=True),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("delivery_id"),
    )
    op.create_index(
        "ix_channel_deliveries_channel_id", "channel_deliveries", ["channel_id"], unique=False
    )
    op.create_index(
        "ix_channel_deliveries_due", "channel_deliveries", ["status", "available_at"], unique=False
    )
