"""Every email rendered when it is sent: the facts of a notice are kept with its row.

- `outbox.payload`: the language-neutral facts of an email that is not about a game's
  current state (league, vacation, invitation, the answers to emailed replies, an expired
  open game), which the worker renders with its kind's builder when it sends it
  (`server.mail.notices`). None for a game event or a message rendered when queued.

Revision ID: 0020
Revises: 0018
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0020'
down_revision: str | None = '0018'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('payload', sa.JSON(none_as_null=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('payload')
