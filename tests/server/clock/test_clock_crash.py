"""Real `cafe-server worker` processes on the development clock, one killed with SIGKILL in
the middle of a sweep: every due game is timed out exactly once (one log entry, one notice)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from server_support import TEST_CONFIG
from sqlalchemy import func
from sqlmodel import Session, select
from worker_support import SWEEP_LOGGING, wait_for_further_sweeps

from server.clock import devclock
from server.db import get_engine
from server.models import GameRecord, OutboxMessage, TurnRecord

ROOT = Path(__file__).resolve().parents[3]
GAMES = 120


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file: the workers are other processes


def start_worker(url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "CAFE_DATABASE_URL": url,
        "CAFE_DEV_CLOCK": "1",
        "CAFE_SMTP_PORT": str(port),
        "CAFE_SECRET_KEY": TEST_CONFIG["SECRET_KEY"],
        "CAFE_MAIL_FROM": "Cafe <cafe@cafe.test>",
        "CAFE_WORKER_POLL": "1",
        **SWEEP_LOGGING,
    }
    code = "from server.cli import app; app()"
    return subprocess.Popen(
        [sys.executable, "-c", code, "worker"], env=env, stderr=log.open("wb"), cwd=ROOT
    )


def count(engine, query):
    with Session(engine) as session:
        return session.exec(query).one()


@pytest.mark.postgres
def test_a_worker_killed_mid_sweep_loses_and_doubles_nothing(api, backend, tmp_path, dead_port):
    first, tokens = api.started_game("ann", "bob", clock={"days_per_turn": 1, "vacation": False})
    games = [first]
    for _ in range(GAMES - 1):
        made = api.call(
            "POST",
            "/api/games",
            tokens["ann"],
            json={"seats": 2, "clock": {"days_per_turn": 1, "vacation": False}},
        ).json
        api.call("POST", f"/api/games/{made['id']}/join", tokens["bob"])
        api.call("POST", f"/api/games/{made['id']}/start", tokens["ann"])
        games.append(made["id"])
    engine = get_engine(api.app)
    url = engine.url.render_as_string(hide_password=False)
    devclock.write_offset(engine, timedelta(days=1, minutes=1))
    entries = select(func.count()).select_from(TurnRecord)
    doomed = start_worker(url, dead_port, tmp_path / "doomed.log")
    deadline = time.monotonic() + 60
    while count(engine, entries) == 0 and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(doomed.pid, signal.SIGKILL)
    doomed.wait(10)
    killed_at = count(engine, entries)
    assert 0 < killed_at < GAMES, "the worker was not killed mid-sweep"
    logs = [tmp_path / f"w{n}.log" for n in range(2)]
    survivors = [start_worker(url, dead_port, log) for log in logs]
    try:
        deadline = time.monotonic() + 120
        while count(engine, entries) < GAMES and time.monotonic() < deadline:
            time.sleep(0.1)
        wait_for_further_sweeps(logs)  # which find nothing more to do
    finally:
        for worker in survivors:
            worker.terminate()
            worker.wait(10)
    with Session(engine) as session:
        per_game = dict(
            session.exec(
                select(TurnRecord.game_id, func.count()).group_by(TurnRecord.game_id)
            ).all()
        )
        notices = session.exec(select(func.count()).where(OutboxMessage.kind == "timed_out")).one()
        versions = set(session.exec(select(GameRecord.version)).all())
    assert per_game == dict.fromkeys(games, 1)
    assert notices == GAMES and versions == {3}
