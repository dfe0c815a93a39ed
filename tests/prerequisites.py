"""What `make test` needs beyond the Python packages, settled before the suite runs.

The browser tests drive Debian's Chromium (`/usr/bin/chromium`) and fetch axe-core with
`npm`; the serving test runs nginx in front of gunicorn; with `CAFE_TEST_DATABASE_URL` set,
the tests also run on that PostgreSQL server, once through PgBouncer in front of it. Each
missing program is installed through the system's package manager where that can be done
here (`apt-get`, as root); otherwise, and for a database that does not answer, this stops
at once with one line saying what to install or start — instead of a wall of failing tests.

    python tests/prerequisites.py      (`make test` runs it; exit 1 when something is missing)
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Need:
    """A program the tests use: what for, its Debian package, where the tests look for it
    (exact paths, or commands on `PATH`)."""

    what: str
    package: str
    paths: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()

    def present(self) -> bool:
        return any(Path(path).exists() for path in self.paths) or any(
            shutil.which(command) for command in self.commands
        )


NEEDS = (
    Need("Chromium for the browser tests", "chromium", paths=("/usr/bin/chromium",)),
    Need("npm, which fetches axe-core for the browser tests", "npm", commands=("npm",)),
    Need("nginx for the serving test", "nginx", commands=("nginx",),
         paths=("/usr/sbin/nginx", "/usr/local/sbin/nginx")),
    Need("PgBouncer for the pooled-database test", "pgbouncer", commands=("pgbouncer",),
         paths=("/usr/sbin/pgbouncer",)),
)  # fmt: skip

#: How a process is run: `subprocess.run`, or a stand-in in the tests.
Runner = Callable[..., subprocess.CompletedProcess[str]]


def install(packages: Sequence[str], apt_get: str, run: Runner) -> str | None:
    """Install `packages` with `apt-get`, quietly; what went wrong, or None."""
    quiet = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in ([apt_get, "update", "-qq"], [apt_get, "install", "-y", "-qq", *packages]):
        done = run(command, capture_output=True, text=True, env=quiet, check=False)
        if done.returncode != 0:
            said = (done.stderr or done.stdout or "").strip().splitlines()
            return said[-1] if said else f"exit status {done.returncode}"
    return None


def ensure(
    needs: Sequence[Need],
    *,
    root: bool,
    apt_get: str | None,
    run: Runner = subprocess.run,
    say: Callable[[str], None] = print,
) -> int:
    """Make every need present if it can be; 0 when all are, else 1 after one line."""
    absent = [need for need in needs if not need.present()]
    if not absent:
        return 0
    packages = [need.package for need in absent]
    if root and apt_get:
        say(f"make test: installing {' '.join(packages)} with apt-get")
        problem = install(packages, apt_get, run)
        if problem is None:
            absent = [need for need in needs if not need.present()]
            if not absent:
                return 0
            problem = f"{', '.join(n.package for n in absent)} still missing"
        say(
            f"make test: apt-get could not install {' '.join(packages)} ({problem}); "
            "install them and run make test again"
        )
        return 1
    whom = " and ".join(need.what for need in absent)
    say(
        f"make test needs {whom}: install {'it' if len(absent) == 1 else 'them'} "
        f"(as root: apt-get install -y {' '.join(packages)}) and run make test again"
    )
    return 1


def database_answers(url: str, timeout: float = 3.0) -> bool:
    """Whether the server of a PostgreSQL URL accepts connections (a socket path: assumed)."""
    parts = urlsplit(url)
    if not parts.hostname:
        return True
    try:
        with socket.create_connection((parts.hostname, parts.port or 5432), timeout=timeout):
            return True
    except OSError:
        return False


def check_database(environ: Mapping[str, str], say: Callable[[str], None] = print) -> int:
    url = environ.get("CAFE_TEST_DATABASE_URL")
    if not url or database_answers(url):
        return 0
    where = urlsplit(url)
    say(
        f"make test: CAFE_TEST_DATABASE_URL names PostgreSQL at {where.hostname}:"
        f"{where.port or 5432}, which does not answer: start it, or unset the variable "
        "to test on SQLite only"
    )
    return 1


def main() -> int:
    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    geteuid = getattr(os, "geteuid", None)
    root = geteuid is not None and geteuid() == 0
    found = ensure(NEEDS, root=root, apt_get=shutil.which("apt-get"), say=say)
    return found or check_database(os.environ, say)


if __name__ == "__main__":
    sys.exit(main())
