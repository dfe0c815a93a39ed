"""`benchmarks/load.py` (issue 25's load test of the whole deployment) loads — every helper
it shares with the tests is where it looks for it, Locust is installed — and its `--help`
documents every knob. The run itself is `tests/e2e/test_e2e_load.py` (short) or minutes."""

from __future__ import annotations

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
