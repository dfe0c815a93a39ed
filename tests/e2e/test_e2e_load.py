"""The short form of `benchmarks/load.py` as a correctness test: 1,000 running games among
400 players, the Procfile's deployment (2 gunicorn processes × 4 threads, 2 workers) on
PostgreSQL, 30 seconds of Locust's traffic with the development clock moving deadlines and
reminders past, then every count that must be zero is: no error, no turn lost or applied
twice, no email lost or sent twice, no time-out before its deadline and none left due,
and `cafe-server games check` and `league check` clean. The speed is the long form's
business (docs/scaling.md); this asserts none of it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[2]
PG_URL = os.environ.get("CAFE_TEST_DATABASE_URL")


@pytest.fixture
def database() -> Iterator[str]:
    """A database name of this test's own on the tests' PostgreSQL server, dropped after."""
    if not PG_URL:
        pytest.skip("set CAFE_TEST_DATABASE_URL to run the PostgreSQL tests")
    name = f"cafe_load_{uuid.uuid4().hex[:12]}"
    url = make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    yield url
    admin = create_engine(make_url(PG_URL), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def test_a_thousand_games_under_load_lose_and_double_nothing(database: str, tmp_path: Path):
    output = tmp_path / "figures.json"
    ran = subprocess.run(
        [
            sys.executable, str(ROOT / "benchmarks" / "load.py"),
            "--games", "1000", "--players", "400", "--web", "2", "--threads", "4",
            "--workers", "2", "--turn-rate", "20", "--users", "20", "--duration", "30",
            "--sweep", "5", "--settle", "90", "--mail-in-every", "3",
            "--database-url", database, "--folder", str(tmp_path), "--output", str(output),
        ],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    figures = json.loads(output.read_text())
    turns, mail, timeouts = figures["turns"], figures["mail"], figures["timeouts"]

    # it was a run: turns played all three ways, mail delivered, deadlines passed
    assert turns["confirmed_201"] > 100, turns
    assert turns["logged_timeout"] > 0, timeouts
    assert turns["mail_in"].get("250: applied", 0) > 0, turns
    assert all(outcome.startswith("250: ") for outcome in turns["mail_in"]), turns
    assert mail["received"] > 100, mail
    assert figures["requests"]["GET list"]["count"] > 0
    # the service's own time of each confirmed turn was read from the web's request log
    assert figures["service"]["POST turn"]["count"] == turns["confirmed_201"], figures["service"]

    assert figures["errors"] == {}, figures["errors"]
    assert (turns["lost"], turns["doubled"], turns["applied_unconfirmed"]) == (0, 0, 0), turns
    assert turns["logged_api"] == turns["confirmed_201"], turns
    assert (mail["lost"], mail["message_ids_twice"], mail["events_twice"]) == (0, 0, 0), mail
    assert mail["by_status"].get("sent") == mail["distinct_received"], mail
    assert timeouts["before_their_deadline"] == 0, timeouts
    assert (timeouts["deadlines_due_unhandled"], timeouts["reminders_due_unsent"]) == (0, 0)
    assert {what: check["exit"] for what, check in figures["checks"].items()} == {
        "games": 0,
        "league": 0,
    }, figures["checks"]
    assert figures["logs"] == {
        "web_tracebacks": 0,
        "worker_tracebacks": 0,
        "worker_database_unreachable": 0,
    }
