"""Channels beyond email (issue 26): Discord, Slack, Matrix, ntfy and signed webhooks.

- `channels`: a player's channels, their secrets (URL, room or topic, token, signing
  secret) and their state (`active`, `disabled`; since when failing, the last error).
- `channel_deliveries`: one row per event and channel, written in the change's own
  transaction and sent by the worker; its `delivery_id` is fixed when written.

New tables only: nothing to carry over. (Numbered 0024; it follows 0022 here and the lead
chains it after 0023 at the merge.)

Revision ID: 0024
Revises: 0023
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0024'
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_Text = sqlmodel.sql.sqltypes.AutoString
_Time = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        'channels',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('kind', _Text(length=16), nullable=False),
        sa.Column('url', _Text(length=2000), nullable=False),
        sa.Column('target', _Text(length=255), nullable=True),
        sa.Column('token', _Text(length=500), nullable=True),
        sa.Column('secret', _Text(length=100), nullable=True),
        sa.Column('events', sa.JSON(), nullable=False),
        sa.Column('state', _Text(length=12), nullable=False),
        sa.Column('disabled_reason', _Text(length=500), nullable=True),
        sa.Column('failing_since', _Time(), nullable=True),
        sa.Column('last_error', _Text(length=500), nullable=True),
        sa.Column('last_sent_at', _Time(), nullable=True),
        sa.Column('created_at', _Time(), nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['players.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_channels_player_id', 'channels', ['player_id'], unique=False)
    op.create_table(
        'channel_deliveries',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('channel_id', sa.Integer(), nullable=False),
        sa.Column('delivery_id', _Text(length=40), nullable=False),
        sa.Column('event', _Text(length=16), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=True),
        sa.Column('version', sa.Integer(), nullable=True),
        sa.Column('payload', sa.JSON(none_as_null=True), nullable=True),
        sa.Column('status', _Text(length=12), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('available_at', _Time(), nullable=False),
        sa.Column('claimed_by', _Text(length=32), nullable=True),
        sa.Column('claimed_until', _Time(), nullable=True),
        sa.Column('last_error', _Text(length=500), nullable=True),
        sa.Column('created_at', _Time(), nullable=False),
        sa.Column('sent_at', _Time(), nullable=True),
        sa.ForeignKeyConstraint(['channel_id'], ['channels.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('delivery_id'),
    )
    op.create_index(
        'ix_channel_deliveries_channel_id', 'channel_deliveries', ['channel_id'], unique=False
    )
    op.create_index(
        'ix_channel_deliveries_due', 'channel_deliveries', ['status', 'available_at'], unique=False
    )


def downgrade() -> None:
    op.drop_index('ix_channel_deliveries_due', table_name='channel_deliveries')
    op.drop_index('ix_channel_deliveries_channel_id', table_name='channel_deliveries')
    op.drop_table('channel_deliveries')
    op.drop_index('ix_channels_player_id', table_name='channels')
    op.drop_table('channels')
