"""Two live `cafe-server worker` processes on one PostgreSQL database, with the
per-recipient limit on, while four players play: every message reaches the SMTP server
exactly once, and no deadlock between the workers is taken for an outage (issue 21 §1).

Before, the limit's rows were updated in `set()` order, which differs between processes:
the workers deadlocked, the loser's claimed batch stayed `sending`, and once its lease ran
out the messages the SMTP server had already accepted went out again.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from itertools import cycle
from pathlib import Path
from typing import Any

from flask import Flask
from server_support import TEST_CONFIG, Api, free_port
from sqlmodel import Session, select

from server.config import settings_of
from server.db import get_engine
from server.devmail import CatchingHandler
from server.jobs import outbox
from server.models import OutboxMessage

ROOT = Path(__file__).resolve().parents[3]
PLAYERS = ("ann", "bob", "cid", "dan")
#: How long the players play while both workers deliver (the issue's test: a minute).
PLAYING = 60
#: The recipient limit: on, and high enough that this game mail stays under it.
PER_MINUTE = 100_000
#: Games played side by side: each moves on slowly enough that its mail is still current
#: when a worker renders it, so that most of it is sent.
GAMES = 120
#: How long the SMTP server takes over a message (a real one takes its time): mail queues
#: up, so the workers claim full batches, sent over several chunks.
SMTP_DELAY = 0.01
#: A lease shorter than the default (300 s), so that a batch left behind is claimed and
#: sent again within the test; long enough for any batch a live worker is sending.
LEASE = 20


class SlowHandler(CatchingHandler):
    """A sink that takes `SMTP_DELAY` over each message."""

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.sleep(SMTP_DELAY)
        return await super().handle_DATA(server, session, envelope)


def start_worker(url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "CAFE_DATABASE_URL": url,
        "CAFE_SMTP_PORT": str(port),
        "CAFE_SECRET_KEY": TEST_CONFIG["SECRET_KEY"],
        "CAFE_MAIL_FROM": "Cafe <cafe@cafe.test>",
        "CAFE_BASE_URL": "http://cafe.test",
        "CAFE_MAIL_PER_MINUTE": str(PER_MINUTE),
        "CAFE_OUTBOX_LEASE": str(LEASE),
        "CAFE_WORKER_POLL": "1",
        "CAFE_LOG_LEVEL": "INFO",
    }
    return subprocess.Popen(
        [str(Path(sys.executable).with_name("cafe-server")), "worker"],
        env=env,
        stderr=log.open("wb"),
        cwd=ROOT,
    )


def new_game(api: Api, tokens: dict[str, str], names: tuple[str, ...]) -> int:
    body = {"seats": len(names)}
    game = api.call("POST", "/api/games", tokens[names[0]], json=body).json
    for name in names[1:]:
        assert api.call("POST", f"/api/games/{game['id']}/join", tokens[name]).status_code == 200
    assert api.call("POST", f"/api/games/{game['id']}/start", tokens[names[0]]).status_code == 200
    return game["id"]


def play_one_turn(api: Api, tokens: dict[str, str], game_id: int) -> bool:
    """The player to move plays the best turn; False once the game is over."""
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    if state["status"] != "active":
        return False
    token = tokens[state["to_move"]]
    hint = api.call("GET", f"/api/games/{game_id}/hints?n=1", token).json["hints"][0]
    body = {"turn": hint["turn"], "version": state["version"]}
    assert api.call("POST", f"/api/games/{game_id}/turns", token, json=body).status_code == 201
    return True


def unsettled(app: Flask) -> int:
    with Session(get_engine(app)) as session:
        return len(
            session.exec(
                select(OutboxMessage.id).where(
                    OutboxMessage.status.in_(("pending", "sending"))  # type: ignore[attr-defined]
                )
            ).all()
        )


def test_two_live_workers_send_every_message_once(postgres_app, tmp_path, smtp_catcher):
    api = Api(postgres_app, postgres_app.test_client())
    tokens = {name: api.register(name) for name in PLAYERS}
    for token in tokens.values():  # everybody hears of every turn: mail to all four
        api.call("PATCH", "/api/me/preferences", token, json={"others_turns": True})
    tables = cycle([PLAYERS, PLAYERS[:2], PLAYERS[2:], PLAYERS[1:]])
    games = [new_game(api, tokens, next(tables)) for _ in range(GAMES)]
    handler = SlowHandler()
    port = free_port()
    smtp_catcher.start(handler, port=port)
    url = settings_of(postgres_app).database_url
    logs = [tmp_path / "first.log", tmp_path / "second.log"]
    workers = [start_worker(url, port, log) for log in logs]
    turns = 0
    try:
        end = time.monotonic() + PLAYING
        while time.monotonic() < end:
            for index, game_id in enumerate(games):
                if play_one_turn(api, tokens, game_id):
                    turns += 1
                else:
                    games[index] = new_game(api, tokens, next(tables))
        drained = time.monotonic() + 60 + 2 * LEASE  # a batch left behind is sent again
        while unsettled(postgres_app):
            assert time.monotonic() < drained, outbox.counts(get_engine(postgres_app))
            time.sleep(0.2)
    finally:
        for worker in workers:
            worker.send_signal(signal.SIGTERM)
        for worker in workers:
            worker.wait(timeout=30)
        smtp_catcher.stop(port)
    received = Counter(message["Message-ID"] for message in handler.messages)
    twice = {mid: count for mid, count in received.items() if count > 1}
    with Session(get_engine(postgres_app)) as session:
        marked = set(
            session.exec(select(OutboxMessage.message_id).where(OutboxMessage.status == "sent"))
        )
    text = "\n".join(log.read_text() for log in logs)
    print(
        f"{turns} turns; {sum(received.values())} messages received, {len(received)} distinct, "
        f"{len(twice)} more than once, {len(set(received) - marked)} not marked sent; "
        f"outbox {outbox.counts(get_engine(postgres_app))}; "
        f"{text.count('cannot be reached')} deadlocks logged as outages"
    )
    assert len(received) > 500  # the workers had plenty to share
    assert not twice, f"{len(twice)} of {len(received)} messages sent more than once"
    assert set(received) == marked  # what went out is marked sent, and nothing else
    assert "cannot be reached" not in text, text
    assert "Traceback" not in text, text
