"""Email: preferences on players, HTML and headers on the outbox, recipients' delivery state,
handled inbound replies, and the hints offered by email.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('inbound_mail',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('message_key', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=True),
    sa.Column('game_id', sa.Integer(), nullable=True),
    sa.Column('outcome', sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
    sa.Column('received_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('message_key')
    )
    op.create_table('mail_recipients',
    sa.Column('address', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('state', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
    sa.Column('last_error', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=True),
    sa.Column('since', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('recent', sa.JSON(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('address')
    )
    op.create_table('offered_hints',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('hints', sa.JSON(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('game_id', 'version', 'player_id')
    )
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('html', sqlmodel.sql.sqltypes.AutoString(), nullable=True))
        batch_op.add_column(sa.Column('headers', sa.JSON(), nullable=True))

    # existing players keep the defaults: an email each turn, not of others' turns
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('turn_emails', sqlmodel.sql.sqltypes.AutoString(length=8), server_default='each', nullable=False))
        batch_op.add_column(sa.Column('others_turns', sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column('last_digest_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('last_digest_at')
        batch_op.drop_column('others_turns')
        batch_op.drop_column('turn_emails')

    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('headers')
        batch_op.drop_column('html')

    op.drop_table('offered_hints')
    op.drop_table('mail_recipients')
    op.drop_table('inbound_mail')
