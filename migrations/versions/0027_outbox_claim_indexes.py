"""The worker's claims at a league's size (issue 25): partial indexes of the rows a claim
may take.

- `ix_outbox_unsettled` (`id`) and `ix_outbox_unsettled_address` (`to_addr`, `id`): the
  outbox messages still `pending` or `sending`, in claim order and by address. A claim
  reads the due messages in id order and, for each, whether an earlier message to its
  address holds it back; both now read these few rows rather than the sent millions.
- `ix_channel_deliveries_unsettled` (`id`): the same for the channels' deliveries.

Revision ID: 0027
Revises: 0026
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: Written out here, as a migration must keep saying what it said (`server.models.UNSETTLED_SQL`).
UNSETTLED = "status IN ('pending', 'sending')"
INDEXES = (
    ("ix_outbox_unsettled", "outbox", ["id"]),
    ("ix_outbox_unsettled_address", "outbox", ["to_addr", "id"]),
    ("ix_channel_deliveries_unsettled", "channel_deliveries", ["id"]),
)


def upgrade() -> None:
    where = sa.text(UNSETTLED)
    for name, table, columns in INDEXES:
        op.create_index(name, table, columns, postgresql_where=where, sqlite_where=where)


def downgrade() -> None:
    for name, table, _columns in INDEXES:
        op.drop_index(name, table_name=table)
