"""The one time source (`server.clock.timesource`) and the development clock
(`server.clock.devclock`, `cafe-server clock`, `/healthz`)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from server_support import TEST_CONFIG
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError
from typer.testing import CliRunner

from server import migrate
from server.app import create_app
from server.cli import app as server_cli
from server.clock import devclock, timesource
from server.clock.timesource import FakeClock, use
from server.config import ConfigError
from server.models import utcnow

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_an_injected_clock_is_the_time_of_the_whole_service():
    clock = FakeClock(T0)
    with use(clock):
        assert utcnow() == timesource.now() == T0
        clock.advance(timedelta(days=3))
        assert utcnow() == T0 + timedelta(days=3)
    assert abs(utcnow() - datetime.now(UTC)) < timedelta(seconds=5)


def test_a_fake_clock_wants_an_aware_time():
    with pytest.raises(ValueError, match="aware"):
        FakeClock(datetime(2026, 1, 1))


@pytest.mark.parametrize(
    ("text", "expected"),
    [("36h", timedelta(hours=36)), ("3d", timedelta(days=3)), ("1d12h30m", timedelta(hours=36.5))],
)
def test_durations(text, expected):
    assert devclock.parse_duration(text) == expected


@pytest.mark.parametrize("text", ["", "3", "-3d", "3w", "d3", "3d 4h"])
def test_durations_that_are_not(text):
    with pytest.raises(devclock.ClockError, match=r"write e\.g\. 36h, 3d"):
        devclock.parse_duration(text)


def test_moments():
    assert devclock.parse_moment("2027-01-01T00:00Z") == datetime(2027, 1, 1, tzinfo=UTC)
    assert devclock.parse_moment("2027-01-01T01:00+01:00") == datetime(2027, 1, 1, tzinfo=UTC)
    with pytest.raises(devclock.ClockError, match="is not a time"):
        devclock.parse_moment("next tuesday")


@pytest.fixture
def database(tmp_path: Path) -> Iterator[str]:
    """A migrated SQLite file; the process's development clock is switched off afterwards."""
    url = f"sqlite:///{tmp_path / 'dev.db'}"
    migrate.upgrade(url)
    yield url
    timesource.install_dev_offset(None)


def environment(url: str, tmp_path: Path, clock: str = "1") -> dict[str, str]:
    return {
        "CAFE_DATABASE_URL": url,
        "CAFE_DEV_CLOCK": clock,
        "CAFE_INSTANCE_DIR": str(tmp_path),
        "CAFE_SECRET_KEY": "a-real-looking-secret-key-for-the-test-0123456789",
        "CAFE_LOG_LEVEL": "WARNING",
    }


def test_cafe_server_clock_moves_the_time_of_every_process(database, tmp_path, caplog):
    env = environment(database, tmp_path)
    runner = CliRunner()
    shown = runner.invoke(server_cli, ["clock", "show"], env=env)
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.endswith("(system time +0:00:00)\n")
    # another process (as a worker or a gunicorn worker would be) moves the clock
    moved = subprocess.run(
        [sys.executable, "-c", "from server.cli import main; main()", "clock", "advance", "3d"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    assert moved.returncode == 0, moved.stderr
    assert moved.stdout.endswith("(system time +3 days, 0:00:00)\n")
    assert "CAFE_DEV_CLOCK is on" in moved.stderr  # the loud warning at start
    app = create_app({**TEST_CONFIG, "DATABASE_URL": database, "DEV_CLOCK": True})
    assert timesource.now() - datetime.now(UTC) > timedelta(days=3) - timedelta(minutes=1)
    health = app.test_client().get("/healthz").json
    assert health["dev_clock"]["shift_seconds"] == 3 * 86400
    assert "never turn it on in a deployment" in health["dev_clock"]["warning"]

    later = runner.invoke(server_cli, ["clock", "set", "2100-01-01T00:00Z"], env=env)
    assert later.exit_code == 0, later.output
    assert later.stdout.startswith("time 2100-01-01T00:00:")
    assert timesource.now().year == 2100


def test_the_development_clock_only_moves_forward(database, tmp_path):
    env = environment(database, tmp_path)
    back = CliRunner().invoke(server_cli, ["clock", "set", "2001-01-01T00:00Z"], env=env)
    assert back.exit_code == 1
    # the last line: the process's log handler may still write to an earlier run's stream
    last = back.stderr.splitlines()[-1]
    assert last.startswith("cafe-server: the development clock only moves forward: it is")
    bad = CliRunner().invoke(server_cli, ["clock", "advance", "soon"], env=env)
    assert bad.exit_code == 1
    assert bad.stderr.splitlines()[-1] == (
        "cafe-server: 'soon' is not a duration: write e.g. 36h, 3d, 1d12h or 90m"
    )


def test_clock_commands_refuse_when_the_development_clock_is_off(database, tmp_path):
    result = CliRunner().invoke(
        server_cli, ["clock", "advance", "1d"], env=environment(database, tmp_path, clock="0")
    )
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        "cafe-server: the development clock is off; set CAFE_DEV_CLOCK=1 "
        "(development and tests only)"
    )
    assert not timesource.dev_offset_installed()


def test_healthz_says_nothing_of_a_clock_that_is_off(client):
    assert client.get("/healthz").json == {"status": "ok", "database": "ok"}


def test_an_in_memory_database_cannot_keep_a_shared_clock():
    with pytest.raises(ConfigError, match="needs a database that processes share"):
        create_app({**TEST_CONFIG, "DATABASE_URL": "sqlite://", "DEV_CLOCK": True})


def test_a_broken_connection_leaves_the_development_clock_at_its_last_offset(postgres_url, caplog):
    """The connection under the clock's read is ended by the server (as under a load test's
    `pg_terminate_backend`): that read answers the last offset, logged; the next reads
    again. Without a pre-ping, so that the read itself meets the ended connection."""
    engine, other = create_engine(postgres_url), create_engine(postgres_url)
    nowhere = create_engine("postgresql+psycopg://postgres@127.0.0.1:1/none")
    with pytest.raises(OperationalError):  # nothing read yet: nothing to fall back on
        devclock.LastOffset(nowhere)()
    devclock.write_offset(other, timedelta(hours=5))
    reader = devclock.LastOffset(engine)
    assert reader() == timedelta(hours=5)
    with engine.connect() as connection:  # the connection the reader uses, pooled
        pid = connection.execute(text("SELECT pg_backend_pid()")).scalar()
    with other.connect() as connection:
        connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    devclock.write_offset(other, timedelta(hours=6))
    with caplog.at_level(logging.WARNING, logger="server.clock.devclock"):
        assert reader() == timedelta(hours=5)
    assert "development clock unread" in caplog.text
    assert reader() == timedelta(hours=6)
    devclock.write_offset(other, timedelta(0))
    for each in (engine, other, nowhere):
        each.dispose()
