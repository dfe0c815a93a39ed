"""Mail events: a game change queues small outbox rows (game, version, seat, kind) that the
worker renders when it sends them, so the rendered fields may be empty until then; a wider
status for `superseded` and `skipped`.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TEXT = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('game_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('version', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('seat', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('turn', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('answering', _TEXT(length=200), nullable=True))
        batch_op.alter_column('to_addr', existing_type=_TEXT(length=254), nullable=True)
        batch_op.alter_column('subject', existing_type=_TEXT(length=200), nullable=True)
        batch_op.alter_column('body', existing_type=_TEXT(), nullable=True)
        batch_op.alter_column(
            'status', existing_type=_TEXT(length=8), type_=_TEXT(length=12), existing_nullable=False
        )


def downgrade() -> None:
    op.execute("DELETE FROM outbox WHERE body IS NULL")  # unrendered events cannot be kept
    op.execute("UPDATE outbox SET status = 'failed' WHERE length(status) > 8")
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.alter_column(
            'status', existing_type=_TEXT(length=12), type_=_TEXT(length=8), existing_nullable=False
        )
        batch_op.alter_column('body', existing_type=_TEXT(), nullable=False)
        batch_op.alter_column('subject', existing_type=_TEXT(length=200), nullable=False)
        batch_op.alter_column('to_addr', existing_type=_TEXT(length=254), nullable=False)
        batch_op.drop_column('answering')
        batch_op.drop_column('turn')
        batch_op.drop_column('seat')
        batch_op.drop_column('version')
        batch_op.drop_column('game_id')
