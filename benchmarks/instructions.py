"""Instructions per request of POST turn and of the one-insert floor, counted by callgrind.

Wall time and even CPU time move with whatever else the machine runs; the number of
instructions the service executes for a request does not, so it shows a change of a few
per cent that `benchmarks/server.py` cannot. This script stores the games that benchmark
measures (10 games, `build_store`), then runs the app (`benchmarks/floor_app.py`) in a
child process under `valgrind --tool=callgrind`, which calls it straight through WSGI —
no gunicorn, no sockets: each request's environ is built before the count starts — and
counts:

- turns: `--window` turns from turn 60 of each of four games (the games played once
  and rewound first, so the engine cache and the statements are warm as in a server; the
  first measured turn of each game reads its position, as in `benchmarks/server.py`);
- floor: as many `POST /bench/floor` requests, after as many unmeasured ones.

The child marks the edges of each measured part by calling `os.getpgrp()`, which nothing
else in it calls, and callgrind dumps its counters as it enters CPython's `os_getpgrp`
(`--dump-before=os_getpgrp`); a run whose dumps do not line up with the marks is refused.
The database server's instructions are not counted (on SQLite there is none: the database
runs in the process).

    .venv/bin/python benchmarks/instructions.py [--window 10] [--keep DIR]
        [--postgres URL | --sqlite-only]

`--keep DIR` keeps callgrind's dumps there (`callgrind_annotate DIR/sqlite/callgrind.out.2`
lists the turns' instructions by function).

About a minute per database on two cores (the child runs some fifty times slower under
callgrind).
"""

from __future__ import annotations

import argparse
import io
import os
import pickle
import re
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT), str(ROOT / "tests")]

from benchmarks import server as bench  # noqa: E402
from benchmarks.floor_app import make_floor_table  # noqa: E402

MARK = "os_getpgrp"  # CPython's `os.getpgrp`, whose calls mark the measured parts' edges
PARTS = 5  # setup | turns | floor warm-up | floor | the rest: four marks, five dumps


def mark() -> None:
    """An edge of a measured part: callgrind dumps its counters here."""
    os.getpgrp()


def child(plan_path: Path) -> None:
    """Under callgrind: warm up, then the marked parts (turns, floor warm-up, floor)."""
    from werkzeug.test import EnvironBuilder

    from benchmarks.floor_app import create_bench_app

    plan = pickle.loads(plan_path.read_bytes())
    store = bench.Store(plan["url"])
    games: list[bench.Measured] = plan["games"]
    app = create_bench_app()

    def environ(call: bench.Call) -> dict[str, Any]:
        method, path, body, headers = call
        built = EnvironBuilder(path=path, method=method, data=body, headers=headers)
        found = built.get_environ()
        found["wsgi.input"] = io.BytesIO(body or b"")
        return found

    status: list[str] = []

    def start_response(said: str, _headers: Any, _error: Any = None) -> None:
        status.append(said)

    def send(environs: list[dict[str, Any]]) -> None:
        for found in environs:
            status.clear()
            answer = app(found, start_response)
            payload = b"".join(answer)
            getattr(answer, "close", lambda: None)()
            if not status[0].startswith(("200", "201")):
                raise bench.BenchError(f"{status[0]}: {payload[:300]!r}")

    def turns() -> list[dict[str, Any]]:
        """The window's turns of every game, game by game turn by turn (each turn one
        game's next), ready to send."""
        rounds = [game.posts(plan["tokens"], plan["window"]) for game in games]
        return [environ(calls[i]) for i in range(plan["window"]) for calls in rounds]

    bench.rewind(bench.Target("", 0, store, {}, plan["tokens"]), games)
    send(turns())
    bench.rewind(bench.Target("", 0, store, {}, plan["tokens"]), games)
    measured = turns()
    floor: bench.Call = ("POST", "/bench/floor", b"{}", {"Content-Type": "application/json"})
    warm_floor = [environ(floor) for _ in measured]
    floors = [environ(floor) for _ in measured]
    mark()
    send(measured)
    mark()
    send(warm_floor)
    mark()
    send(floors)
    mark()
    store.close()


def totals(out_dir: Path) -> list[int]:
    """The instructions of each dump callgrind wrote, in order (the numbered dumps, then
    the one at the exit)."""
    numbered = sorted(out_dir.glob("callgrind.out.*"), key=lambda p: int(p.suffix[1:]))
    parts = [*numbered, out_dir / "callgrind.out"]
    found = []
    for part in parts:
        text = part.read_text(errors="replace")
        total = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
        found.append(int(total.group(1)) if total else 0)
    return found


def count(
    label: str, admin_url: str | None, window: int, trajectories: list[Any], keep: Path | None
) -> None:
    """Store the games on one database kind, run the child under callgrind, print (and
    keep the dumps in `keep / label`)."""
    with tempfile.TemporaryDirectory(prefix="cafe-instructions-") as tmp:
        workdir = Path(tmp)
        with bench.fresh_database(admin_url, workdir, "instructions") as url:
            store = bench.Store(url)
            make_floor_table(store.engine)
            games, tokens = bench.build_store(store, trajectories, 10)
            store.close()
            plan = {"url": url, "games": games[bench.LATE], "tokens": tokens, "window": window}
            plan_path = workdir / "plan.pickle"
            plan_path.write_bytes(pickle.dumps(plan))
            out_dir = workdir / "callgrind" if keep is None else keep / label.lower()
            out_dir.mkdir(parents=True, exist_ok=True)
            for old in out_dir.glob("callgrind.out*"):
                old.unlink()
            env = {**os.environ, "CAFE_DATABASE_URL": url, "CAFE_SECRET_KEY": secrets.token_hex(16)}
            subprocess.run(
                ["valgrind", "--tool=callgrind", f"--dump-before={MARK}",
                 f"--callgrind-out-file={out_dir / 'callgrind.out'}",
                 sys.executable, __file__, "--child", str(plan_path)],
                cwd=ROOT, env=env, check=True, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            found = totals(out_dir)
    if len(found) != PARTS:
        raise bench.BenchError(f"{len(found)} dumps, not {PARTS}: {MARK} was called elsewhere")
    requests = window * len(games[bench.LATE])
    turn, floor = found[1] / requests, found[3] / requests
    print(
        f"{label}: {requests} requests each — POST turn {turn / 1e6:.3f} M instructions, "
        f"floor {floor / 1e6:.3f} M, floor / turn {floor / turn:.1%}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=int, default=10, help="turns counted per game (10)")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("CAFE_TEST_DATABASE_URL"),
        help="PostgreSQL server to create the database on (default: $CAFE_TEST_DATABASE_URL)",
    )
    parser.add_argument("--sqlite-only", action="store_true", help="skip PostgreSQL")
    parser.add_argument("--keep", type=Path, help="keep callgrind's dumps in this folder")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child)
        return
    trajectories = [bench.play_trajectory(number) for number in range(bench.MEASURED)]
    count("SQLite", None, args.window, trajectories, args.keep)
    if args.postgres and not args.sqlite_only:
        count("PostgreSQL", args.postgres, args.window, trajectories, args.keep)


if __name__ == "__main__":
    main()
