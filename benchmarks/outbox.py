"""The worker's claims at a league's size (issue 25): the outbox claim, the channel
deliveries' claim and the clock sweep, on PostgreSQL, before and after their fixes.

The store: `--games` running four-player games (10,000) among `--players` players (4,000),
their snapshots and logs copied from a few greedy games played offline (as
`benchmarks/server.py` stores them), each on the default clock with its deadline and next
reminder days ahead; and an outbox as a league in play leaves it: `--settled` rows that will
not be sent again (sent with their bodies, superseded, skipped), `--due` new events waiting
for their first claim and `--waiting` messages waiting for a retry. The channel deliveries
likewise (`--settled` // 10 settled, `--due` // 4 due).

The claims are measured twice: **as under load** — the tables' statistics taken while the
backlog was still to be sent, then the backlog sent and not vacuumed (autovacuum off on the
two tables), as a database stands while workers send faster than autovacuum follows — and
after VACUUM ANALYZE. Each is the median of `--repeats` runs inside a transaction that is
rolled back (so every run sees the same store), then EXPLAIN (ANALYZE, BUFFERS) of each
statement: the rows its scans read against the rows it claimed, the planner's cost
estimate, and whether PostgreSQL compiled it (JIT).

- **outbox before**: main's claim — its three statements, kept here as they were — on
  main's indexes (the store migrated down to 0025);
- **outbox main's, 0027**: main's statements on the partial indexes of 0027;
- **outbox after**: `server.jobs.outbox.claim_statements` on the indexes of 0027;
- **deliveries before, after**: `server.jobs.deliveries.claim_statement` on 0025's and on
  0027's indexes;
- **sweep**: `--sweep-due` games past their deadline and as many others with a reminder
  due; the time a worker's round spends in the sweep before it claims mail, with the sweep
  of main (every due game of each kind, up to 200, in one go) and with the sweep in bounded
  batches (`server.jobs.sweep.BATCH`, `server.jobs.worker.SWEEP_BUDGET`) round after round
  until nothing is due; made due afresh for every run.

    .venv/bin/python benchmarks/outbox.py [--postgres URL] [--games 10000] [--players 4000]
        [--settled 400000] [--due 400] [--waiting 200] [--repeats 15] [--sweep-due 200]

Prints each figure before and after; exits 0 whatever they are.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's directory comes first on sys.path, where `benchmarks/server.py`
# would shadow the service's package; `tests/` holds postgres_support.
sys.path[0:1] = [str(ROOT), str(ROOT / "tests")]

from alembic import command  # noqa: E402
from postgres_support import scratch_postgres  # noqa: E402
from sqlalchemy import (  # noqa: E402
    Connection,
    Engine,
    and_,
    case,
    exists,
    func,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.orm import aliased  # noqa: E402
from sqlmodel import col  # noqa: E402

from benchmarks.server import (  # noqa: E402
    PLAYERS,
    TRAJECTORIES,
    Store,
    Stored,
    play_trajectory,
    renamed,
)
from server import migrate  # noqa: E402
from server.clock import timesource  # noqa: E402
from server.config import Settings  # noqa: E402
from server.jobs import deliveries, outbox, sweep, worker  # noqa: E402
from server.models import (  # noqa: E402
    GameRecord,
    GameSeat,
    OutboxMessage,
    OutboxStatus,
    Player,
    utcnow,
)
from server.postbox.kinds import CREATOR_KINDS  # noqa: E402
from server.schemas.clock import DEFAULT_CLOCK  # noqa: E402

BEFORE, AFTER = "0026", "head"  # main's indexes, and the claims' partial ones (0027)


# --- main's claim, kept as it was to measure it beside the new one -----------------------


def old_claim_statements(now: datetime, lease_now: datetime, limit: int) -> list[Any]:
    """main's claim: address every new event, then claim the due messages no earlier one to
    their address holds back (`server.jobs.outbox` before issue 25)."""
    recipient = case(
        (
            col(OutboxMessage.kind).in_(sorted(CREATOR_KINDS)),
            select(col(Player.email))
            .join(GameRecord, col(GameRecord.creator_id) == Player.id)
            .where(col(GameRecord.id) == OutboxMessage.game_id)
            .scalar_subquery(),
        ),
        else_=select(col(Player.email))
        .join(GameSeat, col(GameSeat.player_id) == Player.id)
        .where(
            col(GameSeat.game_id) == OutboxMessage.game_id,
            col(GameSeat.seat) == OutboxMessage.seat,
        )
        .scalar_subquery(),
    )
    address = (
        update(OutboxMessage)
        .where(
            col(OutboxMessage.status) == OutboxStatus.PENDING,
            col(OutboxMessage.to_addr).is_(None),
            col(OutboxMessage.game_id).is_not(None),
        )
        .values(to_addr=recipient)
    )
    earlier = aliased(OutboxMessage)
    held_back = exists().where(
        col(earlier.to_addr) == OutboxMessage.to_addr,
        col(earlier.id) < OutboxMessage.id,
        or_(
            and_(col(earlier.status) == OutboxStatus.PENDING, col(earlier.available_at) > now),
            and_(
                col(earlier.status) == OutboxStatus.SENDING,
                col(earlier.claimed_until) >= lease_now,
            ),
        ),
    )
    claimable = (
        select(col(OutboxMessage.id))
        .where(
            or_(
                (col(OutboxMessage.status) == OutboxStatus.PENDING)
                & (col(OutboxMessage.available_at) <= now),
                (col(OutboxMessage.status) == OutboxStatus.SENDING)
                & (col(OutboxMessage.claimed_until) < lease_now),
            ),
            ~held_back,
        )
        .order_by(col(OutboxMessage.id))
        .limit(limit)
        .with_for_update(of=OutboxMessage)
        .scalar_subquery()
    )
    claim = (
        update(OutboxMessage)
        .where(col(OutboxMessage.id).in_(claimable))
        .values(status=OutboxStatus.SENDING, claimed_by="bench", claimed_until=lease_now)
    )
    return [select(func.pg_advisory_xact_lock(outbox.CLAIM_LOCK)), address, claim]


def new_claim_statements(now: datetime, lease_now: datetime, limit: int) -> list[Any]:
    """`server.jobs.outbox.claim`'s statements."""
    return outbox.claim_statements(
        "postgresql", now, lease_now, limit, claimer="bench", lease_seconds=300
    )


