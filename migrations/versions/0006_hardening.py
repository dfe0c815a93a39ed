"""Throttle events: counted sign-in guesses, registrations and code requests per client
address, for limits that hold per client and overall rather than per victim.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'throttle_events',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column('client', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(
        'ix_throttle_client', 'throttle_events', ['kind', 'client', 'created_at'], unique=False
    )
    op.create_index('ix_throttle_kind', 'throttle_events', ['kind', 'created_at'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_throttle_kind', table_name='throttle_events')
    op.drop_index('ix_throttle_client', table_name='throttle_events')
    op.drop_table('throttle_events')
