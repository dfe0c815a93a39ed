"""Two `cafe-server worker` processes, and one killed with SIGKILL mid-batch: every message
is delivered; the survivor sends each at most once, and only what the dead worker had
handed to the SMTP server but not yet marked sent can arrive a second time (with the same
Message-ID)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from server_support import TEST_CONFIG
from sqlmodel import Session

from server.config import settings_of
from server.db import get_engine
from server.devmail import CatchingHandler
from server.jobs import outbox
from server.jobs.worker import BATCH
from server.models import OutboxMessage

ROOT = Path(__file__).resolve().parents[3]
MESSAGES = 240


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file: the workers are other processes


class SlowHandler(CatchingHandler):
    """A sink that takes its time over each message, so that a batch is still being sent
    when a worker is killed."""

    async def handle_DATA(self, server, session, envelope):
        await asyncio.sleep(0.01)
        return await super().handle_DATA(server, session, envelope)


def start_worker(url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "CAFE_DATABASE_URL": url,
        "CAFE_SMTP_PORT": str(port),
        "CAFE_SECRET_KEY": TEST_CONFIG["SECRET_KEY"],
        "CAFE_MAIL_FROM": "Cafe <cafe@cafe.test>",
        "CAFE_MAIL_PER_MINUTE": "0",
        "CAFE_OUTBOX_LEASE": "3",
        "CAFE_WORKER_POLL": "1",
        "CAFE_LOG_LEVEL": "WARNING",
    }
    code = "from server.cli import app; app()"
    return subprocess.Popen(
        [sys.executable, "-c", code, "worker"], env=env, stderr=log.open("wb"), cwd=ROOT
    )


@pytest.mark.postgres
def test_a_worker_killed_mid_batch_loses_nothing(app, tmp_path, dead_port, smtp_catcher):
    with Session(get_engine(app)) as session:
        for n in range(MESSAGES):
            session.add(
                OutboxMessage(
                    kind="test",
                    to_addr=f"p{n}@example.com",
                    subject=f"message {n}",
                    body="hello\n",
                    message_id=f"<crash-{n}@cafe.test>",
                )
            )
        session.commit()
    handler = SlowHandler()
    smtp_catcher.start(handler, port=dead_port)
    url = settings_of(app).database_url
    doomed = start_worker(url, dead_port, tmp_path / "doomed.log")
    survivor = start_worker(url, dead_port, tmp_path / "survivor.log")
    try:
        deadline = time.monotonic() + 60
        while len(handler.messages) < 40 and time.monotonic() < deadline:
            time.sleep(0.01)
        doomed.send_signal(signal.SIGKILL)
        doomed.wait()
        while outbox.counts(get_engine(app)) != {"sent": MESSAGES}:
            assert time.monotonic() < deadline, outbox.counts(get_engine(app))
            time.sleep(0.1)
    finally:
        for process in (doomed, survivor):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=10)
        smtp_catcher.stop(dead_port)
    times = Counter(message["Message-ID"] for message in handler.messages)
    assert set(times) == {f"<crash-{n}@cafe.test>" for n in range(MESSAGES)}
    twice = [mid for mid, count in times.items() if count > 1]
    assert max(times.values()) <= 2  # once by the survivor, at most once more by the dead
    assert len(twice) <= BATCH  # at most the batch the dead worker was sending
