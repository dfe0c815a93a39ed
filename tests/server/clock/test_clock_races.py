"""Exactly once, under races (on a SQLite file and on PostgreSQL): a player's turn and the
time-out of the same version at the same moment, and several sweepers on the same due games
(threads here; processes killed mid-sweep in `test_clock_crash.py`)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func
from sqlmodel import Session, select

from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine
from server.games.timeouts import apply_timeout
from server.jobs.sweep import sweep
from server.models import GameRecord, TurnRecord

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NO_VACATION = {"days_per_turn": 3, "vacation": False}


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file, so that threads share it


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with use(FakeClock(T0)) as fake:
        yield fake  # type: ignore[misc]


def entries(app, game_id):
    with Session(get_engine(app)) as session:
        return session.exec(
            select(func.count()).select_from(TurnRecord).where(TurnRecord.game_id == game_id)
        ).one()


def run_together(*jobs):
    """Run the jobs in threads released at the same moment; their results."""
    barrier = threading.Barrier(len(jobs))
    results: list[object] = [None] * len(jobs)

    def run(index, job):
        barrier.wait()
        results[index] = job()

    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


@pytest.mark.postgres
def test_a_turn_and_its_time_out_at_once_exactly_one_lands(api, backend, clock):
    outcomes = Counter()
    for round_ in range(4):
        names = (f"a{round_}", f"b{round_}")
        game_id, tokens = api.started_game(*names, clock=NO_VACATION)
        shown = api.call("GET", f"/api/games/{game_id}", tokens[names[0]]).json
        token = tokens[shown["to_move"]]
        hint = api.call("GET", f"/api/games/{game_id}/hints?n=1", token).json["hints"][0]
        clock.advance(timedelta(days=3))
        body = {"turn": hint["turn"], "version": shown["version"]}
        client = api.app.test_client()

        def turn(client=client, token=token, body=body, game_id=game_id):
            headers = {"Authorization": f"Bearer {token}"}
            return client.post(f"/api/games/{game_id}/turns", json=body, headers=headers)

        def timeout(game_id=game_id, version=shown["version"]):
            with Session(get_engine(api.app), expire_on_commit=False) as session:
                return apply_timeout(session, game_id, version, config=settings_of(api.app))

        response, outcome = run_together(turn, timeout)
        assert (response.status_code == 201) != (outcome is not None), (response.json, outcome)
        if response.status_code != 201:
            assert response.status_code == 409 and response.json["error"] == "stale_version"
        outcomes["turn" if outcome is None else "timeout"] += 1
        assert entries(api.app, game_id) == 1
    assert sum(outcomes.values()) == 4


@pytest.mark.postgres
@pytest.mark.parametrize("sweepers", [2, 4])
def test_several_sweepers_time_out_each_due_game_once(api, backend, clock, sweepers):
    games = [api.started_game(f"p{n}", f"q{n}", clock=NO_VACATION)[0] for n in range(2 * sweepers)]
    clock.advance(timedelta(days=3))
    engine, config = get_engine(api.app), settings_of(api.app)
    done = run_together(*[lambda: sweep(engine, config) for _ in range(sweepers)])
    assert sum(sum(d.timeouts.values()) for d in done) == len(games)
    assert [entries(api.app, game_id) for game_id in games] == [1] * len(games)
    with Session(engine) as session:
        versions = session.exec(select(GameRecord.version).where(GameRecord.id.in_(games))).all()
    assert set(versions) == {3}  # joined, started, timed out: one change each
    assert sum(sweep(engine, config).total for _ in range(2)) == 0
