"""Render and deliver "your turn" emails, side by side with raw smtplib (issue 4).

Ours: for each email, the engine's three best turns, the Jinja pair with the text picture
and the HTML board (`server.mail.messages.your_turn`), the headers and the outbox row
(`server.mail.outgoing`, committed in batches as turns would commit them); then the real
worker (`server.worker.Worker`: claims, per-recipient limit, MIME composition, SMTP,
marking sent) delivers the outbox. Raw: one smtplib connection sends the very same
messages, composed beforehand. Both go to the same aiosmtpd sink, in its own process like
a real mail server, and alternate round by round in the same run. Target: ours ≥ 50 % of
raw throughput.

    .venv/bin/python benchmarks/mail.py [--emails 1000] [--rounds 3]
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

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's directory comes first on sys.path, where `benchmarks/server.py`
# would shadow the service's package.
sys.path[0] = str(ROOT)

from sqlmodel import Session, col, select  # noqa: E402

from cafe import Game  # noqa: E402
from cafe.bots import GreedyBot  # noqa: E402
from server import create_app, migrate  # noqa: E402
from server.db import get_engine  # noqa: E402
from server.mail import messages, outgoing  # noqa: E402
from server.mail.addresses import ReplyAddress  # noqa: E402
from server.mail.compose import compose  # noqa: E402
from server.mail.facts import GameFacts, LoggedTurn, OfferedTurn, Recipient  # noqa: E402
from server.models import OutboxMessage  # noqa: E402
from server.worker import Worker, worker_engine  # noqa: E402

COMMIT_EVERY = 20  # emails per commit (the service commits each turn's emails with the turn)
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


def positions() -> list[GameFacts]:
    """Every position of a greedy three-player game, with the log up to it."""
    game, bot = Game.new(["ann", "bob", "cid"], seed="bench"), GreedyBot()
    log: list[LoggedTurn] = []
    found = []
    while not game.is_over:
        state = game.to_position()
        found.append(GameFacts(1, len(log) + 2, state, commitment="ab" * 32, recent=log[-8:]))
        result = game.play(bot.choose(game))
        log.append(LoggedTurn(len(log) + 1, result.player, "turn", result.notation, result.points))
    return found


def render_and_queue(app: Any, games: list[GameFacts], count: int, tag: str) -> list[float]:
    """Render `count` "your turn" emails into the outbox; each one's rendering time."""
    config = app.config
    timings = []
    with Session(get_engine(app)) as session:
        for n in range(count):
            start = time.perf_counter()
            base = games[n % len(games)]  # a fresh copy: each email loads its own engine
            game = GameFacts(base.id, base.version, base.state, base.commitment, recent=base.recent)
            mover = game.state["players"][game.state["to_move"]]
            recipient = Recipient(n + 1, mover, f"player{n}.{tag}@bench.test")
            hints = [OfferedTurn(str(h.turn), h.points) for h in game.engine.hints(3)]
            links = outgoing.links(
                config, player_id=n + 1, reply=ReplyAddress(game.id, game.version, n + 1)
            )
            rendered = messages.your_turn(game, recipient, hints, links)
            outgoing.queue(
                session,
                config,
                kind="your_turn",
                to=recipient.email,
                rendered=rendered,
                links=links,
                game_id=game.id,
            )
            if (n + 1) % COMMIT_EVERY == 0:
                session.commit()
            timings.append(time.perf_counter() - start)
        session.commit()
    return timings


def prebuilt(app: Any, tag: str) -> list[tuple[str, bytes]]:
    """The messages of a round as raw smtplib gets them: composed, ready to send."""
    with Session(get_engine(app)) as session:
        rows = session.exec(
            select(OutboxMessage)
            .where(col(OutboxMessage.to_addr).endswith(f".{tag}@bench.test"))
            .order_by(col(OutboxMessage.id))
        ).all()
    mail_from = app.config["MAIL_FROM"]
    return [(row.to_addr, compose(row, mail_from)) for row in rows]


def raw_send(port: int, batch: list[tuple[str, bytes]]) -> tuple[float, list[float]]:
    """Send with smtplib over one connection: emails/s, and each message's time."""
    timings = []
    start = time.perf_counter()
    with smtplib.SMTP("127.0.0.1", port) as smtp:
        for to, data in batch:
            sending = time.perf_counter()
            smtp.sendmail("cafe@bench.test", [to], data)
            timings.append(time.perf_counter() - sending)
    return len(batch) / (time.perf_counter() - start), timings


def sent(app: Any, tag: str) -> int:
    """How many of a round's messages are marked sent."""
    with Session(get_engine(app)) as session:
        return len(
            session.exec(
                select(OutboxMessage.id).where(
                    col(OutboxMessage.to_addr).endswith(f".{tag}@bench.test"),
                    OutboxMessage.status == "sent",
                )
            ).all()
        )


def ours(
    app: Any, games: list[GameFacts], count: int, tag: str
) -> tuple[float, float, list[float]]:
    """Render and queue every email, then deliver them all with the worker: emails/s for
    the whole, emails/s for the delivery alone, and each email's rendering time."""
    start = time.perf_counter()
    renders = render_and_queue(app, games, count, tag)
    queued = time.perf_counter()
    worker = Worker(worker_engine(app.config), app.config)
    while worker.run_once():
        pass
    done = time.perf_counter()
    assert sent(app, tag) == count, "not everything was delivered"
    return count / (done - start), count / (done - queued), renders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--emails", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    games = positions()
    whole, delivery, raw, renders, sends, sizes = [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as folder, sink() as port:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        migrate.upgrade(url)
        settings = {
            "DATABASE_URL": url,
            "SMTP_PORT": port,
            "MAIL_FROM": MAIL_FROM,
            "DEVELOPMENT": True,
        }
        app = create_app({**settings, "LOG_LEVEL": "WARNING", "BASE_URL": "https://cafe.example"})
        for number in range(1, args.rounds + 1):
            tag = f"r{number}"
            total, delivered, timings = ours(app, games, args.emails, tag)
            whole.append(total)
            delivery.append(delivered)
            renders += timings
            batch = prebuilt(app, tag)
            sizes += [len(data) for _, data in batch]
            throughput, timings = raw_send(port, batch)
            sends += timings
            raw.append(throughput)
            print(
                f"round {number}: ours {whole[-1]:6.1f} emails/s (delivery alone "
                f"{delivery[-1]:6.1f}) · raw smtplib {raw[-1]:6.1f} emails/s"
            )
    best_raw = statistics.median(raw)
    size = statistics.median(sizes) / 1024
    print(f"\n{args.emails} 'your turn' emails × {args.rounds} rounds, {size:.1f} KiB each")
    rows = [
        ("ours: hints, render, queue, deliver (worker)", statistics.median(whole)),
        ("  of which the worker's delivery alone", statistics.median(delivery)),
        ("raw smtplib, the same messages pre-built", best_raw),
    ]
    for label, value in rows:
        print(f"  {label:46} {value:7.1f} emails/s  {value / best_raw:5.0%} of raw")
    print(f"  target: ours ≥ {TARGET:.0%} of raw")
    print(
        f"  median per email: render {statistics.median(renders) * 1000:.2f} ms · "
        f"raw send {statistics.median(sends) * 1000:.2f} ms"
    )


if __name__ == "__main__":
    main()
