"""What Locust adds to the latency it reports, by number of users: the same requests at the
same rate and concurrency, from Locust and from a plain gevent client, on one server.

`benchmarks/load.py` measures latency with Locust, as issue 25 asks. Below the machine's
CPU limit its figures grew with the number of Locust users, not with the rate, while the
service's own request log showed a fraction of them (docs/scaling.md). This script
separates the client's share: it serves the benchmark's store (`benchmarks/server.py`:
gunicorn as the Procfile runs it, SQLite or PostgreSQL) and sends `GET` state — or
`/healthz`, which reads nothing — at `--rate` requests a second from `N` keep-alive
connections, each at a random phase of its period, for each `N` of `--users`:

- Locust, headless, with `FastHttpUser` (as `benchmarks/load_locust.py`) and
  `constant_throughput`;
- a plain client: `N` gevent greenlets, each with one geventhttpclient connection (the
  library under `FastHttpUser`), sending on a fixed schedule.

Each round runs both, one after the other; the figures are the medians over the rounds
of each client's p50 and p99, and their ratio (Locust / plain) in the same round.

    .venv/bin/python benchmarks/locust_overhead.py [--users 4 16 50] [--rate 28]
        [--duration 15] [--rounds 3] [--path state|healthz] [--postgres URL]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    sys.path[0:1] = [str(ROOT), str(ROOT / "tests")]
else:  # imported by Locust (`-f` this file): the user it runs
    # importing Locust patches the process with gevent: only Locust's own process imports it
    from locust import FastHttpUser, constant_throughput, task

    class StateReader(FastHttpUser):
        """One of the `LO_USERS` clients: `LO_PATH` at its share of `LO_RATE`."""

        wait_time = constant_throughput(
            float(os.environ.get("LO_RATE", "1")) / int(os.environ.get("LO_USERS", "1"))
        )

        def on_start(self) -> None:
            period = int(os.environ["LO_USERS"]) / float(os.environ["LO_RATE"])
            time.sleep(random.random() * period)  # a random phase, as in load_locust.py

        @task
        def read(self) -> None:
            self.client.get(
                os.environ["LO_PATH"],
                name="read",
                headers={"Authorization": f"Bearer {os.environ['LO_TOKEN']}"},
            )


def plain_client(
    port: int, users: int, rate: float, duration: float, path: str, token: str
) -> None:
    """In its own process (gevent patches it): the same schedule without Locust; prints
    the latencies in ms as JSON."""
    from gevent import monkey  # only this process is patched

    monkey.patch_all()
    import gevent
    from geventhttpclient import HTTPClient

    latencies: list[float] = []
    period = users / rate
    stop = time.monotonic() + duration

    def user() -> None:
        client = HTTPClient("127.0.0.1", port, concurrency=1)
        headers = {"Authorization": f"Bearer {token}"}
        due = time.monotonic() + random.random() * period
        while due < stop:
            gevent.sleep(max(0.0, due - time.monotonic()))
            started = time.perf_counter()
            response = client.get(path, headers=headers)
            response.read()
            latencies.append((time.perf_counter() - started) * 1000)
            due += period

    gevent.joinall([gevent.spawn(user) for _ in range(users)])
    print(json.dumps(latencies))


def run_locust(
    port: int, users: int, args: argparse.Namespace, token: str, folder: Path
) -> tuple[float, float]:
    """Locust's p50 and p99 (ms) for `users` users."""
    prefix = folder / f"locust_{users}"
    env = {**os.environ, "LO_RATE": str(args.rate), "LO_USERS": str(users),
           "LO_PATH": args.target, "LO_TOKEN": token}  # fmt: skip
    subprocess.run(
        [sys.executable, "-m", "locust", "-f", __file__, "--headless", "-u", str(users),
         "-r", str(users), "-t", f"{args.duration}s", "--host", f"http://127.0.0.1:{port}",
         "--csv", str(prefix), "--only-summary", "--loglevel", "WARNING"],
        env=env, check=True, capture_output=True, cwd=ROOT,
    )  # fmt: skip
    with Path(f"{prefix}_stats.csv").open() as stats:
        row = next(r for r in csv.DictReader(stats) if r["Name"] == "read")
    return float(row["50%"]), float(row["99%"])


