"""Alembic environment: runs the migrations on the URL `server.migrate` puts in the config."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import server.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from server.db import make_engine

config = context.config
target_metadata = SQLModel.metadata


def run_migrations_offline() -> None:
    """Emit SQL for `--sql` mode without a database."""
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run against the database, with the same connection tuning as the app (WAL, timeouts)."""
    engine = make_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=True,  # SQLite alters tables by copying them
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
