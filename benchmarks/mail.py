"""Events of game changes, rendered and delivered, side by side with raw smtplib.

Ours: a store of GAMES running three-player games (snapshots and logs from a greedy game,
one player per seat), each with a "your turn" event at its current version, as a turn
leaves it; the real worker (`server.jobs.worker.Worker`) then claims the events, renders each
from its game as it is (the engine's three best turns, the Jinja pair with the text picture
and the HTML board, the headers), sends them over one SMTP connection and marks them sent.
Every round moves every game's version on first, so the hints are computed afresh. Raw:
one smtplib connection sends the very same messages, composed beforehand. Both go to the
same aiosmtpd sink, in its own process like a real mail server, and alternate round by
round in the same run. Target: ours ≥ 50 % of raw throughput.

    .venv/bin/python benchmarks/mail.py [--emails 1000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import smtplib
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from server.config import settings_of

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's directory comes first on sys.path, where `benchmarks/server.py`
# would shadow the service's package.
sys.path[0] = str(ROOT)

from sqlalchemy import update  # noqa: E402
from sqlmodel import Session, col, select  # noqa: E402

from cafe import Game  # noqa: E402
from cafe.bots import GreedyBot  # noqa: E402
from server import migrate  # noqa: E402
from server.app import create_app  # noqa: E402
from server.db import get_engine  # noqa: E402
from server.jobs.worker import Worker, worker_engine  # noqa: E402
from server.mail import outgoing  # noqa: E402
from server.mail.compose import compose  # noqa: E402
from server.models import GameRecord, GameSeat, OutboxMessage, Player, TurnRecord  # noqa: E402

TARGET = 0.5
MAIL_FROM = "Café International <cafe@bench.test>"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def sink() -> Iterator[int]:
    """An aiosmtpd server that accepts and discards everything, in its own process."""
    port = free_port()
    command = ["-m", "aiosmtpd", "-n", "-c", "aiosmtpd.handlers.Sink", "-l", f"127.0.0.1:{port}"]
    process = subprocess.Popen(
        [sys.executable, *command], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        for _ in range(200):
            try:
                with smtplib.SMTP("127.0.0.1", port, timeout=1):
                    break
            except OSError:
                time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


def positions() -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Every position of a greedy three-player game, with the log up to it."""
    game, bot = Game.new(["ann", "bob", "cid"], seed="bench"), GreedyBot()
    log: list[dict[str, Any]] = []
    found = []
    while not game.is_over:
        found.append((game.to_position(), list(log)))
        seat = game.to_move
        result = game.play(bot.choose(game))
        log.append({"seat": seat, "notation": result.notation, "points": result.points})
    return found


def store(app: Any, count: int) -> list[int]:
    """`count` running games, each at one of the positions, with its players and log."""
    found = positions()
    engine = get_engine(app)
    with Session(engine) as session:
        players = [Player(name=f"p{n}", email=f"player{n}@bench.test") for n in range(3 * count)]
        session.add_all(players)
        session.flush()
        games = []
        for n in range(count):
            state, log = found[n % len(found)]
            state = {**state, "players": [players[3 * n + seat].name for seat in range(3)]}
            game = GameRecord(
                creator_id=players[3 * n].id, seats=3, status="active", state=state,
                version=len(log) + 4, turn_count=len(log), seed_hex="00" * 32,
                commitment="ab" * 32,
            )  # fmt: skip
            session.add(game)
            games.append((game, log))
        session.flush()
        for n, (game, log) in enumerate(games):
            for seat in range(3):
                session.add(
                    GameSeat(game_id=game.id, player_id=players[3 * n + seat].id,
                             join_order=seat, seat=seat)
                )  # fmt: skip
            for number, entry in enumerate(log, start=1):
                session.add(TurnRecord(game_id=game.id, number=number, **entry))
        session.commit()
        return [game.id for game, _ in games]


