"""Mail in order, and what the answers to emailed turns need to know.

- `outbox.to_addr, status` indexed: a message is claimed only when no earlier message to
  its address is unsettled (`server.outbox.claim`), a look-up per candidate;
- `outbox.more_games`: the further games a reminder is about (reminders due within the
  hour for one player come as one email);
- `turns.source`: how a player's turn came in (`api`, `web`, `email`), so that a reply to
  an email about a turn already played says how and when it was played.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0018'
down_revision: str | None = '0017'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('more_games', sa.JSON(none_as_null=True), nullable=True))
        batch_op.create_index('ix_outbox_address', ['to_addr', 'status'], unique=False)
    with op.batch_alter_table('turns', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('source', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table('turns', schema=None) as batch_op:
        batch_op.drop_column('source')
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_index('ix_outbox_address')
        batch_op.drop_column('more_games')
