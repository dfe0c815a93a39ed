"""Service benchmark: GET state and POST turn against GET /healthz and a one-insert floor.

For each database (SQLite, and PostgreSQL when `--postgres` or `CAFE_TEST_DATABASE_URL`
names a server) two stores are built side by side — 10 games and 10,000 games — each in a
fresh database served by its own gunicorn (the Procfile's 2 workers × 4 threads, on
127.0.0.1). A load generator in this process (4 threads, each on one keep-alive
`http.client` connection) then runs rounds that alternate between the two servers; within
a round it sends, in bursts bounded in count and time:

- `GET /healthz`, the trivial endpoint the reads are compared with;
- `POST /bench/floor`, the least a write can cost: one row inserted and committed durably
  by a route of the same app and process model (`benchmarks/floor_app.py`, which exists
  only for this benchmark), the floor the turns are compared with;
- `GET /api/games/<id>` for four games standing before turn 2 and four before turn 60,
  as each of their players in turn (the creator and the others);
- `POST /api/games/<id>/turns` (with an `Idempotency-Key`, as the `cafe` client sends)
  playing `--window` turns from turn 2 of four games and from turn 60 of four others, one
  client thread per game, so nothing conflicts; the games are rewound and played again
  until the round has sent as many turns as the other bursts sent requests, so each
  round's figure stands on as many requests as theirs.

Every measured burst follows an unmeasured warm-up burst of the same requests (for the
turns: one turn per game, then the games are set back again). Before each burst the eight
measured games are rewound (snapshot, version and log set back), so every burst plays the
same legal turns from the same positions. Alternating the servers round by round means a
busy moment on the machine hits both stores alike.

Games are written straight into the server's tables (rows completed with its models'
defaults) rather than through 10,000 rounds of HTTP calls: the game states come from a few
games played offline with the engine, by a seeded bot that seats one guest per turn where
it can, so that games run past 80 turns and turn 60 exists. The 10,000 stored games are
copies of eight such games under other players' names (1,000 players), stopped at random
turns (finished when played out), each with its seats and turn log — written exactly as the
service would have left them, so they replay; their old emails and idempotency keys are
not written.
PostgreSQL gets an `ANALYZE` after the bulk load, as autovacuum would soon run one; SQLite
gets none, as the service never runs one.

Printed: requests/s (requests over the bursts' wall time), p50 and p99 latency and the
web processes' CPU time per request (utime + stime of gunicorn's master and workers, read
from `/proc/<pid>/stat` before and after each measured burst; the database server's CPU
is not in it), the per-round ratios by throughput and by CPU time (median and spread), and
the issue's targets — POST turn ≥ 40 % of the floor's throughput with p99 ≤ 3 × its median,
GET state ≥ 60 % of /healthz's, turn 60 / turn 2 ≤ 1.3 and 10,000 / 10 games ≤ 1.3
(cost = 1 / throughput). The ratios to the floor and to /healthz are medians of the
rounds' ratios, each by throughput and by CPU time (the floor's CPU ms per request over
the turn's); on a shared machine the CPU-time ratio is the steadier of the two, since
another job's load stretches wall time but not the CPU time a request costs.

    .venv/bin/python benchmarks/server.py [--rounds 15] [--requests 300] [--window 10]
        [--games 10000] [--postgres URL | --sqlite-only]

A full run takes about four minutes on two cores; `--rounds 3 --games 1000 --sqlite-only`
gives a rough picture in half a minute.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's directory comes first on sys.path, and `import server`
# would import this very file instead of the service; `tests/` holds postgres_support.
sys.path[0:1] = [str(ROOT), str(ROOT / "tests")]

from postgres_support import scratch_postgres  # noqa: E402
from sqlalchemy import (  # noqa: E402
    Engine,
    Insert,
    Integer,
    bindparam,
    delete,
    insert,
    select,
    text,
    update,
)
from sqlmodel import Session, SQLModel  # noqa: E402

from benchmarks.floor_app import make_floor_table  # noqa: E402
from cafe import Game, Options  # noqa: E402
from cafe.notation import TurnKind  # noqa: E402
from server import migrate  # noqa: E402
from server.auth import issue_token  # noqa: E402
from server.db import make_engine  # noqa: E402
from server.games.turns import result_detail  # noqa: E402
from server.models import GameRecord, GameSeat, Player, TurnRecord  # noqa: E402

PLAYERS = ("ann", "bob", "cid", "dan")  # the players of the measured games
EARLY, LATE = 2, 60  # the turns whose cost is compared
MEASURED = 4  # games per phase; one client thread each
TRAJECTORIES = 8  # distinct offline games the stored games are copied from
GAMES_PER_PLAYER = 40  # of the bulk-loaded players, on average
CLIENT_THREADS = 4
BURST_SECONDS = 10.0  # no burst runs longer, whatever its request count
CLOCK_TICK = 1 / os.sysconf("SC_CLK_TCK")  # seconds per tick of /proc/<pid>/stat's times

TARGETS = {"post": 0.40, "get": 0.60, "turn": 1.3, "games": 1.3, "tail": 3.0}
WARM_UP = 0.1  # of a burst's requests, sent unmeasured before it


class BenchError(RuntimeError):
    """The service answered something a correct service would not."""


# --- games played offline --------------------------------------------------------------


@dataclass(frozen=True)
class Trajectory:
    """A whole four-player game: the snapshot after each turn and each turn's log row."""

    seed: bytes
    commitment: str
    states: list[dict[str, Any]]  # states[k]: the snapshot after k turns
    log: list[dict[str, Any]]  # log[k - 1]: the `turns` row of turn k, without game_id
    standings: list[dict[str, Any]]

    @property
    def length(self) -> int:
        return len(self.log)


