"""Scratch PostgreSQL databases for test sessions and benchmarks (never for the service).

It lives with the tests, which `pyproject.toml` puts on pytest's path, so production code
cannot import it and the wheel does not carry it; `benchmarks/server.py` adds `tests/` to
its path to share it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlmodel import SQLModel

from server import migrate


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
        migrate.upgrade(url)
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def empty_tables(url: str) -> None:
    """Delete every row of the database at `url` (much faster than TRUNCATE on tables this
    small): a test's fresh start on the session's database."""
    engine = create_engine(url)
    with engine.begin() as connection:
        for table in reversed(SQLModel.metadata.sorted_tables):
            connection.execute(table.delete())
    engine.dispose()
