"""The database engine and the per-request session (the flaskr `get_db` pattern).

SQLite connections get WAL mode (readers never block the writer), a busy timeout (writers
queue instead of failing at once) and foreign keys; PostgreSQL is used as configured.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app, g
from sqlalchemy import Engine, event
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, create_engine


def make_engine(url: str, *, busy_timeout_ms: int = 30_000, durable: bool = True) -> Engine:
    """An engine for `url`, tuned for SQLite when it is one.

    `hide_parameters` keeps bound values out of database error messages: a snapshot holds
    the bag's order, and an error message may end up in a log. `durable=False` (the mail
    worker's bookkeeping) lets a commit return before it reaches the disk: it survives a
    crash of the process, and only a power loss can undo the last few — for the worker,
    at worst a message is sent again, with its same Message-ID.
    """
    if not url.startswith("sqlite"):
        options = {} if durable else {"options": "-c synchronous_commit=off"}
        return create_engine(url, pool_pre_ping=True, hide_parameters=True, connect_args=options)
    in_memory = url in ("sqlite://", "sqlite:///:memory:")
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
        # one shared connection, or every connection would see its own empty database
        poolclass=StaticPool if in_memory else None,
        hide_parameters=True,
    )

    @event.listens_for(engine, "connect")
    def _tune_sqlite(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        if not in_memory:
            cursor.execute("PRAGMA journal_mode=WAL")  # synchronous stays FULL: a 201 is durable
            if not durable:
                cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        # what is deleted or overwritten (a cleared sign-in code) is zeroed in the file, not
        # left in a free page for a copy of the file to show
        cursor.execute("PRAGMA secure_delete=ON")
        cursor.close()

    return engine


def init_app(app: Flask) -> None:
    """Create the app's engine and close each request's session when the request ends."""
    app.extensions["cafe_engine"] = make_engine(
        app.config["DATABASE_URL"], busy_timeout_ms=app.config["SQLITE_BUSY_TIMEOUT"]
    )
    app.teardown_appcontext(close_session)


def get_engine(app: Flask | None = None) -> Engine:
    """The engine of `app` (default: the current app)."""
    return (app or current_app).extensions["cafe_engine"]


def get_session() -> Session:
    """The session of the current request, opened on first use."""
    if "db_session" not in g:
        g.db_session = Session(get_engine(), expire_on_commit=False)
    return g.db_session


def close_session(_exc: BaseException | None = None) -> None:
    """Close the request's session, rolling back anything left uncommitted."""
    session = g.pop("db_session", None)
    if session is not None:
        session.close()
