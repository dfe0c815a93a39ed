"""The app `benchmarks/server.py` serves: the service as the Procfile builds it, plus the
floor a write is measured against — `POST /bench/floor` inserts one row and commits it
durably, through the request's session, as the turn does, and nothing else.

The route exists only here: gunicorn loads `benchmarks.floor_app:create_bench_app()`
instead of `server:create_app()`. Its table is made by the benchmark before gunicorn
starts (`make_floor_table`), so the two gunicorn workers do not race to create it.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from sqlalchemy import Column, DateTime, Engine, Integer, MetaData, Table, insert

from server import create_app
from server.db import get_session, write_transaction
from server.models import utcnow

_METADATA = MetaData()
FLOOR = Table(
    "bench_floor",
    _METADATA,
    Column("id", Integer, primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
)
_INSERT = insert(FLOOR)


def make_floor_table(engine: Engine) -> None:
    """Create the floor's table in the benchmark's database."""
    _METADATA.create_all(engine)


def create_bench_app() -> Flask:
    """The service with the floor route added."""
    app = create_app()

    @app.post("/bench/floor")
    def floor() -> tuple[dict[str, Any], int]:
        with write_transaction(get_session()) as session:  # a turn's writer lock and commit
            session.execute(_INSERT, {"at": utcnow()})
        return {"ok": True}, 201

    return app