def queue_events(app: Any, game_ids: list[int]) -> None:
    """Move every game on a version and queue its "your turn" event, as a turn would."""
    with Session(get_engine(app)) as session:
        session.execute(update(GameRecord).values(version=GameRecord.version + 1))
        rows = session.execute(select(GameRecord.id, GameRecord.version, GameRecord.state)).all()
        outgoing.queue_events(
            session,
            settings_of(app),
            [
                outgoing.Event("your_turn", game_id, version, state["to_move"])
                for game_id, version, state in rows
            ],
        )
        session.commit()


def prebuilt(app: Any, since: int) -> list[tuple[str, bytes]]:
    """The messages of a round as raw smtplib gets them: composed, ready to send."""
    with Session(get_engine(app)) as session:
        rows = session.exec(
            select(OutboxMessage)
            .where(col(OutboxMessage.id) > since, OutboxMessage.status == "sent")
            .order_by(col(OutboxMessage.id))
        ).all()
    mail_from = settings_of(app).mail_from
    return [(row.to_addr or "", compose(row, mail_from)) for row in rows]


def raw_send(port: int, batch: list[tuple[str, bytes]]) -> float:
    """Send with smtplib over one connection: emails/s."""
    start = time.perf_counter()
    with smtplib.SMTP("127.0.0.1", port) as smtp:
        for to, data in batch:
            smtp.sendmail("cafe@bench.test", [to], data)
    return len(batch) / (time.perf_counter() - start)


def last_id(app: Any) -> int:
    with Session(get_engine(app)) as session:
        return max(session.exec(select(OutboxMessage.id)).all(), default=0)


def ours(app: Any, game_ids: list[int]) -> tuple[float, int]:
    """Queue a round of events, then render and deliver them all with the worker: emails/s,
    and the id the round's rows come after."""
    since = last_id(app)
    queue_events(app, game_ids)
    worker = Worker(worker_engine(settings_of(app)), settings_of(app))
    start = time.perf_counter()
    while worker.run_once():
        pass
    elapsed = time.perf_counter() - start
    delivered = len(prebuilt(app, since))
    assert delivered == len(game_ids), f"{delivered} of {len(game_ids)} delivered"
    return len(game_ids) / elapsed, since


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--emails", type=int, default=1000, help="events per round (1000)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ratios, ourselves, raw, sizes = [], [], [], []
    with tempfile.TemporaryDirectory() as folder, sink() as port:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        migrate.upgrade(url)
        settings = {
            "DATABASE_URL": url,
            "SMTP_PORT": port,
            "MAIL_FROM": MAIL_FROM,
            "DEVELOPMENT": True,
        }
        app = create_app(
            {**settings, "LOG_LEVEL": "WARNING", "BASE_URL": "https://cafe.example",
             "MAIL_PER_MINUTE": 10}
        )  # fmt: skip
        game_ids = store(app, args.emails)
        ours(app, game_ids)  # warm-up: imports, template compilation, connections
        for number in range(1, args.rounds + 1):
            throughput, since = ours(app, game_ids)
            batch = prebuilt(app, since)
            sizes += [len(data) for _, data in batch]
            raw.append(raw_send(port, batch))
            ourselves.append(throughput)
            ratios.append(throughput / raw[-1])
            print(
                f"round {number}: events rendered and delivered {throughput:6.1f} emails/s · "
                f"raw smtplib {raw[-1]:6.1f} emails/s · {ratios[-1]:.0%}"
            )
    size = statistics.median(sizes) / 1024
    print(f"\n{args.emails} 'your turn' events × {args.rounds} rounds, {size:.1f} KiB each")
    print(
        f"  ours: claim, hints, render, send, mark   {statistics.median(ourselves):7.1f} emails/s"
    )
    print(f"  raw smtplib, the same messages pre-built {statistics.median(raw):7.1f} emails/s")
    print(
        f"  ours / raw, per round: median {statistics.median(ratios):.0%} "
        f"(min {min(ratios):.0%}, max {max(ratios):.0%}); target ≥ {TARGET:.0%}"
    )


if __name__ == "__main__":
    main()