def play_trajectory(number: int) -> Trajectory:
    """Game `number` of a seeded bot that seats a single guest whenever it can."""
    rng = random.Random(number)
    seed = number.to_bytes(32, "big")
    game = Game.new(list(PLAYERS), seed=seed, options=Options())
    states, log = [game.to_position()], []
    created = datetime.now(UTC)
    while not game.is_over:
        turns = game.legal_turns()
        singles = [t for t in turns if t.kind is TurnKind.SEAT and len(t.placements) == 1]
        seat = game.to_move
        result = game.play(rng.choice(singles or turns))
        row = TurnRecord(
            game_id=0,
            number=len(log) + 1,
            seat=seat,
            notation=result.notation,
            submitted=result.notation,
            points=result.points,
            detail=result_detail(result),
            created_at=created,
        )
        log.append(row.model_dump(exclude={"id", "game_id"}))
        states.append(game.to_position())
    fields = ("place", "player", "score", "penalty", "final", "eliminated")
    standings = [{name: getattr(s, name) for name in fields} for s in game.standings()]
    return Trajectory(seed, game.commitment, states, log, standings)


def renamed(names: list[str]) -> dict[str, str]:
    """The renaming of a trajectory's players to `names` that keeps it replayable.

    The seat order is a shuffle of the names sorted by code point, so sorted names map to
    sorted names.
    """
    return dict(zip(sorted(PLAYERS), sorted(names), strict=True))


# --- the store ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Stored:
    """A game to store: a trajectory stopped after `turns` turns, its players renamed.

    Its log is written row by row, or, when `template` names a stored game with the
    trajectory's whole log, copied from that game inside the database (much faster).
    """

    trajectory: Trajectory
    turns: int
    names: dict[str, str]
    template: int | None = None


def defaults(model: type[SQLModel], **required: Any) -> dict[str, Any]:
    """A row of `model` with every default filled in, so columns added later still get one."""
    return model(**required).model_dump(exclude={"id"})


