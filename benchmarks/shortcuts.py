"""What each speed shortcut buys (docs/speed.md): the service as shipped against the same
service without one shortcut, in the same run.

For each database (SQLite, and PostgreSQL when `--postgres` or `CAFE_TEST_DATABASE_URL`
names a server) two stores of 10 games are built as `benchmarks/server.py` builds them,
each served by its own gunicorn (2 workers × 4 threads): one as shipped, the other without
one shortcut (`benchmarks/floor_app.py`: `BENCH_WITHOUT`, or gunicorn's plain `gthread`
worker). Rounds alternate between the two; each sends, from 4 client threads, bursts of
`POST /api/games/<id>/turns` playing `--window` turns from turn 60 of four games (rewound
before each burst, an unmeasured warm-up burst first), and — for the worker, which every
request meets — bursts of `GET /api/games/<id>`.

The shortcuts, each measured only where it acts:

- `single_statement` (PostgreSQL): a turn's write as one statement outside a transaction,
  against BEGIN, its four statements one by one, COMMIT;
- `engine_cache` (both): the next turn of a game starts from the engine this process kept,
  against reading the stored position into the engine;
- `worker` (both): `server.gunicorn_config.BalancedThreadWorker`, against gunicorn's `gthread`;
- `writer_lock` (SQLite): the web's writers take turns through a lock that wakes the next
  at once, against SQLite's busy handler.

Printed per shortcut and endpoint: p50 and p99 latency and requests/s of each server, and
the per-round ratio of their throughputs (shipped / without: above 1, the shortcut helps),
its median and range.

    .venv/bin/python benchmarks/shortcuts.py [--rounds 7] [--requests 200] [--window 10]
        [--postgres URL | --sqlite-only] [--only NAME]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT), str(ROOT / "tests")]

from benchmarks import server as bench  # noqa: E402
from benchmarks.floor_app import make_floor_table  # noqa: E402

#: Each shortcut: the databases it acts on, and the gunicorn options and `BENCH_WITHOUT`
#: of the server without it.
SHORTCUTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    "single_statement": (("PostgreSQL",), (), "single_statement"),
    "engine_cache": (("SQLite", "PostgreSQL"), (), "engine_cache"),
    "worker": (("SQLite", "PostgreSQL"), ("--worker-class", "gthread"), ""),
    "writer_lock": (("SQLite",), (), "writer_lock"),
}
TURN = bench.LATE


def posts(pool: ThreadPoolExecutor, target: bench.Target, requests: int, window: int) -> None:
    """Turns from `TURN` on the measured games, `requests` in all, each burst warmed up."""
    games = target.games[TURN]
    played = bench.Sample()
    for _ in range(max(1, -(-requests // (len(games) * window)))):
        bench.rewind(target, games)
        bench.burst(pool, target.port, [g.posts(target.tokens, 1) for g in games], bench.Sample())
        bench.rewind(target, games)
        bench.burst(pool, target.port, [g.posts(target.tokens, window) for g in games], played)
    target.sample("post").add_round(played)


def gets(pool: ThreadPoolExecutor, target: bench.Target, requests: int) -> None:
    """`GET /api/games/<id>` of the measured games as each of their players in turn."""
    games = target.games[TURN]
    viewers = [{"Authorization": f"Bearer {target.tokens[name]}"} for name in bench.PLAYERS]
    calls: list[bench.Call] = [
        ("GET", f"/api/games/{games[i % len(games)].game_id}", None, viewers[i % len(viewers)])
        for i in range(requests)
    ]
    bench.warmed_burst(pool, target, calls, "get")


def compare(name: str, shipped: bench.Target, without: bench.Target) -> None:
    """Print both servers' figures and the per-round throughput ratios."""
    for key in sorted(shipped.samples, reverse=True):
        ours, theirs = shipped.samples[key], without.samples[key]
        found = [a / b for a, b in zip(ours.bursts, theirs.bursts, strict=True)]
        cells = "".join(
            f"  {label}: p50 {s.quantile(0.5) * 1e3:6.2f} ms, p99 {s.quantile(0.99) * 1e3:6.2f}"
            f" ms, {s.rate:6.1f}/s"
            for label, s in (("shipped", ours), ("without", theirs))
        )
        print(
            f"  {name:17}{key:5}{cells}\n{'':24}throughput shipped / without: median "
            f"{statistics.median(found):.2f} (rounds {min(found):.2f}–{max(found):.2f})"
        )


def bench_backend(
    label: str, admin_url: str | None, args: argparse.Namespace, trajectories: list
) -> None:
    """Every shortcut that acts on this database, against the server as shipped."""
    names = [n for n, (where, _, _) in SHORTCUTS.items() if label in where and n in args.only]
    if not names:
        return
    with (
        tempfile.TemporaryDirectory(prefix="cafe-shortcuts-") as tmp,
        ThreadPoolExecutor(bench.CLIENT_THREADS) as pool,
        ExitStack() as stack,
    ):
        workdir = Path(tmp)
        targets = []
        for side in ("shipped", "without"):
            url = stack.enter_context(bench.fresh_database(admin_url, workdir, side))
            store = bench.Store(url)
            stack.callback(store.close)
            make_floor_table(store.engine)
            games, tokens = bench.build_store(store, trajectories, 10)
            targets.append((url, bench.Target(side, 0, store, games, tokens)))
        (shipped_url, shipped), (without_url, _) = targets
        shipped.port = stack.enter_context(bench.gunicorn(shipped_url, workdir / "shipped.log"))
        print(f"\n{label}: gunicorn 2 workers × 4 threads, {bench.CLIENT_THREADS} client "
              f"threads, {args.rounds} rounds, turns from turn {TURN}")  # fmt: skip
        for name in names:
            _, options, switch = SHORTCUTS[name]
            shipped.samples.clear()
            without = bench.Target(name, 0, targets[1][1].store, targets[1][1].games,
                                   targets[1][1].tokens)  # fmt: skip
            log = workdir / f"{name}.log"
            with bench.gunicorn(without_url, log, options=options, without=switch) as port:
                without.port = port
                for _ in range(args.rounds):
                    for target in (shipped, without):
                        posts(pool, target, args.requests, args.window)
                        if name == "worker":
                            gets(pool, target, args.requests)
            compare(name, shipped, without)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds per shortcut (7)")
    parser.add_argument("--requests", type=int, default=200, help="requests per burst (200)")
    parser.add_argument("--window", type=int, default=10, help="turns each burst plays (10)")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("CAFE_TEST_DATABASE_URL"),
        help="PostgreSQL server to create the databases on (default: $CAFE_TEST_DATABASE_URL)",
    )
    parser.add_argument("--sqlite-only", action="store_true", help="skip PostgreSQL")
    parser.add_argument(
        "--only", action="append", choices=SHORTCUTS, help="measure only this shortcut"
    )
    args = parser.parse_args()
    args.only = args.only or list(SHORTCUTS)
    started = time.perf_counter()
    trajectories = [bench.play_trajectory(number) for number in range(bench.TRAJECTORIES)]
    bench_backend("SQLite", None, args, trajectories)
    if args.postgres and not args.sqlite_only:
        bench_backend("PostgreSQL", args.postgres, args, trajectories)
    print(f"\n(whole run {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
