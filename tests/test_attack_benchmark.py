"""`benchmarks/attack.py` (issue 21's attack on a deployment; not run by the suite) still
loads — every helper it shares with the tests is where it looks for it — and reads its
arguments. The run itself takes minutes and a PostgreSQL server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLAGS = (
    "--postgres",
    "--races",
    "--mail-seconds",
    "--guesses",
    "--addresses",
    "--samples",
    "--only",
)


def test_the_attack_benchmark_loads_and_reads_its_arguments():
    script = ROOT / "benchmarks" / "attack.py"
    shown = subprocess.run(
        [sys.executable, str(script), "--help"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert all(flag in shown.stdout for flag in FLAGS)