def game_rows(
    game: Stored, player_ids: dict[str, int], base: dict[str, Any], seat_base: dict[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The `games` row of `game` and its `game_seats` rows (without the game's id)."""
    trajectory, names = game.trajectory, game.names
    state = dict(trajectory.states[game.turns])
    state["players"] = [names[p] for p in state["players"]]
    finished = game.turns == trajectory.length
    now = datetime.now(UTC)
    row = {
        **base,
        "creator_id": player_ids[names[PLAYERS[0]]],
        "status": "finished" if finished else "active",
        "options": Options().to_dict(),
        "version": len(PLAYERS) + game.turns,  # created, three joins, started, one per turn
        "turn_count": game.turns,
        "seed_hex": trajectory.seed.hex(),
        "commitment": trajectory.commitment,
        "state": state,
        "standings": (
            [{**s, "player": names[s["player"]]} for s in trajectory.standings]
            if finished
            else None
        ),
        "started_at": now,
        "finished_at": now if finished else None,
    }
    seats = [
        {
            **seat_base,
            "player_id": player_ids[names[name]],
            "join_order": order,
            "seat": state["players"].index(names[name]),
        }
        for order, name in enumerate(PLAYERS)
    ]
    return row, seats


class Store:
    """A benchmark database, written directly with the server's tables."""

    def __init__(self, url: str) -> None:
        self.engine: Engine = make_engine(url)
        self.player_ids: dict[str, int] = {}
        self.game_base = defaults(GameRecord, creator_id=0, seats=len(PLAYERS))
        self.seat_base = defaults(GameSeat, game_id=0, player_id=0, join_order=0)

    def add_players(self, names: list[str]) -> None:
        base = defaults(Player, name="", email="")
        rows = [{**base, "name": name, "email": f"{name}@example.com"} for name in names]
        table = Player.__table__
        with self.engine.begin() as connection:
            ids = connection.scalars(
                insert(table).returning(table.c.id, sort_by_parameter_order=True), rows
            ).all()
        self.player_ids.update(zip(names, ids, strict=True))

    def tokens(self, names: tuple[str, ...]) -> dict[str, str]:
        """A new API token for each of `names`."""
        with Session(self.engine) as session:
            found = {
                name: issue_token(
                    session, player=session.get_one(Player, self.player_ids[name]), label="bench"
                )[1]
                for name in names
            }
            session.commit()
        return found

    def add_games(self, games: list[Stored]) -> list[int]:
        """Store the games with their seats and logs; their ids."""
        rows = [game_rows(game, self.player_ids, self.game_base, self.seat_base) for game in games]
        table = GameRecord.__table__
        with self.engine.begin() as connection:
            ids = connection.scalars(
                insert(table).returning(table.c.id, sort_by_parameter_order=True),
                [row for row, _ in rows],
            ).all()
            seats = [
                {**seat, "game_id": game_id}
                for game_id, (_, game_seats) in zip(ids, rows, strict=True)
                for seat in game_seats
            ]
            connection.execute(insert(GameSeat.__table__), seats)
            written = [
                {**entry, "game_id": game_id}
                for game_id, game in zip(ids, games, strict=True)
                if game.template is None
                for entry in game.trajectory.log[: game.turns]
            ]
            if written:
                connection.execute(insert(TurnRecord.__table__), written)
            copied = [
                {"new_id": game_id, "template": game.template, "turns": game.turns}
                for game_id, game in zip(ids, games, strict=True)
                if game.template is not None
            ]
            if copied:
                connection.execute(copy_log_statement(), copied)
        return list(ids)

    def rewind(self, game_id: int, trajectory: Trajectory, turns: int) -> None:
        """Set a measured game (of PLAYERS) back to where it stood after `turns` turns."""
        with self.engine.begin() as connection:
            connection.execute(
                update(GameRecord.__table__)
                .where(GameRecord.__table__.c.id == game_id)
                .values(
                    state=trajectory.states[turns],
                    version=len(PLAYERS) + turns,
                    turn_count=turns,
                    status="active",
                    standings=None,
                    finished_at=None,
                )
            )
            turns_table = TurnRecord.__table__
            connection.execute(
                delete(turns_table).where(
                    turns_table.c.game_id == game_id, turns_table.c.number > turns
                )
            )

    def analyze(self) -> None:
        """Planner statistics, as autovacuum keeps them on PostgreSQL (SQLite keeps none)."""
        if self.engine.dialect.name == "postgresql":
            with self.engine.begin() as connection:
                connection.execute(text("ANALYZE"))

    def close(self) -> None:
        self.engine.dispose()


def copy_log_statement() -> Insert:
    """`INSERT INTO turns … SELECT`: the first `turns` entries of game `template`'s log,
    as the log of game `new_id`."""
    table = TurnRecord.__table__
    names = [c.name for c in table.c if c.name not in ("id", "game_id")]
    source = select(bindparam("new_id", type_=Integer), *(table.c[n] for n in names)).where(
        table.c.game_id == bindparam("template"), table.c.number <= bindparam("turns")
    )
    return insert(table).from_select(["game_id", *names], source)


def bulk_games(store: Store, trajectories: list[Trajectory], count: int, seed: int) -> None:
    """`count` games of bulk-loaded players: each trajectory once, played out, then copies
    of them stopped at random turns, stored 1,000 at a time."""
    rng = random.Random(seed)
    seats = len(PLAYERS)
    pool = [f"p{i:05d}" for i in range(max(seats, count * seats // GAMES_PER_PLAYER))]
    store.add_players(pool)

    def names(number: int) -> dict[str, str]:
        return renamed([pool[(number * seats + i) % len(pool)] for i in range(seats)])

    originals = [Stored(t, t.length, names(n)) for n, t in enumerate(trajectories[:count])]
    templates = store.add_games(originals)
    copies = []
    for number in range(len(originals), count):
        which = number % len(trajectories)
        trajectory = trajectories[which]
        turns = rng.randint(0, trajectory.length)
        copies.append(Stored(trajectory, turns, names(number), templates[which]))
    for first in range(0, len(copies), 1000):
        store.add_games(copies[first : first + 1000])


# --- databases and servers ---------------------------------------------------------------


@contextmanager
def fresh_database(admin_url: str | None, workdir: Path, label: str) -> Iterator[str]:
    """A new, migrated database: a SQLite file in `workdir`, or one on PostgreSQL's server."""
    if admin_url is None:
        url = f"sqlite:///{workdir / f'{label}.db'}"
        migrate.upgrade(url)
        yield url
        return
    with scratch_postgres(admin_url, f"cafe_bench_{label}") as url:
        yield url


#: The master process of each running benchmark server, by port (`gunicorn`), whose CPU
#: time `burst` measures.
SERVER_PIDS: dict[int, int] = {}


def process_cpu(pid: int) -> float:
    """The CPU seconds (user + system) process `pid` has used, all its threads included."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:  # a worker that exited between listing and reading
        return 0.0
    return (int(fields[11]) + int(fields[12])) * CLOCK_TICK  # utime, stime (fields 14, 15)


def server_cpu(port: int) -> float:
    """The CPU seconds used so far by the server on `port`: its master and its workers."""
    master = SERVER_PIDS.get(port)
    if master is None:
        return 0.0
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return process_cpu(master) + sum(process_cpu(int(child)) for child in children)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def gunicorn(
    url: str, log_path: Path, *, options: tuple[str, ...] = (), without: str = ""
) -> Iterator[int]:
    """The service as the Procfile runs it, on 127.0.0.1 over `url`; yields its port.
    `options`: more gunicorn options; `without`: a shortcut the app goes without
    (`benchmarks/floor_app.py`, for `benchmarks/shortcuts.py`)."""
    port = free_port()
    env = {**os.environ, "CAFE_DATABASE_URL": url, "CAFE_SECRET_KEY": secrets.token_hex(16)}
    if without:
        env["BENCH_WITHOUT"] = without
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", "python:server.gunicorn_config",
             "--workers", "2", "--threads", "4", "--bind", f"127.0.0.1:{port}", *options,
             "benchmarks.floor_app:create_bench_app()"],
            cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True,
        )  # fmt: skip
    try:
        wait_until_healthy(port, process)
        SERVER_PIDS[port] = process.pid
        yield port
    finally:
        SERVER_PIDS.pop(port, None)
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_until_healthy(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and process.poll() is None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return
        except OSError:  # still booting
            time.sleep(0.1)
        finally:
            connection.close()
    raise BenchError(f"gunicorn on port {port} did not start")


# --- load --------------------------------------------------------------------------------

Call = tuple[str, str, bytes | None, dict[str, str]]  # method, path, body, headers


@dataclass
class Sample:
    """The latencies of one endpoint's requests, the wall time of their bursts and the CPU
    time the server spent on them."""

    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0
    bursts: list[float] = field(default_factory=list)  # each burst's requests/s
    cpu: float = 0.0  # the server's CPU seconds over the bursts
    cpu_bursts: list[float] = field(default_factory=list)  # each burst's CPU s per request

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds

    @property
    def cpu_ms(self) -> float:
        """The server's CPU milliseconds per request, over all bursts."""
        return self.cpu / len(self.latencies) * 1e3

    def add_round(self, bursts: Sample) -> None:
        """Add the bursts of one round as one (its rate: their requests over their time)."""
        self.latencies.extend(bursts.latencies)
        self.seconds += bursts.seconds
        self.bursts.append(len(bursts.latencies) / bursts.seconds)
        self.cpu += bursts.cpu
        self.cpu_bursts.append(bursts.cpu / len(bursts.latencies))

    def quantile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def send_all(port: int, calls: list[Call], deadline: float) -> list[float]:
    """Send `calls` in order on one keep-alive connection; their latencies in seconds."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    latencies = []
    try:
        for method, path, body, headers in calls:
            if time.perf_counter() > deadline:
                break
            start = time.perf_counter()
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            payload = response.read()
            latencies.append(time.perf_counter() - start)
            if response.status not in (200, 201):
                raise BenchError(f"{method} {path} -> {response.status}: {payload[:300]!r}")
    finally:
        connection.close()
    return latencies


def burst(pool: ThreadPoolExecutor, port: int, sequences: list[list[Call]], into: Sample) -> None:
    """Run the sequences at once, one per client thread, and add what they measured
    (with the CPU time the server on `port` spent meanwhile)."""
    cpu = server_cpu(port)
    start = time.perf_counter()
    futures = [pool.submit(send_all, port, calls, start + BURST_SECONDS) for calls in sequences]
    count = 0
    for future in futures:
        latencies = future.result()
        into.latencies.extend(latencies)
        count += len(latencies)
    elapsed = time.perf_counter() - start
    used = server_cpu(port) - cpu
    into.seconds += elapsed
    into.bursts.append(count / elapsed)
    into.cpu += used
    into.cpu_bursts.append(used / count)


def spread(calls: list[Call], parts: int) -> list[list[Call]]:
    return [calls[i::parts] for i in range(parts)]


@dataclass
class Measured:
    """A measured game: where it is rewound to and the turns each round plays."""

    game_id: int
    trajectory: Trajectory
    start: int  # the turn each round plays first

    def posts(self, tokens: dict[str, str], window: int) -> list[Call]:
        calls = []
        for number in range(self.start, self.start + window):
            before = self.trajectory.states[number - 1]
            mover = before["players"][before["to_move"]]
            body = {
                "turn": self.trajectory.log[number - 1]["notation"],
                "version": len(PLAYERS) + number - 1,
            }
            headers = {
                "Authorization": f"Bearer {tokens[mover]}",
                "Content-Type": "application/json",
                "Idempotency-Key": uuid.uuid4().hex,
            }
            path = f"/api/games/{self.game_id}/turns"
            calls.append(("POST", path, json.dumps(body).encode(), headers))
        return calls


@dataclass
class Target:
    """One server over one store, with its measured games and what was measured."""

    name: str
    port: int
    store: Store
    games: dict[int, list[Measured]]  # by the turn each round starts at
    tokens: dict[str, str]
    samples: dict[str, Sample] = field(default_factory=dict)

    def sample(self, key: str) -> Sample:
        return self.samples.setdefault(key, Sample())


def warmed_burst(pool: ThreadPoolExecutor, target: Target, calls: list[Call], key: str) -> None:
    """An unmeasured warm-up burst of the first calls, then the measured burst of all."""
    warm = calls[: max(CLIENT_THREADS, int(len(calls) * WARM_UP))]
    burst(pool, target.port, spread(warm, CLIENT_THREADS), Sample())
    burst(pool, target.port, spread(calls, CLIENT_THREADS), target.sample(key))


def rewind(target: Target, games: list[Measured]) -> None:
    for game in games:
        target.store.rewind(game.game_id, game.trajectory, game.start - 1)


def run_round(pool: ThreadPoolExecutor, target: Target, requests: int, window: int) -> None:
    """One warmed-up burst per endpoint and phase, the measured games rewound first."""
    viewers = [{"Authorization": f"Bearer {target.tokens[name]}"} for name in PLAYERS]
    health: list[Call] = [("GET", "/healthz", None, {})] * requests
    warmed_burst(pool, target, health, "healthz")
    floor: list[Call] = [
        ("POST", "/bench/floor", b"{}", {"Content-Type": "application/json"})
    ] * requests
    warmed_burst(pool, target, floor, "floor")
    for turn, games in target.games.items():
        rewind(target, games)
        paths = [f"/api/games/{game.game_id}" for game in games]
        gets: list[Call] = [
            ("GET", paths[i % len(paths)], None, viewers[i // len(paths) % len(viewers)])
            for i in range(requests)
        ]
        warmed_burst(pool, target, gets, f"get {turn}")
    for turn, games in target.games.items():
        played = Sample()
        for _ in range(max(1, -(-requests // (len(games) * window)))):
            rewind(target, games)
            warm = [game.posts(target.tokens, 1) for game in games]
            burst(pool, target.port, warm, Sample())
            rewind(target, games)
            posts = [game.posts(target.tokens, window) for game in games]
            burst(pool, target.port, posts, played)
        target.sample(f"post {turn}").add_round(played)


def build_store(
    store: Store, trajectories: list[Trajectory], total: int
) -> tuple[dict[int, list[Measured]], dict[str, str]]:
    """The measured games of PLAYERS (before turns EARLY and LATE) plus bulk games, `total`
    games in all; the measured games and PLAYERS' tokens."""
    store.add_players(list(PLAYERS))
    same = {name: name for name in PLAYERS}
    games = {}
    for turn in (EARLY, LATE):
        chosen = trajectories[:MEASURED]
        ids = store.add_games([Stored(t, turn - 1, same) for t in chosen])
        games[turn] = [Measured(i, t, turn) for i, t in zip(ids, chosen, strict=True)]
    bulk_games(store, trajectories, total - 2 * MEASURED, seed=total)
    store.analyze()
    return games, store.tokens(PLAYERS)


# --- report ------------------------------------------------------------------------------

ROWS = {
    "healthz": "GET /healthz",
    "floor": "POST /bench/floor (one insert)",
    f"get {EARLY}": f"GET /api/games/<id>, turn {EARLY}",
    f"get {LATE}": f"GET /api/games/<id>, turn {LATE}",
    f"post {EARLY}": f"POST …/turns, turn {EARLY}",
    f"post {LATE}": f"POST …/turns, turn {LATE}",
}


def verdict(ok: bool) -> str:
    return "meets" if ok else "MISSES"


def print_figures(title: str, small: Target, big: Target) -> None:
    print(f"\n{title}")
    print(f"{'':34}{small.name:>36}{big.name:>36}")
    print(f"{'':34}" + "   req/s  p50 ms  p99 ms  CPU ms     " * 2)
    for key, label in ROWS.items():
        cells = ""
        for target in (small, big):
            s = target.samples[key]
            cells += (
                f"{s.rate:8.1f}{s.quantile(0.5) * 1e3:8.2f}{s.quantile(0.99) * 1e3:8.2f}"
                f"{s.cpu_ms:8.2f}     "
            )
        print(f"{label:34}{cells}")


def round_ratios(numerator: Sample, denominator: Sample, *, by_cpu: bool) -> list[float]:
    """The per-round ratios of `numerator` to `denominator`: by throughput, or (`by_cpu`) by
    CPU time — the denominator's CPU time per request over the numerator's, so that above
    1 the numerator is the cheaper in both."""
    if by_cpu:
        pairs = zip(denominator.cpu_bursts, numerator.cpu_bursts, strict=True)
    else:
        pairs = zip(numerator.bursts, denominator.bursts, strict=True)
    return [n / d for n, d in pairs]


def ratios(found: list[float]) -> str:
    """Per-round ratios: their range and median."""
    return f"(rounds {min(found):.0%}–{max(found):.0%}, median {statistics.median(found):.0%})"


def print_targets(small: Target, big: Target) -> None:
    """Each target, on both stores (and, for the store size, per endpoint and turn)."""

    def rate(target: Target, key: str) -> float:
        return target.samples[key].rate

    print(f"  {'target (median of the rounds)':52}{small.name:>18}{big.name:>18}")
    for kind, label, base in (("post", "POST turn / floor", "floor"),
                              ("get", "GET state / healthz", "healthz")):  # fmt: skip
        for turn in (EARLY, LATE):
            for by_cpu, measure in ((False, "throughput"), (True, "CPU time")):
                line = f"{label} {measure}, turn {turn} (≥ {TARGETS[kind]:.0%})"
                found = [
                    round_ratios(
                        target.samples[f"{kind} {turn}"], target.samples[base], by_cpu=by_cpu
                    )
                    for target in (small, big)
                ]
                cells = ""
                for rounds in found:
                    share = statistics.median(rounds)
                    cells += f"{share:>10.0%} {verdict(share >= TARGETS[kind]):>7}"
                print(f"  {line:52}{cells}")
                for target, rounds in zip((small, big), found, strict=True):
                    print(f"  {'':56}{target.name}: {ratios(rounds)}")
    for turn in (EARLY, LATE):
        line = f"POST turn p99 / p50, turn {turn} (≤ {TARGETS['tail']:.0f})"
        cells = ""
        for target in (small, big):
            sample = target.samples[f"post {turn}"]
            tail = sample.quantile(0.99) / sample.quantile(0.5)
            cells += f"{tail:>10.2f} {verdict(tail <= TARGETS['tail']):>7}"
        print(f"  {line:52}{cells}")
    for kind, label in (("post", "POST turn"), ("get", "GET state")):
        line = f"{label} cost, turn {LATE} / turn {EARLY} (≤ {TARGETS['turn']})"
        cells = ""
        for target in (small, big):
            ratio = rate(target, f"{kind} {EARLY}") / rate(target, f"{kind} {LATE}")
            cells += f"{ratio:>10.2f} {verdict(ratio <= TARGETS['turn']):>7}"
        print(f"  {line:52}{cells}")
    print(f"  cost, {big.name} / {small.name} (≤ {TARGETS['games']}):")
    for key, label in ROWS.items():
        ratio = rate(small, key) / rate(big, key)
        control = key in ("healthz", "floor")
        note = "(control: no game data)" if control else verdict(ratio <= TARGETS["games"])
        print(f"    {label:50}{ratio:>10.2f} {note}")


# --- main --------------------------------------------------------------------------------


def bench_backend(
    label: str, admin_url: str | None, args: argparse.Namespace, trajectories: list[Trajectory]
) -> None:
    """Both stores on one database kind, measured in alternating rounds; prints the report."""
    with (
        tempfile.TemporaryDirectory(prefix="cafe-bench-") as tmp,
        ThreadPoolExecutor(CLIENT_THREADS) as pool,
    ):
        workdir = Path(tmp)
        targets = []
        with (
            fresh_database(admin_url, workdir, "small") as small_url,
            fresh_database(admin_url, workdir, "big") as big_url,
        ):
            for name, url, total in (
                ("10 games", small_url, 10),
                (f"{args.games:,} games", big_url, args.games),
            ):
                started = time.perf_counter()
                store = Store(url)
                make_floor_table(store.engine)
                games, tokens = build_store(store, trajectories, total)
                print(f"{label}: stored {total:,} games in {time.perf_counter() - started:.1f} s")
                targets.append(Target(name, 0, store, games, tokens))
            with (
                gunicorn(small_url, workdir / "small.log") as small_port,
                gunicorn(big_url, workdir / "big.log") as big_port,
            ):
                targets[0].port, targets[1].port = small_port, big_port
                for _ in range(args.rounds):
                    for target in targets:
                        run_round(pool, target, args.requests, args.window)
            for target in targets:
                target.store.close()
        print_figures(
            f"{label}: gunicorn 2 workers × 4 threads, {CLIENT_THREADS} client threads, "
            f"{args.rounds} rounds",
            *targets,
        )
        print_targets(*targets)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="rounds per store (15)")
    parser.add_argument(
        "--requests", type=int, default=300, help="requests per burst and endpoint (300)"
    )
    parser.add_argument("--window", type=int, default=10, help="turns each POST burst plays (10)")
    parser.add_argument("--games", type=int, default=10_000, help="games in the big store")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("CAFE_TEST_DATABASE_URL"),
        help="PostgreSQL server to create the databases on (default: $CAFE_TEST_DATABASE_URL)",
    )
    parser.add_argument("--sqlite-only", action="store_true", help="skip PostgreSQL")
    args = parser.parse_args()

    started = time.perf_counter()
    trajectories = [play_trajectory(number) for number in range(TRAJECTORIES)]
    shortest = min(t.length for t in trajectories)
    if shortest < LATE + args.window - 1:
        raise BenchError(f"an offline game lasted only {shortest} turns")
    bench_backend("SQLite", None, args, trajectories)
    if args.postgres and not args.sqlite_only:
        bench_backend("PostgreSQL", args.postgres, args, trajectories)
    print(f"\n(whole run {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
