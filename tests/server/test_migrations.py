"""The Alembic migrations build exactly the schema the models describe."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlmodel import SQLModel

from server import migrate
from server.db import make_engine


def differences(url: str) -> list:
    engine = make_engine(url)
    with engine.connect() as connection:
        found = compare_metadata(MigrationContext.configure(connection), SQLModel.metadata)
        version = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    engine.dispose()
    assert version == "0002"
    return found


def test_upgrade_on_sqlite_matches_the_models(tmp_path):
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    migrate.upgrade(url)
    migrate.upgrade(url)  # a second run has nothing to do
    assert differences(url) == []


def test_upgrade_on_postgresql_matches_the_models(request):
    url = request.getfixturevalue("postgres_url")  # migrated by the fixture; skips without PG
    assert differences(url) == []
