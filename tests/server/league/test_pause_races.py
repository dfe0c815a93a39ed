"""A season paused while the sweep times its games out (on a SQLite file and on PostgreSQL,
where the sweep claims games `FOR UPDATE SKIP LOCKED` and the pause locks them in id order):
whatever the interleaving, each game is either timed out before the pause or not at all, and
no running game is left with a deadline while paused, nor without one once resumed (a
deadline that had passed before the pause stays passed: the next sweep acts on it)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, select

from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine
from server.jobs.sweep import sweep
from server.models import GameRecord, GameStatus

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NAMES = ["ann", "bob", "cid", "dan", "eve", "fay"]
LEAGUE = {
    "name": "Race Club",
    "slug": "race",
    "game_size": 3,
    "division_size": 6,
    "clock": {"days_per_turn": 1, "timeout": "autoplay", "max_timeouts": 3, "vacation": False},
}
SEASON = "/api/leagues/race/seasons/1"


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file, so that threads share it


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with use(FakeClock(T0)) as fake:
        yield fake  # type: ignore[misc]


def running_games(app) -> list[GameRecord]:
    with Session(get_engine(app)) as session:
        return list(
            session.exec(select(GameRecord).where(GameRecord.status == GameStatus.ACTIVE)).all()
        )


@pytest.mark.postgres
def test_a_pause_during_a_sweep_leaves_every_game_consistent(api, backend, clock):
    tokens = {name: api.register(name) for name in NAMES}
    assert api.call("POST", "/api/leagues", tokens["ann"], json=LEAGUE).status_code == 201
    assert api.call("POST", "/api/leagues/race/seasons", tokens["ann"]).status_code == 201
    for name in NAMES:
        assert api.call("POST", f"{SEASON}/register", tokens[name]).status_code == 200
    assert api.call("POST", f"{SEASON}/start", tokens["ann"]).status_code == 200
    before = {game.id: game.version for game in running_games(api.app)}
    clock.advance(timedelta(days=1, hours=1))  # every game's deadline has passed

    barrier = threading.Barrier(2)
    answers: dict[str, object] = {}

    def sweeping() -> None:
        barrier.wait()
        answers["swept"] = sweep(get_engine(api.app), settings_of(api.app))

    def pausing() -> None:
        client = api.app.test_client()
        barrier.wait()
        answers["paused"] = client.post(
            f"{SEASON}/pause",
            json={"reason": "holidays"},
            headers={"Authorization": f"Bearer {tokens['ann']}"},
        ).status_code

    threads = [threading.Thread(target=job) for job in (sweeping, pausing)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert answers["paused"] == 200

    games = running_games(api.app)
    assert len(games) == len(before)  # one turn each at most: none of them ends
    for game in games:
        assert game.deadline is None and game.reminder_due is None, game.id
        assert [hold["end"] for hold in game.clock_holds] == [None]
        assert game.version - before[game.id] in (0, 1)  # timed out once, or not at all
    timed_out = sum(game.version - before[game.id] for game in games)
    assert timed_out == sum(answers["swept"].timeouts.values())  # type: ignore[attr-defined]

    clock.advance(timedelta(days=5))
    assert sweep(get_engine(api.app), settings_of(api.app)).total == 0  # nothing while paused
    resumed = api.call("POST", f"{SEASON}/resume", tokens["ann"], json={})
    assert resumed.status_code == 200, resumed.json
    late = []
    for game in running_games(api.app):
        if game.version > before[game.id]:  # its new turn began just before the pause
            assert game.deadline is not None and game.deadline > clock.at, game.id
        else:  # its deadline had passed before the pause: the pause does not forgive it
            assert game.deadline == T0 + timedelta(days=1), game.id
            late.append(game.id)
    assert sum(sweep(get_engine(api.app), settings_of(api.app)).timeouts.values()) == len(late)
