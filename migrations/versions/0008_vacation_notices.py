"""Vacation emails: when the next email about a declared vacation is due (indexed, for the
sweep). Vacations declared before get none.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('vacations', schema=None) as batch_op:
        batch_op.add_column(sa.Column('notice_due', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.create_index(batch_op.f('ix_vacations_notice_due'), ['notice_due'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('vacations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_vacations_notice_due'))
        batch_op.drop_column('notice_due')
