"""The cost of a sweep (`server.jobs.sweep`): 100 due games among 100, and among 10,000.

A store of running two-player games (one greedy-game position, the clock `autoplay` without
vacation) of which DUE have a passed deadline and the others a deadline days away. One
round sweeps them: each due game is claimed, re-checked and timed out (the engine's best turn
played for its player, the log entry, the events); then the due games are put back as they
were, for the next round. The same rounds run on a store of DUE games and on one of GAMES
games, alternating. Target: the sweep among GAMES costs at most 1.5 × the sweep among DUE
(it finds what is due through the index, so it costs what the due games cost).

    .venv/bin/python benchmarks/clock.py [--games 10000] [--due 100] [--rounds 5]
        [--postgres postgresql+psycopg://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from server.config import settings_of

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # `benchmarks/server.py` would shadow the service's package
sys.path.insert(1, str(ROOT / "tests"))

from postgres_support import scratch_postgres  # noqa: E402
from sqlalchemy import Engine, delete, insert, update  # noqa: E402
from sqlmodel import Session, col  # noqa: E402

from cafe import Game  # noqa: E402
from server import migrate  # noqa: E402
from server.app import create_app  # noqa: E402
from server.db import get_engine  # noqa: E402
from server.jobs.sweep import sweep  # noqa: E402
from server.models import GameRecord, GameSeat, OutboxMessage, Player, TurnRecord, utcnow  # noqa: E402

TARGET = 1.5
CLOCK = {"days_per_turn": 3, "timeout": "autoplay", "max_timeouts": 2, "vacation": False}


def store(engine: Engine, games: int) -> dict[str, Any]:
    """`games` running games of the same two players, none due; the values a due one has."""
    game = Game.new(["ann", "bob"], seed="bench")
    game.play(game.hints(1)[0].turn)
    now = utcnow()
    with Session(engine) as session:
        players = [Player(name=name, email=f"{name}@bench.test") for name in game.players]
        session.add_all(players)
        session.flush()
        row = {
            "creator_id": players[0].id, "seats": 2, "status": "active", "options": {},
            "invited": [], "version": 3, "turn_count": 0, "seed_hex": "00" * 32,
            "commitment": "ab" * 32, "state": game.to_position(), "clock": CLOCK,
            "turn_started_at": now, "deadline": now + timedelta(days=3), "reminder_due": None,
            "reminded": ["half", "last"], "player_clocks": {}, "clock_serial": 0,
            "created_at": now,
        }  # fmt: skip
        session.execute(insert(GameRecord), [row] * games)
        seats = [
            {"game_id": game_id, "player_id": player.id, "join_order": seat, "seat": seat,
             "joined_at": now}
            for game_id in range(1, games + 1)
            for seat, player in enumerate(players)
        ]  # fmt: skip
        session.execute(insert(GameSeat), seats)
        session.commit()
    return {**row, "deadline": now - timedelta(hours=1)}


def make_due(engine: Engine, due: int, values: dict[str, Any]) -> None:
    """Games 1..`due` due now, as they were before any sweep; nothing left of earlier rounds."""
    with Session(engine) as session:
        session.execute(delete(TurnRecord))
        session.execute(delete(OutboxMessage))
        session.execute(
            update(GameRecord)
            .where(col(GameRecord.id) <= due)
            .values(
                status="active", version=values["version"], turn_count=0, state=values["state"],
                deadline=values["deadline"], player_clocks={}, finished_at=None, standings=None,
            )
        )  # fmt: skip
        session.commit()


def timed(engine: Engine, config: Any, due: int) -> float:
    """Seconds one sweep takes; it must time out exactly the due games."""
    started = time.perf_counter()
    done = sweep(engine, config, limit=due)
    elapsed = time.perf_counter() - started
    assert sum(done.timeouts.values()) == due, done
    return elapsed


def measure(url: str, games: int, due: int, rounds: int) -> None:
    stores = {}
    for size in (due, games):
        migrate.upgrade(url[size])
        app = create_app({"DATABASE_URL": url[size], "SECRET_KEY": "bench", "LOG_LEVEL": "ERROR"})
        engine = get_engine(app)
        stores[size] = (engine, settings_of(app), store(engine, size))
    times: dict[int, list[float]] = {due: [], games: []}
    for _ in range(rounds):
        for size, (engine, config, values) in stores.items():
            make_due(engine, due, values)
            times[size].append(timed(engine, config, due))
    small, large = statistics.median(times[due]), statistics.median(times[games])
    print(f"sweep of {due} due among {due:>6} games: median {small * 1000:7.1f} ms")
    print(f"sweep of {due} due among {games:>6} games: median {large * 1000:7.1f} ms")
    verdict = "ok" if large / small <= TARGET else "over target"
    print(f"ratio {large / small:.2f} (target ≤ {TARGET}): {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--due", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--postgres", help="a PostgreSQL server's URL: use it, not SQLite")
    args = parser.parse_args()
    if args.postgres:
        with (
            scratch_postgres(args.postgres, "cafe_bench") as small,
            scratch_postgres(args.postgres, "cafe_bench") as large,
        ):
            print("PostgreSQL")
            measure({args.due: small, args.games: large}, args.games, args.due, args.rounds)
        return
    with tempfile.TemporaryDirectory() as folder:
        urls = {size: f"sqlite:///{folder}/clock{size}.db" for size in (args.due, args.games)}
        print("SQLite")
        measure(urls, args.games, args.due, args.rounds)


if __name__ == "__main__":
    main()
