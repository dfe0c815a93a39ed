"""Pooled PostgreSQL connections are checked with a ping only after resting
(`server.db.PING_AFTER_IDLE`), and one the server dropped meanwhile is replaced unseen."""

from __future__ import annotations

import time

from sqlalchemy import text

from server import db
from server.db import make_engine


def counted_pings(engine, monkeypatch) -> list[int]:
    pings: list[int] = []
    ping = engine.dialect.do_ping

    def counting(dbapi_connection) -> bool:
        pings.append(1)
        return ping(dbapi_connection)

    monkeypatch.setattr(engine.dialect, "do_ping", counting)
    return pings


def backend_pid(engine) -> int:
    with engine.connect() as connection:
        return connection.execute(text("SELECT pg_backend_pid()")).scalar_one()


def test_a_connection_used_a_moment_ago_is_not_pinged_a_rested_one_is(request, monkeypatch):
    engine = make_engine(request.getfixturevalue("postgres_url"))  # skips without PG
    pings = counted_pings(engine, monkeypatch)
    first = backend_pid(engine)  # a new connection
    assert backend_pid(engine) == first  # the same, taken again at once
    assert pings == []
    monkeypatch.setattr(db, "PING_AFTER_IDLE", 0.05)
    time.sleep(0.1)
    assert backend_pid(engine) == first
    assert pings == [1]
    engine.dispose()


def test_a_rested_connection_the_server_dropped_is_replaced_unseen(request, monkeypatch):
    url = request.getfixturevalue("postgres_url")
    engine, admin = make_engine(url), make_engine(url)
    dropped = backend_pid(engine)
    with admin.connect() as connection:
        connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": dropped})
    monkeypatch.setattr(db, "PING_AFTER_IDLE", 0.05)
    time.sleep(0.1)
    assert backend_pid(engine) != dropped  # no error: the ping found it gone
    engine.dispose()
    admin.dispose()
