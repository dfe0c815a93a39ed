"""How a member left a season and why they play in their division (issue 20 §2–§3):
`season_members.departure` (withdrew, removed by the organiser, removed on time), `placed`
(by rating, new, up, down, stayed, moved to fill a place) and `placed_from` (their
division in the season before). Members who withdrew before are marked as having withdrawn;
the placements of seasons started before are not known (left null).

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('season_members', schema=None) as batch_op:
        batch_op.add_column(sa.Column('departure', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True))
        batch_op.add_column(sa.Column('placed', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True))
        batch_op.add_column(sa.Column('placed_from', sa.Integer(), nullable=True))
    op.execute("UPDATE season_members SET departure = 'withdrew' WHERE withdrawn_at IS NOT NULL")


def downgrade() -> None:
    with op.batch_alter_table('season_members', schema=None) as batch_op:
        batch_op.drop_column('placed_from')
        batch_op.drop_column('placed')
        batch_op.drop_column('departure')
