"""Schema migrations: Alembic, configured in code (no alembic.ini).

The scripts are package data, `server/migrations/` (a link to the checkout's `migrations/`),
found through the installed `server` package wherever it lives.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

#: Alembic's `package:folder` form: the folder is looked up inside the installed package.
SCRIPT_LOCATION = "server:migrations"


def alembic_config(database_url: str) -> Config:
    """An Alembic configuration for `database_url`."""
    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Bring the database to `revision` (the newest by default)."""
    command.upgrade(alembic_config(database_url), revision)


def revision(database_url: str, message: str) -> None:
    """Write a new migration script from the difference between the models and the database."""
    command.revision(alembic_config(database_url), message=message, autogenerate=True)


@contextmanager
def scratch_postgres(admin_url: str, prefix: str, *, durable: bool = True) -> Iterator[str]:
    """A new, uniquely named, migrated database on the PostgreSQL server of `admin_url`,
    dropped afterwards: for test sessions and benchmarks that must not share data.
    `durable=False` lets commits skip waiting for the disk."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
        if not durable:
            connection.execute(text(f'ALTER DATABASE "{name}" SET synchronous_commit = off'))
    url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    try:
        upgrade(url)
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
