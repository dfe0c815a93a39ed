"""A withdrawal and a game of the withdrawing player finishing at that moment wait for each
other instead of deadlocking (issue 21 §1): every transaction takes a game's row before the
members' rows its end changes — the withdrawal locks all its games first, in id order.

PostgreSQL only: SQLite has one writer at a time, so nothing there can deadlock."""

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
LEAGUE = {"name": "Three", "slug": "three", "game_size": 2, "division_size": 4, "promote": 0}


def test_a_withdrawal_waits_for_a_game_of_its_player_that_is_finishing(postgres_app):
    api = Api(postgres_app, postgres_app.test_client())
    tokens = {name: api.register(name) for name in ("ann", "bob", "cid")}
    assert api.call("POST", "/api/leagues", tokens["ann"], json=LEAGUE).status_code == 201
    assert api.call("POST", "/api/leagues/three/seasons", tokens["ann"]).status_code == 201
    for token in tokens.values():
        api.call("POST", "/api/leagues/three/seasons/1/register", token)
    season = api.call("POST", "/api/leagues/three/seasons/1/start", tokens["ann"]).json
    games = [
        api.call("GET", f"/api/games/{g}", tokens["ann"]).json
        for g in season["divisions"][0]["games"]
    ]
    ann = [game for game in games if "ann" in game["players"]]
    assert len(ann) >= 2
    last = ann[-1]  # the opponent resigns it while ann withdraws
    other = next(name for name in last["players"] if name != "ann")
    engine = get_engine(postgres_app)
    paused, go = threading.Event(), threading.Event()

    def pause_before_the_members(conn, cursor, statement, *_):
        if threading.current_thread() is finishing and statement.startswith(
            "UPDATE season_members"
        ):
            paused.set()  # the finishing game holds its row, not yet the members'
            go.wait(10)

    answers: dict[str, int] = {}

    def resign():
        answers["resign"] = (
            Api(postgres_app, postgres_app.test_client())
            .call("POST", f"/api/games/{last['id']}/resign", tokens[other])
            .status_code
        )

    def withdraw():
        answers["withdraw"] = (
            Api(postgres_app, postgres_app.test_client())
            .call("POST", "/api/leagues/three/seasons/1/withdraw", tokens["ann"])
            .status_code
        )

    finishing, leaving = threading.Thread(target=resign), threading.Thread(target=withdraw)
    event.listen(engine, "before_cursor_execute", pause_before_the_members)
    try:
        finishing.start()
        assert paused.wait(60)
        leaving.start()
        with engine.connect() as watcher:  # until the withdrawal waits for a lock
            deadline = time.monotonic() + 60
            while leaving.is_alive() and not watcher.execute(WAITING).scalar_one():
                assert time.monotonic() < deadline
                time.sleep(0.05)
    finally:
        go.set()
        for thread in (finishing, leaving):
            if thread.ident is not None:
                thread.join(60)
        event.remove(engine, "before_cursor_execute", pause_before_the_members)
    assert answers == {"resign": 200, "withdraw": 200}  # no deadlock: no 503 for either
    now = [api.call("GET", f"/api/games/{game['id']}", tokens["bob"]).json for game in ann]
    assert all(game["status"] == "finished" for game in now)
