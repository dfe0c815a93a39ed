"""Issue 21: sign-in requests instead of stored codes, look-alike names refused, private games
unrated.

1. `players.name_skeleton`: each name's confusable skeleton (UTS #39, `server.names`), under
   a unique index, so that `Iris` and `lris` cannot both be players. Names that already look
   alike stop the upgrade, naming them, before anything changes (as 0011 does for names
   differing only in case): an operator renames all but one of each and upgrades again.
2. `signin_codes` keeps no code: `code_hash` and `attempts` give way to `request_id` (the
   code and the link are derived from it and the secret key, `server.signin`) and
   `outbox_id`. A stored HMAC cannot become a request, so the outstanding codes are dropped
   (they live 15 minutes; their owners ask again), sign-in mail still waiting with its code
   in the body is given up, and every sign-in email's body is cleared.
3. A private game is never rated (ratings are public, and a rating's change tells the
   result): private games are unrated, their rating history removed and every rating
   recomputed from the games left (`server.league.ratings`), only if there were any.

The skeleton column may be NULL in the database: making it NOT NULL would rebuild the
players table on SQLite, which the foreign keys of every other table forbid while they are
enforced. Every insert fills it in (`server.models.Player`).

Revision ID: 0017
Revises: 0015
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlmodel import Session

from server.migrate import MigrationRefused
from server.names import skeleton

revision: str = '0017'
down_revision: str | None = '0015'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SKELETON_LENGTH = 96


def upgrade() -> None:
    bind = op.get_bind()
    players = bind.execute(sa.text("SELECT id, name FROM players ORDER BY name")).all()
    alike: dict[str, list[str]] = defaultdict(list)
    for _, name in players:
        alike[skeleton(name)].append(name)
    clashes = [names for names in alike.values() if len(names) > 1]
    if clashes:
        raise MigrationRefused(
            "these players' names look alike (the same confusable skeleton): "
            + "; ".join(", ".join(names) for names in clashes)
            + "; rename all but one of each (UPDATE players SET name = '…' WHERE name = '…') "
            "and run the upgrade again"
        )
    op.add_column('players', sa.Column('name_skeleton', sa.String(SKELETON_LENGTH), nullable=True))
    if players:
        bind.execute(
            sa.text("UPDATE players SET name_skeleton = :skeleton WHERE id = :id"),
            [{"id": player_id, "skeleton": skeleton(name)} for player_id, name in players],
        )
    op.create_index('ix_players_name_skeleton', 'players', ['name_skeleton'], unique=True)

    op.execute("DELETE FROM signin_codes")
    with op.batch_alter_table('signin_codes', schema=None) as batch_op:
        batch_op.drop_column('code_hash')
        batch_op.drop_column('attempts')
        batch_op.add_column(sa.Column('request_id', sa.String(32), nullable=False))
        batch_op.add_column(sa.Column('outbox_id', sa.Integer(), nullable=True))
        batch_op.create_index('ix_signin_codes_request_id', ['request_id'], unique=True)
        batch_op.create_index('ix_signin_codes_outbox_id', ['outbox_id'], unique=True)
    op.execute(
        "UPDATE outbox SET status = 'failed', last_error = 'the sign-in code was made before an "
        "upgrade changed how codes are made; ask for a new one' "
        "WHERE kind = 'signin_code' AND status IN ('pending', 'sending')"
    )
    op.execute("UPDATE outbox SET body = '', html = NULL WHERE kind = 'signin_code'")

    rated_private = bind.execute(
        sa.text("SELECT count(*) FROM games WHERE private AND rated")
    ).scalar()
    if rated_private:
        op.execute(
            "DELETE FROM rating_history WHERE game_id IN (SELECT id FROM games WHERE private)"
        )
        op.execute("UPDATE games SET rated = false WHERE private")
        from server.league import ratings  # only when needed: it reads the games as modelled

        with Session(bind=bind) as session:
            ratings.store(session, ratings.replay(session))


def downgrade() -> None:
    """The schema of 0011 (outstanding sign-in requests are dropped; private games stay
    unrated)."""
    op.execute("DELETE FROM signin_codes")
    with op.batch_alter_table('signin_codes', schema=None) as batch_op:
        batch_op.drop_index('ix_signin_codes_outbox_id')
        batch_op.drop_index('ix_signin_codes_request_id')
        batch_op.drop_column('outbox_id')
        batch_op.drop_column('request_id')
        batch_op.add_column(
            sa.Column('attempts', sa.Integer(), nullable=False, server_default='0')
        )
        batch_op.add_column(sa.Column('code_hash', sa.String(64), nullable=False))
    op.drop_index('ix_players_name_skeleton', table_name='players')
    op.drop_column('players', 'name_skeleton')
