"""The sweep in bounded batches (issue 25): a sweep takes at most a batch of each kind and
begins nothing once its time budget is spent, says when more is due, and a worker then
sweeps again in its very next round, after that round's mail; every due deadline is still
handled exactly once; and two sweeps at once take different due games (PostgreSQL)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from server_support import Api
from sqlalchemy import func
from sqlmodel import Session, select

from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine
from server.games import timeouts
from server.jobs import worker as worker_module
from server.jobs.sweep import Swept, sweep
from server.jobs.worker import Worker
from server.models import TurnRecord

pytestmark = pytest.mark.postgres

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NO_VACATION = {"days_per_turn": 3, "vacation": False}


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with use(FakeClock(T0)) as fake:
        yield fake  # type: ignore[misc]


def entries(app, game_ids):
    """The log entries of each game: one per time-out (the games were just started)."""
    with Session(get_engine(app)) as session:
        return [
            session.exec(
                select(func.count()).select_from(TurnRecord).where(TurnRecord.game_id == game_id)
            ).one()
            for game_id in game_ids
        ]


def late_games(api, clock, count):
    games = [api.started_game(f"p{n}", f"q{n}", clock=NO_VACATION)[0] for n in range(count)]
    clock.advance(timedelta(days=3))
    return games


def test_batches_time_out_every_due_game_once_and_say_when_more_is_due(api, clock):
    games = late_games(api, clock, 5)
    engine, config = get_engine(api.app), settings_of(api.app)
    done = [sweep(engine, config, limit=2) for _ in range(4)]
    assert [sum(d.timeouts.values()) for d in done] == [2, 2, 1, 0]
    assert [d.more for d in done] == [True, True, False, False]
    assert entries(api.app, games) == [1] * 5


def test_a_spent_budget_leaves_the_rest_due_but_begins_one(api, clock):
    games = late_games(api, clock, 3)
    engine, config = get_engine(api.app), settings_of(api.app)
    done = [sweep(engine, config, budget=0) for _ in range(4)]
    assert [sum(d.timeouts.values()) for d in done] == [1, 1, 1, 0]
    assert [d.more for d in done] == [True, True, False, False]  # the last one left nothing
    assert entries(api.app, games) == [1] * 3


def test_a_worker_with_more_due_sweeps_again_next_round_after_its_mail(
    api, clock, smtp_server, monkeypatch
):
    handler, port = smtp_server
    games = late_games(api, clock, 3)
    monkeypatch.setattr(worker_module, "SWEEP_BUDGET", 0)  # one time-out a round
    config = settings_of(api.app).replace(SMTP_PORT=port, WORKER_SWEEP=3600, MAIL_PER_MINUTE=0)
    worker = Worker(get_engine(api.app), config)
    assert worker.run_once() > 0
    assert entries(api.app, games) == [1, 0, 0]  # one batch swept, then the mail went out
    assert handler.messages
    sent = len(handler.messages)
    assert worker.run_once() > 0  # long before WORKER_SWEEP: the rest was due
    assert worker.run_once() > 0
    assert entries(api.app, games) == [1, 1, 1]
    assert len(handler.messages) > sent  # each round's time-out emailed in its round
    assert worker.sweeps == 3


def test_two_sweeps_at_once_take_different_games_and_together_all(postgres_app, clock, monkeypatch):
    """While the first sweep holds its first game, the second sweeps: it passes over that
    game when listing and takes the next ones, and the first then goes on past the ones the
    second did. Before, both listed the same batch and the second found most of it held or
    done: of 2 batches' worth of due games, the two sweeps together timed out one batch."""
    api = Api(postgres_app, postgres_app.test_client())
    batch = 3
    games = late_games(api, clock, 2 * batch)
    engine, config = get_engine(postgres_app), settings_of(postgres_app)
    holding, second_done = threading.Event(), threading.Event()
    act = timeouts._act

    def act_holding_the_first(session, game, config):
        if threading.current_thread().name == "first" and not holding.is_set():
            holding.set()  # the first sweep holds this game's row until the second is done
            assert second_done.wait(30)
        return act(session, game, config)

    monkeypatch.setattr(timeouts, "_act", act_holding_the_first)
    done: dict[str, Swept] = {}

    def first() -> None:
        done["first"] = sweep(engine, config, limit=batch)

    thread = threading.Thread(target=first, name="first")
    thread.start()
    try:
        assert holding.wait(30)
        done["second"] = sweep(engine, config, limit=batch)
    finally:
        second_done.set()
        thread.join(30)
    assert [sum(done[who].timeouts.values()) for who in ("first", "second")] == [batch, batch]
    assert entries(postgres_app, games) == [1] * (2 * batch)  # every game once
    api.close()
