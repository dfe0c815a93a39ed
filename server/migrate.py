"""Schema migrations: Alembic, configured in code (no alembic.ini).

The scripts are package data, `server/migrations/` (a link to the checkout's `migrations/`),
found through the installed `server` package wherever it lives.
"""

from __future__ import annotations

import warnings

from alembic import command
from alembic.config import Config
from sqlalchemy.exc import SAWarning

#: Alembic's `package:folder` form: the folder is looked up inside the installed package.
SCRIPT_LOCATION = "server:migrations"


class MigrationRefused(RuntimeError):
    """A migration found data it cannot carry forward; the message says what to fix. The
    database stays at the revision before it."""


def alembic_config(database_url: str) -> Config:
    """An Alembic configuration for `database_url`."""
    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Bring the database to `revision` (the newest by default).

    On SQLite a migration that alters `players` copies the table from its reflection, which
    cannot see the index on lower(name) and warns so; the migrations create that index
    themselves (0011), so the warning says nothing an operator should act on."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", "Skipped unsupported reflection of expression-based index", SAWarning
        )
        command.upgrade(alembic_config(database_url), revision)


def revision(database_url: str, message: str) -> None:
    """Write a new migration script from the difference between the models and the database."""
    command.revision(alembic_config(database_url), message=message, autogenerate=True)
