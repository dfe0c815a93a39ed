"""The app `benchmarks/server.py` serves: the service as the Procfile builds it, plus the
floor a write is measured against — `POST /bench/floor` inserts one row and commits it
durably, through the request's session, as the turn does, and nothing else.

The route exists only here: gunicorn loads `benchmarks.floor_app:create_bench_app()`
instead of `server.app:create_app()`. Its table is made by the benchmark before gunicorn
starts (`make_floor_table`), so the two gunicorn workers do not race to create it.

`BENCH_WITHOUT` (not a `CAFE_` setting: it is no setting of the service) names a speed
shortcut the app goes without, for `benchmarks/shortcuts.py` to measure what it buys
(`SHORTCUTS`; docs/speed.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from flask import Flask
from sqlalchemy import Column, DateTime, Engine, Integer, MetaData, Table, insert

from cafe import Game
from server import db
from server.app import create_app
from server.db import get_session, write_transaction
from server.games import positions, turns
from server.games.guarded import GuardedWrite
from server.models import utcnow

_METADATA = MetaData()
FLOOR = Table(
    "bench_floor",
    _METADATA,
    Column("id", Integer, primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
)
_INSERT = insert(FLOOR)


def _no_engine_cache() -> None:
    """Every turn reads its position into the engine (`Game.from_position`)."""
    positions.engine_at = lambda _game_id, _version, position: Game.from_position(position)


def _no_single_statement() -> None:
    """A turn's write is a transaction (BEGIN, COMMIT) of its four statements one by one."""
    turns.single_statement_write = write_transaction  # type: ignore[assignment]
    GuardedWrite._apply_combined = GuardedWrite._apply_one_by_one  # type: ignore[method-assign]


def _no_writer_lock() -> None:
    """SQLite's writers meet its busy handler (sleeps of 1 to 100 ms) instead of the lock."""
    db._writing = lambda _session: nullcontext()  # type: ignore[assignment]


#: The shortcuts an app can go without, and how (the balanced gunicorn worker is left out
#: on gunicorn's command line instead: `--worker-class gthread`).
SHORTCUTS: dict[str, Callable[[], None]] = {
    "engine_cache": _no_engine_cache,
    "single_statement": _no_single_statement,
    "writer_lock": _no_writer_lock,
}


def make_floor_table(engine: Engine) -> None:
    """Create the floor's table in the benchmark's database."""
    _METADATA.create_all(engine)


def create_bench_app() -> Flask:
    """The service with the floor route added (without the shortcut in `BENCH_WITHOUT`)."""
    without = os.environ.get("BENCH_WITHOUT")
    if without:
        SHORTCUTS[without]()
    app = create_app()

    @app.post("/bench/floor")
    def floor() -> tuple[dict[str, Any], int]:
        with write_transaction(get_session()) as session:  # a turn's writer lock and commit
            session.execute(_INSERT, {"at": utcnow()})
        return {"ok": True}, 201

    return app
