"""The Alembic migrations build exactly the schema the models describe."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel

from server import migrate
from server.db import get_engine, make_engine
from server.models import Player


def differences(url: str) -> list:
    engine = make_engine(url)
    with engine.connect() as connection:
        found = compare_metadata(MigrationContext.configure(connection), SQLModel.metadata)
        version = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    engine.dispose()
    assert version == "0004"
    return found


def test_upgrade_on_sqlite_matches_the_models(tmp_path):
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    migrate.upgrade(url)
    migrate.upgrade(url)  # a second run has nothing to do
    assert differences(url) == []


def test_upgrade_on_postgresql_matches_the_models(request):
    url = request.getfixturevalue("postgres_url")  # migrated by the fixture; skips without PG
    assert differences(url) == []


@pytest.mark.postgres
def test_the_database_refuses_a_name_that_differs_only_in_case(app, backend):
    with Session(get_engine(app)) as session:
        session.add(Player(name="Ann", email="ann@example.com"))
        session.commit()
        session.add(Player(name="aNN", email="other@example.com"))
        with pytest.raises(IntegrityError):
            session.commit()


def test_the_scripts_are_package_data_of_server(monkeypatch, tmp_path):
    """Alembic finds them through the installed `server` package (`server:migrations`), so a
    wheel migrates too, whatever the current directory."""
    monkeypatch.chdir(tmp_path)
    scripts = ScriptDirectory.from_config(migrate.alembic_config("sqlite://"))
    shipped = resources.files("server").joinpath("migrations")
    assert Path(scripts.dir) == Path(str(shipped))
    versions = [e for e in shipped.joinpath("versions").iterdir() if e.name.endswith(".py")]
    assert len(list(scripts.walk_revisions())) == len(versions) > 0
