"""`benchmarks/load.py` (issue 25's load test of the whole deployment) loads — every helper
it shares with the tests is where it looks for it, Locust is installed — and its `--help`
documents every knob. The run itself is `tests/e2e/test_e2e_load.py` (short) or minutes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KNOBS = (
    "--games",
    "--players",
    "--web",
    "--threads",
    "--workers",
    "--turn-rate",
    "--duration",
    "--database-url",
    "--output",
    "--fault",
    "--kills",
    "--kill-every",
    "--seed",
)


def test_the_load_benchmark_loads_and_documents_its_knobs():
    shown = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "load.py"), "--help"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    missing = [knob for knob in KNOBS if knob not in shown.stdout]
    assert not missing, shown.stdout
    assert all(fault in shown.stdout for fault in ("worker-kill", "web-kill", "pg-terminate"))


def test_the_load_benchmark_refuses_to_kill_every_worker():
    refused = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "load.py"),
            "--fault",
            "worker-kill",
            "--workers",
            "2",
            "--kills",
            "2",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2
    assert "--kills 2 would leave none of the 2 workers" in refused.stderr


def test_the_load_benchmark_refuses_to_drop_a_database_it_does_not_own():
    """The run drops its database first: never PostgreSQL's own, nor the one the tests make
    their scratch databases from."""
    for database in ("postgres", "template1", "shared_admin"):
        refused = subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "load.py"),
             "--database-url", f"postgresql+psycopg://nobody@127.0.0.1:1/{database}"],
            check=False, capture_output=True, text=True, timeout=60,
            env={**os.environ,
                 "CAFE_TEST_DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/shared_admin"},
        )  # fmt: skip
        assert refused.returncode == 2, refused.stderr
        assert f"names {database!r}, which this script would drop" in refused.stderr


def test_the_report_reads_each_kinds_time_in_the_service_from_the_web_log(tmp_path: Path):
    sys.path.insert(0, str(ROOT))
    from benchmarks.load_report import service_times

    log = tmp_path / "gunicorn.log"
    stamp = "2026-12-03 19:00:00,000 INFO [abc] server.request:"
    lines = [
        *(f"{stamp} GET /api/games/{n} 200 {n}.0ms player=7" for n in range(1, 101)),
        f"{stamp} GET /api/games/5/hints 200 3.5ms player=7",
        f"{stamp} POST /api/games/5/turns 201 40.0ms player=7",
        f"{stamp} POST /api/games/5/turns 409 2.0ms player=7",  # a race lost: not a turn's time
        f"{stamp} GET /api/games 304 1.5ms player=7",
        f"{stamp} GET /games/5 200 25.0ms player=-",
        "[2026-12-03 19:00:00 +0000] [12] [INFO] Booting worker with pid: 12",
    ]
    log.write_text("\n".join(lines) + "\n")
    found = service_times(log)
    assert found["GET state"] == {
        "count": 100,
        "p50_ms": 51.0,
        "p95_ms": 96.0,
        "p99_ms": 100.0,
        "max_ms": 100.0,
    }
    assert found["POST turn"]["count"] == 1 and found["POST turn"]["max_ms"] == 40.0
    assert {kind: row["count"] for kind, row in found.items()} == {
        "GET state": 100,
        "GET hints": 1,
        "POST turn": 1,
        "GET list": 1,
        "GET page": 1,
    }


def test_the_locust_overhead_benchmark_loads_and_documents_its_knobs():
    shown = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "locust_overhead.py"), "--help"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert all(knob in shown.stdout for knob in ("--users", "--rate", "--rounds", "--path"))
