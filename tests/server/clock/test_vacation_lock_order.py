"""Two players who share games declare vacations at the same moment: each declaration
changes every game its player sits in, in the order of the games' ids, so the two wait for
each other instead of deadlocking (issue 21 §1: one lock order wherever a transaction
changes several rows).

Before, the games were changed in the order the query happened to return them. On a
database of many games that follows each player's seats (the index of seats by player):
ann's A then B, bob's B then A, a cycle PostgreSQL broke by aborting one declaration (a
503). The test's few rows would be scanned in one order for both, so its connections plan
as that database does (no sequential scans). PostgreSQL only: SQLite has one writer at a
time."""

from __future__ import annotations

import threading
import time

from server_support import Api
from sqlalchemy import event, text

from server.db import get_engine

#: Whether a session of this database waits for a lock another one holds.
WAITING = text(
    "SELECT count(*) > 0 FROM pg_stat_activity "
    "WHERE datname = current_database() AND wait_event_type = 'Lock'"
)
VACATION = {"days": 2}


def plan_as_a_big_database(dbapi_connection, _record):
    """A new connection of the test's engine plans from the indexes, as it would over a
    table of many games."""
    cursor = dbapi_connection.cursor()
    cursor.execute("SET enable_seqscan = off")
    cursor.close()
    dbapi_connection.commit()  # a SET in a transaction rolled back would not last


def test_two_vacations_over_shared_games_wait_for_each_other(postgres_app):
    api = Api(postgres_app, postgres_app.test_client())
    tokens = {name: api.register(name) for name in ("ann", "bob")}
    # seats in this order: ann's A, bob's B, ann's B, bob's A (the games stay open)
    first = api.call("POST", "/api/games", tokens["ann"], json={"seats": 3}).json["id"]
    second = api.call("POST", "/api/games", tokens["bob"], json={"seats": 3}).json["id"]
    assert api.call("POST", f"/api/games/{second}/join", tokens["ann"]).status_code == 200
    assert api.call("POST", f"/api/games/{first}/join", tokens["bob"]).status_code == 200
    engine = get_engine(postgres_app)
    engine.dispose()
    event.listen(engine, "connect", plan_as_a_big_database)
    paused, go = threading.Event(), threading.Event()
    changed: dict[str, list[int]] = {"ann": [], "bob": []}

    def watch_the_games(conn, cursor, statement, parameters, *_):
        if not statement.startswith("UPDATE games"):
            return
        who = threading.current_thread().name
        changed[who].append(parameters["id_1"])
        if who == "ann" and len(changed["ann"]) == 2:
            paused.set()  # ann holds her first game's row, not yet her second's
            go.wait(10)

    answers: dict[str, int] = {}

    def declare(name: str) -> None:
        own = Api(postgres_app, postgres_app.test_client())
        answers[name] = own.call(
            "POST", "/api/me/vacation", tokens[name], json=VACATION
        ).status_code

    ann, bob = (threading.Thread(target=declare, args=(n,), name=n) for n in ("ann", "bob"))
    event.listen(engine, "before_cursor_execute", watch_the_games)
    try:
        ann.start()
        assert paused.wait(60)
        bob.start()
        with engine.connect() as watcher:  # until bob waits for a row ann holds, or is done
            deadline = time.monotonic() + 60
            while bob.is_alive() and not watcher.execute(WAITING).scalar_one():
                assert time.monotonic() < deadline
                time.sleep(0.05)
    finally:
        go.set()
        for thread in (ann, bob):
            if thread.ident is not None:
                thread.join(60)
        event.remove(engine, "before_cursor_execute", watch_the_games)
        event.remove(engine, "connect", plan_as_a_big_database)
    assert answers == {"ann": 201, "bob": 201}  # no deadlock: no 503 for either
    # each in id order (a compare-and-set that lost to the other's change is run again)
    assert [list(dict.fromkeys(changed[name])) for name in ("ann", "bob")] == [[first, second]] * 2
