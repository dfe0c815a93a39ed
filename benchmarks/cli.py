"""CLI start-up benchmark: `cafe --help` and `cafe show ID` against `python -c "import typer"`.

Starts a real service (gunicorn on loopback over a temporary SQLite file), signs two
players in and plays a few turns so that the board is not empty, then runs the three
commands as a player does — fresh processes, the installed `cafe` console script —
interleaved round by round so that load on the machine hits all three alike. Prints the
median and 90th percentile wall times, the ratios to the floor and the issue's targets
(`cafe --help` ≤ 1.5×, `cafe show` ≤ 2.5× the floor), and, as a steadier second figure on
a busy machine, the median CPU time (user + system) of each process. Bytecode is cached as
in any installation (under a temporary `PYTHONPYCACHEPREFIX`), whatever
`PYTHONDONTWRITEBYTECODE` says.

    .venv/bin/python benchmarks/cli.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import os
import resource
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

BIN = Path(sys.executable).parent
TARGETS = {"cafe --help": 1.5, "cafe show": 2.5}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def environment(database: Path) -> dict[str, str]:
    """The settings of the service and its commands on `database`."""
    return {
        **os.environ,
        "CAFE_DATABASE_URL": f"sqlite:///{database}",
        "CAFE_LOG_LEVEL": "WARNING",
        "CAFE_SECRET_KEY": secrets.token_urlsafe(48),
    }


@contextmanager
def service(workdir: Path) -> Iterator[tuple[str, Path]]:
    """A migrated SQLite database and gunicorn serving it; yields (base URL, database)."""
    database = workdir / "bench.db"
    env = environment(database)
    subprocess.run([BIN / "cafe-server", "db", "upgrade"], env=env, check=True, capture_output=True)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", "2", "--bind", f"127.0.0.1:{port}",
         "server.app:create_app()"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{base}/healthz", timeout=5).ok:
                    break
            except requests.RequestException:  # still booting
                time.sleep(0.1)
        else:
            raise RuntimeError("gunicorn did not start")
        yield base, database
    finally:
        process.terminate()
        process.wait(timeout=10)


def sign_in(base: str, database: Path, name: str) -> str:
    """Register `name` and have the operator's command issue a token (the sign-in email's
    code exists only once a worker renders it, and none runs here)."""
    email = f"{name}@example.com"
    requests.post(f"{base}/api/players", json={"name": name, "email": email}, timeout=10)
    issued = subprocess.run(
        [BIN / "cafe-server", "tokens", "create", name],
        env=environment(database),
        check=True,
        capture_output=True,
        text=True,
    )
    return issued.stdout.strip()


def game_in_play(base: str, database: Path, turns: int = 8) -> tuple[int, str]:
    """A started two-player game with `turns` turns played; its id and a player's token."""
    tokens = {name: sign_in(base, database, name) for name in ("ann", "bob")}

    def call(method: str, path: str, name: str, **kwargs: object) -> dict:
        headers = {"Authorization": f"Bearer {tokens[name]}"}
        return requests.request(method, base + path, headers=headers, timeout=10, **kwargs).json()

    game_id = call("POST", "/api/games", "ann", json={"seats": 2})["id"]
    call("POST", f"/api/games/{game_id}/join", "bob")
    state = call("POST", f"/api/games/{game_id}/start", "ann")
    for _ in range(turns):
        mover = state["to_move"]
        best = call("GET", f"/api/games/{game_id}/hints?n=1", mover)["hints"][0]["turn"]
        call("POST", f"/api/games/{game_id}/turns", mover,
             json={"turn": best, "version": state["version"]})  # fmt: skip
        state = call("GET", f"/api/games/{game_id}", "ann")
    return game_id, tokens["ann"]


def run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh process running `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="runs of each command")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir, service(Path(workdir)) as (base, database):
        game_id, token = game_in_play(base, database)
        env = {
            **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
            # bytecode cached as in any installation (kept out of the source tree)
            "PYTHONPYCACHEPREFIX": str(Path(workdir) / "pycache"),
            "CAFE_CONFIG_DIR": str(Path(workdir) / "config"),
            "CAFE_SERVER": base,
            "CAFE_TOKEN": token,
        }
        commands = {
            'python -c "import typer"': [sys.executable, "-c", "import typer"],
            "cafe --help": [str(BIN / "cafe"), "--help"],
            "cafe show": [str(BIN / "cafe"), "show", str(game_id)],
        }
        for command in commands.values():  # warm the file cache and .pyc files
            run(command, env)
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, command in commands.items():
                wall, cpu = run(command, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
    floor_name = next(iter(commands))
    floor = statistics.median(walls[floor_name])
    floor_cpu = statistics.median(cpus[floor_name])
    print(f"{args.rounds} interleaved rounds; game {game_id} after 8 turns, gunicorn on loopback")
    print(
        f"{'command':<28}{'median':>9}{'p90':>9}{'ratio':>8}{'target':>8}  {'cpu':>8}{'ratio':>7}"
    )
    for name in commands:
        median, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        target = TARGETS.get(name)
        verdict = "" if target is None else ("  ok" if median / floor <= target else "  MISSED")
        print(
            f"{name:<28}{median * 1000:>7.0f}ms{percentile(walls[name], 0.9) * 1000:>7.0f}ms"
            f"{median / floor:>7.2f}×{f'≤{target}×' if target else '':>8}  "
            f"{cpu * 1000:>6.0f}ms{cpu / floor_cpu:>6.2f}×{verdict}"
        )


if __name__ == "__main__":
    main()
