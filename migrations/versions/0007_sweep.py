"""The sweep: when each running game's next reminder is due (indexed) and which reminders of
the running turn were sent. Existing games get no reminder for the turn under way.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reminder_due', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('reminded', sa.JSON(), server_default='[]', nullable=False))
        batch_op.create_index(batch_op.f('ix_games_reminder_due'), ['reminder_due'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_games_reminder_due'))
        batch_op.drop_column('reminded')
        batch_op.drop_column('reminder_due')
