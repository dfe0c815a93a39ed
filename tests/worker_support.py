"""Waiting for real `cafe-server worker` processes: each logs "sweep N done" (at DEBUG) when
it finishes a sweep of the clocks, so a test that must see "nothing more happens" waits for
every worker's next sweeps instead of sleeping for a while."""

from __future__ import annotations

import re
import time
from pathlib import Path

#: The line `server.jobs.worker.Worker.run_once` logs after each sweep.
SWEEP_DONE = re.compile(r"sweep (\d+) done")
#: What a worker's environment needs for those lines: DEBUG, and a sweep every second.
SWEEP_LOGGING = {"CAFE_LOG_LEVEL": "DEBUG", "CAFE_WORKER_SWEEP": "1"}


def sweeps_done(log: Path) -> int:
    """How many sweeps the worker writing `log` (its stderr) has finished."""
    found = SWEEP_DONE.findall(log.read_text(errors="replace")) if log.exists() else []
    return int(found[-1]) if found else 0


def wait_for_further_sweeps(logs: list[Path], *, timeout: float = 60) -> None:
    """Return once every worker has finished two more sweeps (and so the outbox rounds
    between them) than when called: the first may have begun before the call, the second
    began after it, so whatever was due then has been seen."""
    wanted = {log: sweeps_done(log) + 2 for log in logs}
    deadline = time.monotonic() + timeout
    while any(sweeps_done(log) < n for log, n in wanted.items()):
        assert time.monotonic() < deadline, f"no further sweeps within {timeout} s: {wanted}"
        time.sleep(0.05)
