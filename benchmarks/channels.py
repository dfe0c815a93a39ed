"""Channel deliveries (issue 26): 1,000 your-turn events to 1,000 signed webhooks on a local
receiver, sent by the worker's deliveries, side by side with a bare `requests` loop.

Ours: 1,000 players, each with a webhook channel on the receiver (allowed through
`CAFE_CHANNELS_ALLOW=127.0.0.1/32`) and a running game whose "your turn" delivery is
queued; `server.jobs.deliveries.Deliveries` claims them, renders each from its game in its
owner's language, checks its URL with the guard, signs it, sends it over a pinned
connection and records it. Bare: one `requests.Session` POSTs the very same bodies, made
beforehand, to the same receiver one after another. The receiver runs in its own process,
as a real one would. The rounds alternate; the medians and their ratio are printed.

    .venv/bin/python benchmarks/channels.py [--events 1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # `benchmarks/server.py` would shadow the service's package

import requests  # noqa: E402
from sqlalchemy import insert  # noqa: E402
from sqlmodel import Session, col, select, update  # noqa: E402

from server import migrate  # noqa: E402
from server.app import create_app  # noqa: E402
from server.channels import formats  # noqa: E402
from server.config import settings_of  # noqa: E402
from server.db import get_engine  # noqa: E402
from server.jobs.deliveries import Deliveries  # noqa: E402
from server.models import Channel, ChannelDelivery, GameRecord, Player, table_of, utcnow  # noqa: E402
from server.postbox import pings  # noqa: E402

RECEIVER = textwrap.dedent(
    """
    import sys
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()
    """
)


def setup(database: Path, port: int, events: int) -> tuple[object, list[int]]:
    """The app on a fresh database with `events` players, channels and games; the app and
    the channels' ids."""
    url = f"sqlite:///{database}"
    migrate.upgrade(url)
    app = create_app(
        {
            "DATABASE_URL": url,
            "SECRET_KEY": "benchmark-secret-of-at-least-thirty-two-bytes",
            "CHANNELS_ALLOW": "127.0.0.1/32",
            "LOG_LEVEL": "WARNING",
        }
    )
    engine = get_engine(app)
    now = utcnow()
    with Session(engine) as session:
        session.execute(
            insert(table_of(Player)),
            [
                {
                    "name": f"player{n}",
                    "email": f"p{n}@example.com",
                    "language": ("en", "cs", "de", "ru")[n % 4],
                    "name_skeleton": f"player{n}",
                    "created_at": now,
                    "vacation_as_of": now,
                }
                for n in range(events)
            ],
        )
        players = session.exec(select(Player.id).order_by(col(Player.id))).all()
        session.execute(
            insert(table_of(Channel)),
            [
                {
                    "player_id": player,
                    "kind": "webhook",
                    "url": f"http://127.0.0.1:{port}/hook/{player}",
                    "secret": formats.new_secret(),
                    "events": ["your_turn"],
                    "state": "active",
                    "created_at": now,
                }
                for player in players
            ],
        )
        session.execute(
            insert(table_of(GameRecord)),
            [
                {
                    "creator_id": player,
                    "status": "active",
                    "seats": 2,
                    "options": {},
                    "invited": [],
                    "version": 1,
                    "state": {"players": [f"player{n}", "opponent"], "to_move": 0},
                    "created_at": now,
                    "player_clocks": {},
                    "reminded": [],
                    "clock_holds": [],
                    "computers": [],
                }
                for n, player in enumerate(players)
            ],
        )
        session.commit()
        channels = list(session.exec(select(Channel.id).order_by(col(Channel.id))).all())
    return app, [c for c in channels if c is not None]


def ours(app: object, channels: list[int]) -> float:
    """Queue one your-turn delivery per channel and send them all; seconds taken."""
    engine = get_engine(app)  # type: ignore[arg-type]
    with Session(engine) as session:
        session.execute(update(ChannelDelivery).values(status="done"))
        games = session.exec(select(GameRecord.id).order_by(col(GameRecord.id))).all()
        now = utcnow()
        session.execute(
            insert(pings.TABLE),
            [
                pings.delivery_row(channel, pings.ChannelEvent.YOUR_TURN, now, game_id=g, version=1)
                for channel, g in zip(channels, games, strict=True)
            ],
        )
        session.commit()
    sender = Deliveries(engine, settings_of(app))  # type: ignore[arg-type]
    start = time.perf_counter()
    while sender.run_once(wait_for=0.05):
        pass
    took = time.perf_counter() - start
    sender.close()
    with Session(engine) as session:
        sent = session.exec(
            select(ChannelDelivery.id).where(ChannelDelivery.status == "sent")
        ).all()
    assert len(sent) == len(channels), f"{len(sent)} of {len(channels)} sent"
    return took


def bare(port: int, events: int) -> float:
    """The same number of signed POSTs from a plain `requests` loop; seconds taken."""
    secret = formats.new_secret()
    bodies = [
        (f"msg_{n:032x}", f'{{"type":"your_turn","data":{{"game":{n}}}}}'.encode())
        for n in range(events)
    ]
    session = requests.Session()
    start = time.perf_counter()
    for n, (delivery, body) in enumerate(bodies):
        stamp = int(time.time())
        answer = session.post(
            f"http://127.0.0.1:{port}/hook/{n}",
            data=body,
            headers={
                "Content-Type": "application/json",
                "webhook-id": delivery,
                "webhook-timestamp": str(stamp),
                "webhook-signature": formats.signature(secret, delivery, stamp, body),
            },
            timeout=10,
        )
        assert answer.status_code == 204
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    receiver = subprocess.Popen([sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE, text=True)
    try:
        assert receiver.stdout is not None
        port = int(receiver.stdout.readline())
        with tempfile.TemporaryDirectory() as folder:
            app, channels = setup(Path(folder) / "bench.db", port, args.events)
            our_times, bare_times = [], []
            for _ in range(args.rounds):
                our_times.append(ours(app, channels))
                bare_times.append(bare(port, args.events))
            get_engine(app).dispose()  # type: ignore[arg-type]
    finally:
        receiver.kill()
    ours_rate = args.events / statistics.median(our_times)
    bare_rate = args.events / statistics.median(bare_times)
    print(f"events per round: {args.events}, rounds: {args.rounds}")
    print(f"ours (queued rows → worker deliveries): {ours_rate:8.0f} deliveries/s")
    print(f"bare requests loop:                     {bare_rate:8.0f} POSTs/s")
    print(f"ratio ours / bare: {ours_rate / bare_rate:.2f}")


if __name__ == "__main__":
    main()