def run_plain(port: int, users: int, args: argparse.Namespace, token: str) -> tuple[float, float]:
    """The plain client's p50 and p99 (ms) for `users` connections."""
    done = subprocess.run(
        [sys.executable, __file__, "--plain", str(port), str(users), str(args.rate),
         str(args.duration), args.target, token],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    from benchmarks.load_report import percentile  # the load test's own percentiles

    latencies = json.loads(done.stdout)
    p50, p99 = percentile(latencies, 0.50), percentile(latencies, 0.99)
    if p50 is None or p99 is None:
        raise SystemExit(f"the plain client sent nothing in {args.duration} s")
    return p50, p99


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, nargs="+", default=[4, 16, 50])
    parser.add_argument("--rate", type=float, default=28, help="requests a second in all (28)")
    parser.add_argument("--duration", type=int, default=15, help="seconds per client (15)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of both clients (3)")
    parser.add_argument("--path", choices=("state", "healthz"), default="state")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("CAFE_TEST_DATABASE_URL"),
        help="PostgreSQL server to create the database on (default: $CAFE_TEST_DATABASE_URL;"
        " none: SQLite)",
    )
    parser.add_argument("--plain", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.plain:
        port, users, rate, duration, path, token = args.plain
        plain_client(int(port), int(users), float(rate), float(duration), path, token)
        return

    from benchmarks import server as bench  # not under Locust
    from benchmarks.floor_app import make_floor_table

    trajectories = [bench.play_trajectory(number) for number in range(bench.MEASURED)]
    with tempfile.TemporaryDirectory(prefix="cafe-locust-") as tmp:
        folder = Path(tmp)
        with bench.fresh_database(args.postgres, folder, "locust") as url:
            store = bench.Store(url)
            make_floor_table(store.engine)
            games, tokens = bench.build_store(store, trajectories, 10)
            store.close()
            game = games[bench.LATE][0]
            viewer = game.trajectory.states[game.start - 1]["players"][0]
            args.target = f"/api/games/{game.game_id}" if args.path == "state" else "/healthz"
            database = "PostgreSQL" if args.postgres else "SQLite"
            print(f"{database}, {args.target}, {args.rate:g} requests a second, "
                  f"{args.duration:g} s per client, {args.rounds} rounds")  # fmt: skip
            with bench.gunicorn(url, folder / "gunicorn.log") as port:
                report(port, args, tokens[viewer], folder)


def report(port: int, args: argparse.Namespace, token: str, folder: Path) -> None:
    """Both clients per number of users, round by round; the medians."""
    print(f"{'users':>5}  {'Locust p50 / p99':>18}  {'plain p50 / p99':>17}  "
          f"{'ratio p50 / p99':>15}")  # fmt: skip
    for users in args.users:
        rounds: list[dict[str, Any]] = []
        for _ in range(args.rounds):
            locust = run_locust(port, users, args, token, folder)
            plain = run_plain(port, users, args, token)
            rounds.append({"locust": locust, "plain": plain})
        med = {
            key: statistics.median(r[client][i] for r in rounds)
            for key, client, i in (("l50", "locust", 0), ("l99", "locust", 1),
                                   ("p50", "plain", 0), ("p99", "plain", 1))
        }  # fmt: skip
        ratio50 = statistics.median(r["locust"][0] / r["plain"][0] for r in rounds)
        ratio99 = statistics.median(r["locust"][1] / r["plain"][1] for r in rounds)
        print(
            f"{users:>5}  {med['l50']:>7.1f} / {med['l99']:>5.1f} ms  "
            f"{med['p50']:>6.1f} / {med['p99']:>5.1f} ms  {ratio50:>6.1f} / {ratio99:>5.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