def delivery_claim_statements(now: datetime, lease_now: datetime, limit: int) -> list[Any]:
    """`server.jobs.deliveries.claim`'s statement."""
    return [deliveries.claim_statement(now, lease_now, limit, claimer="bench", lease=60)]


# --- the store ---------------------------------------------------------------------------


def seed(url: str, args: argparse.Namespace) -> None:
    """Players, running games on the default clock, the outbox and the deliveries."""
    rng = random.Random(25)
    store = Store(url)
    pool = [f"p{i:05d}" for i in range(args.players)]
    store.add_players(pool)
    trajectories = [play_trajectory(n) for n in range(TRAJECTORIES)]
    seats = len(PLAYERS)

    def names(number: int) -> dict[str, str]:
        chosen = rng.sample(pool, seats)
        return renamed(chosen)

    templates = store.add_games([Stored(t, t.length, names(n)) for n, t in enumerate(trajectories)])
    games = [
        Stored(trajectories[n % TRAJECTORIES], 0, names(n), templates[n % TRAJECTORIES])
        for n in range(args.games)
    ]
    games = [
        Stored(g.trajectory, rng.randrange(g.trajectory.length), g.names, g.template) for g in games
    ]
    for first in range(0, len(games), 1000):
        store.add_games(games[first : first + 1000])
    with store.engine.begin() as connection:
        # the template games played out; the rest on the default clock, due days ahead
        connection.execute(
            text(
                "UPDATE games SET clock = CAST(:clock AS json), player_clocks = '{}',"
                " turn_started_at = now() - random() * interval '2 days',"
                " deadline = now() + interval '1 day' + random() * interval '2 days',"
                " reminder_due = now() + interval '12 hours' + random() * interval '1 day'"
                " WHERE status = 'active'"
            ),
            {"clock": json.dumps(DEFAULT_CLOCK)},
        )
        seed_outbox(connection, args)
        seed_deliveries(connection, args)
        for table in ("outbox", "channel_deliveries"):  # autovacuum lagging, as under load
            connection.execute(text(f"ALTER TABLE {table} SET (autovacuum_enabled = off)"))
    store.analyze()  # the statistics of a moment when the backlog was still to be sent
    with store.engine.begin() as connection:
        connection.execute(
            text(
                "UPDATE outbox SET status = CASE WHEN id % 5 IN (0, 4) THEN 'sent'"
                " WHEN id % 5 = 1 THEN 'superseded' ELSE 'skipped' END"
                " WHERE message_id LIKE '<s%'"
            )
        )
        connection.execute(
            text(
                "UPDATE channel_deliveries SET status = 'sent'"
                " WHERE delivery_id IN (SELECT 'msg_' || md5('settled' || n)"
                " FROM generate_series(1, :count) AS n)"
            ),
            {"count": args.settled // 10},
        )
    store.close()


def seed_outbox(connection: Connection, args: argparse.Namespace) -> None:
    """The outbox of a league in play: settled rows (most), due events, retries waiting."""
    games = "(SELECT min(id) FROM games)"
    connection.execute(
        text(
            f"""
            INSERT INTO outbox (kind, to_addr, subject, body, message_id, status, attempts,
                available_at, created_at, sent_at, game_id, version, seat)
            SELECT CASE WHEN n % 5 < 2 THEN 'your_turn' WHEN n % 5 < 4 THEN 'turn_played'
                        ELSE 'game_over' END,
                   'p' || lpad((n % :players)::text, 5, '0') || '@example.com',
                   CASE WHEN n % 5 IN (0, 4) THEN 'Your turn in game ' || n END,
                   CASE WHEN n % 5 IN (0, 4) AND n > :settled * 13 / 20
                        THEN repeat('A line of the email. ', 40) END,
                   '<s' || n || '@bench.test>', 'pending',
                   1, now() - interval '20 days' + n * interval '1 second' / 50,
                   now() - interval '20 days' + n * interval '1 second' / 50,
                   now() - interval '20 days' + n * interval '1 second' / 50,
                   {games} + n % :games, n / 1000, n % 4
            FROM generate_series(1, :settled) AS n
            """
        ),
        {"players": args.players, "games": args.games, "settled": args.settled},
    )
    connection.execute(
        text(
            f"""
            INSERT INTO outbox (kind, message_id, status, attempts, available_at, created_at,
                                game_id, version, seat)
            SELECT CASE WHEN n % 2 = 0 THEN 'your_turn' ELSE 'turn_played' END,
                   '<due' || n || '@bench.test>', 'pending', 0,
                   now() - interval '2 seconds', now() - interval '2 seconds',
                   {games} + (n * 7919) % :games, 1000, n % 4
            FROM generate_series(1, :due) AS n
            """
        ),
        {"games": args.games, "due": args.due},
    )
    connection.execute(
        text(
            """
            INSERT INTO outbox (kind, to_addr, message_id, status, attempts, available_at,
                                created_at, last_error)
            SELECT 'vacation_started', 'p' || lpad((n * 13 % :players)::text, 5, '0')
                   || '@example.com', '<retry' || n || '@bench.test>', 'pending', 2,
                   now() + interval '20 minutes', now() - interval '10 minutes', '451 later'
            FROM generate_series(1, :waiting) AS n
            """
        ),
        {"players": args.players, "waiting": args.waiting},
    )


def seed_deliveries(connection: Connection, args: argparse.Namespace) -> None:
    """One channel for a player in ten; their deliveries, mostly settled, some due."""
    connection.execute(
        text(
            """
            INSERT INTO channels (player_id, kind, url, secret, events, state, created_at)
            SELECT id, 'webhook', 'https://hooks.bench.test/' || id, 'secret',
                   '["your_turn", "reminder", "game_over"]', 'active', now()
            FROM players WHERE id % 10 = 0
            """
        )
    )
    for count, status, due in (
        (args.settled // 10, "settled", "now() - interval '5 days'"),
        (args.due // 4, "pending", "now() - interval '2 seconds'"),
    ):
        connection.execute(
            text(
                f"""
                INSERT INTO channel_deliveries (channel_id, delivery_id, event, status,
                    attempts, available_at, created_at)
                SELECT (SELECT min(id) FROM channels) + n % (SELECT count(*) FROM channels),
                       'msg_' || md5(:status || n), 'your_turn', 'pending', 1, {due}, {due}
                FROM generate_series(1, :count) AS n
                """
            ),
            {"count": count, "status": status},
        )


# --- measuring ---------------------------------------------------------------------------


@dataclass
class Plan:
    """What EXPLAIN (ANALYZE, BUFFERS) said of a run's statements, summed."""

    milliseconds: float = 0.0
    cost: float = 0.0  # the planner's estimate (JIT compiles above `jit_above_cost`)
    scanned: int = 0  # rows the scans read, kept or filtered out
    claimed: int = 0  # rows the statements' top nodes returned or changed
    buffers: int = 0  # shared blocks hit or read
    jit: bool = False
    nodes: tuple[str, ...] = ()


def explain(connection: Connection, statement: Any) -> Plan:
    """Run `statement` under EXPLAIN (ANALYZE, BUFFERS) and sum what its plan read."""
    compiled = statement.compile(
        dialect=connection.dialect, compile_kwargs={"render_postcompile": True}
    )
    rows = connection.exec_driver_sql(
        "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + str(compiled), compiled.params
    ).scalar_one()
    found = rows[0] if isinstance(rows, list) else json.loads(rows)[0]
    plan = Plan(milliseconds=found["Execution Time"] + found["Planning Time"])
    plan.jit = "JIT" in found
    plan.cost = found["Plan"]["Total Cost"]
    nodes: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        loops = node.get("Actual Loops", 1)
        if "Scan" in node["Node Type"]:
            kept = node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)
            plan.scanned += int(kept * loops)
            nodes.append(f"{node['Node Type']} {node.get('Index Name', node.get('Relation Name'))}")
        for child in node.get("Plans", []):
            walk(child)

    top = found["Plan"]
    walk(top)
    plan.claimed = top.get("Actual Rows", 0)
    if top["Node Type"] == "ModifyTable":
        plan.claimed = top["Plans"][0].get("Actual Rows", 0) if top.get("Plans") else 0
    plan.buffers = top.get("Shared Hit Blocks", 0) + top.get("Shared Read Blocks", 0)
    plan.nodes = tuple(dict.fromkeys(nodes))
    return plan


@dataclass
class Figure:
    """A claim's median time and its plan."""

    label: str
    median_ms: float
    plans: list[Plan]  # one per statement


def measure_claim(
    engine: Engine, label: str, statements: Callable[..., list[Any]], repeats: int, limit: int
) -> Figure:
    """Median wall time of the claim's statements (rolled back each time), then their plan."""
    times = []
    for _ in range(repeats):
        now, lease_now = utcnow(), timesource.system_now()
        with engine.connect() as connection:
            start = time.perf_counter()
            for statement in statements(now, lease_now, limit):
                connection.execute(statement)
            times.append((time.perf_counter() - start) * 1000)
            connection.rollback()
    with engine.connect() as connection:
        now, lease_now = utcnow(), timesource.system_now()
        plans = [explain(connection, s) for s in statements(now, lease_now, limit)]
        connection.rollback()
    return Figure(label, statistics.median(times), plans)


def measure_sweep(engine: Engine, config: Settings, args: argparse.Namespace) -> None:
    """What a worker's round spends sweeping before it claims mail: main's one sweep of
    everything due (up to 200 of each kind) against the sweep in bounded batches, round
    after round until nothing is due; each on games made due afresh."""
    main_waits, batch_waits, totals, rounds = [], [], [], []
    for run in range(args.sweep_repeats):
        make_due(engine, args.sweep_due, seed=2 * run)
        start = time.perf_counter()
        done = sweep.sweep(engine, config, limit=200)
        main_waits.append(time.perf_counter() - start)
        main_acted = done.total
        clear_due(engine)
        make_due(engine, args.sweep_due, seed=2 * run + 1)
        waits, acted, started = [], 0, time.perf_counter()
        while True:
            start = time.perf_counter()
            done = sweep.sweep(engine, config, budget=worker.SWEEP_BUDGET)
            waits.append(time.perf_counter() - start)
            acted += done.total
            if not done.more:
                break
        totals.append(time.perf_counter() - started)
        batch_waits.append(max(waits))
        rounds.append(len(waits))
        clear_due(engine)
        print(
            f"  run {run + 1}: main acted on {main_acted} in one sweep;"
            f" batched on {acted} in {len(waits)} rounds"
        )
    print(f"  mail waits behind main's sweep: median {statistics.median(main_waits) * 1000:.0f} ms")
    print(
        f"  mail waits behind one batch: median of the longest round"
        f" {statistics.median(batch_waits) * 1000:.0f} ms"
        f" ({statistics.median(rounds):.0f} rounds, all of them"
        f" {statistics.median(totals) * 1000:.0f} ms)"
    )


def make_due(engine: Engine, count: int, *, seed: int) -> None:
    """`count` random running games past their deadline, `count` others due a reminder."""
    with engine.begin() as connection:
        connection.execute(text("SELECT setseed(:s)"), {"s": (seed % 1000) / 1000})
        connection.execute(
            text(
                "WITH picked AS (SELECT id FROM games WHERE status = 'active' ORDER BY random()"
                " LIMIT :n) UPDATE games SET deadline = now() - interval '1 minute'"
                " FROM picked WHERE games.id = picked.id"
            ),
            {"n": count},
        )
        connection.execute(
            text(
                "WITH picked AS (SELECT id FROM games WHERE status = 'active'"
                " AND deadline > now() ORDER BY random() LIMIT :n)"
                " UPDATE games SET reminder_due = now() - interval '1 minute',"
                " turn_started_at = now() - interval '70 hours'"
                " FROM picked WHERE games.id = picked.id"
            ),
            {"n": count},
        )


def clear_due(engine: Engine) -> None:
    """Nothing due any more: what a sweep left due is moved days ahead."""
    with engine.begin() as connection:
        connection.execute(
            text(
                "UPDATE games SET deadline = now() + interval '2 days'"
                " WHERE deadline <= now() + interval '1 hour'"
            )
        )
        connection.execute(
            text(
                "UPDATE games SET reminder_due = now() + interval '1 day'"
                " WHERE reminder_due <= now() + interval '1 hour'"
            )
        )


def print_figure(figure: Figure) -> None:
    plans = figure.plans
    print(
        f"  {figure.label}: median {figure.median_ms:.1f} ms;"
        f" EXPLAIN {sum(p.milliseconds for p in plans):.1f} ms,"
        f" {sum(p.scanned for p in plans)} rows scanned for {plans[-1].claimed} claimed,"
        f" {sum(p.buffers for p in plans)} buffers,"
        f" JIT {'on' if any(p.jit for p in plans) else 'off'}"
    )
    for plan in plans:
        print(
            f"      {plan.milliseconds:7.1f} ms {plan.scanned:8d} rows read"
            f" {plan.claimed:5d} out, cost {plan.cost:9.0f}: {', '.join(plan.nodes)}"
        )


def measure_claims(engine: Engine, url: str, args: argparse.Namespace, state: str) -> None:
    """The claims before and after, the store as it is (at 0027's indexes on entry)."""
    figures = [
        measure_claim(engine, "outbox after", new_claim_statements, args.repeats, 200),
        measure_claim(engine, "outbox main's, 0027", old_claim_statements, args.repeats, 200),
        measure_claim(engine, "deliveries after", delivery_claim_statements, args.repeats, 64),
    ]
    command.downgrade(migrate.alembic_config(url), BEFORE)
    figures += [
        measure_claim(engine, "outbox before", old_claim_statements, args.repeats, 200),
        measure_claim(engine, "deliveries before", delivery_claim_statements, args.repeats, 64),
    ]
    migrate.upgrade(url, AFTER)
    print(f"claims of 200 messages and 64 deliveries, {state}:")
    for figure in sorted(figures, key=lambda f: (f.label.split()[0], "after" in f.label)):
        print_figure(figure)


def run(url: str, args: argparse.Namespace) -> None:
    started = time.perf_counter()
    seed(url, args)
    print(
        f"store: {args.games} running games, {args.players} players, outbox {args.settled}"
        f" settled + {args.due} due + {args.waiting} waiting; {args.settled // 10} settled"
        f" and {args.due // 4} due channel deliveries (seeded in"
        f" {time.perf_counter() - started:.0f} s)"
    )
    engine = Store(url).engine
    config = Settings(database_url=url, dev_mail_dir=tempfile.mkdtemp(), secret_key="b" * 48)
    state = "as under load (statistics from when the backlog was due, its dead rows unvacuumed)"
    measure_claims(engine, url, args, state)
    vacuum(engine)
    measure_claims(engine, url, args, "after VACUUM ANALYZE")
    print(f"sweep ({args.sweep_due} deadlines and {args.sweep_due} reminders due):")
    measure_sweep(engine, config, args)
    engine.dispose()


def vacuum(engine: Engine) -> None:
    """Statistics and visibility as autovacuum keeps them."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("VACUUM ANALYZE"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--postgres",
        default=os.environ.get(
            "CAFE_TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
        ),
        help="a PostgreSQL server to create the scratch database cafe_outbox_… on",
    )
    knobs = (
        ("--games", 10_000, "running four-player games"),
        ("--players", 4_000, "players, each in about 10 of the games"),
        ("--settled", 400_000, "outbox rows never to be sent again (a tenth as many deliveries)"),
        ("--due", 400, "new events due (a quarter as many deliveries)"),
        ("--waiting", 200, "messages waiting for a retry"),
        ("--repeats", 15, "runs of each claim, for its median"),
        ("--sweep-due", 200, "games past their deadline, as many due a reminder, per sweep"),
        ("--sweep-repeats", 3, "runs of each sweep"),
    )
    for flag, default, meaning in knobs:
        parser.add_argument(flag, type=int, default=default, help=f"{meaning} ({default})")
    args = parser.parse_args()
    with scratch_postgres(args.postgres, "cafe_outbox", durable=False) as url:
        run(url, args)


if __name__ == "__main__":
    main()
