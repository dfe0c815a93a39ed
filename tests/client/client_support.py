"""Helpers for the client tests: the real service on loopback, and `cafe` run in-process.

`LiveServer` serves `server.app.create_app()` with werkzeug in a thread on an ephemeral port,
over a SQLite file, so the client talks real HTTP to the real app. `Cafe` runs the Typer
app through `CliRunner` with an isolated config directory; a `Player` is one profile in
it, registered and signed in with `cafe register` and `cafe login` (the code is read from
the outbox, where the email waits, as a person would read their mail).
"""

from __future__ import annotations

import json
import logging
import re
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
from flask import Flask
from signin_support import mailed_code
from sqlmodel import Session, SQLModel, col, select
from typer.testing import CliRunner, Result
from werkzeug.serving import BaseWSGIServer, make_server

from cafe import Game
from client.app import app as cafe_app
from server.app import create_app
from server.config import settings_of
from server.db import get_engine
from server.mail import events
from server.models import GameRecord, OutboxMessage

TEST_CONFIG = {
    "SECRET_KEY": "client-test-secret-of-at-least-32-bytes",
    # every test client is 127.0.0.1: the per-client limits are tested on their own; and a
    # session's live server takes all its sign-ups (over 200) within the hour the overall
    # limit counts (tested on its own too)
    "SIGNUPS_PER_CLIENT": 10_000,
    "SIGNUPS_PER_HOUR": 100_000,
    "CODE_REQUESTS_PER_CLIENT": 10_000,
    "SIGNIN_GUESSES_PER_CLIENT": 10_000,
    "BASE_URL": "http://cafe.test",
    "MAIL_FROM": "Cafe <cafe@cafe.test>",
    "LOG_LEVEL": "WARNING",
}

#: Environment variables that would leak the developer's own settings into a test.
CLEAN_ENV: dict[str, str | None] = {
    "CAFE_SERVER": None,
    "CAFE_TOKEN": None,
    "CAFE_PROFILE": None,
    "NO_COLOR": None,
    # the developer's language: every test speaks English unless it chooses another
    "CAFE_LANG": None,
    "LANGUAGE": None,
    "LC_ALL": None,
    "LC_MESSAGES": None,
    "LANG": None,
    "COLUMNS": "100",  # the board's layout follows the width: the same wherever tests run
}


class LiveServer:
    """The service on 127.0.0.1 with an ephemeral port, until `stop()`."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no access lines
        self._server: BaseWSGIServer = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @classmethod
    def on_file(cls, database: Path) -> LiveServer:
        app = create_app({**TEST_CONFIG, "DATABASE_URL": f"sqlite:///{database}"})
        SQLModel.metadata.create_all(get_engine(app))
        return cls(app)

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join(timeout=10)
        if "cafe_engine" in self.app.extensions:
            get_engine(self.app).dispose()

    def postbox(self, to: str) -> list[str]:
        """The bodies of the emails queued for `to`, oldest first (a sign-in email's is
        empty: it is rendered only when sent); the notices rendered as the worker will."""
        engine = get_engine(self.app)
        with Session(engine) as session:
            waiting = session.exec(
                select(OutboxMessage).where(
                    col(OutboxMessage.payload).is_not(None), col(OutboxMessage.body).is_(None)
                )
            ).all()
            session.expunge_all()
        with Session(engine) as session:
            for row in events.prepare(engine, settings_of(self.app), waiting).ready:
                session.merge(row)
            session.commit()
        with Session(get_engine(self.app)) as session:
            query = select(OutboxMessage.body).where(OutboxMessage.to_addr == to)
            return [body or "" for body in session.exec(query.order_by(col(OutboxMessage.id)))]

    def code_for(self, email: str, *, link: bool = False) -> str:
        """The sign-in code (`link`: the link's code) in the newest sign-in email to
        `email` (`signin_support`)."""
        return mailed_code(get_engine(self.app), settings_of(self.app), email, link=link)

    def rearrange(self, game_id: int, change: Callable[[dict[str, Any]], None]) -> None:
        """Change a running game's stored position in place (checked by the engine), to
        reach a situation quickly; its log no longer replays to it, which no test here needs."""
        with Session(get_engine(self.app)) as session:
            game = session.get(GameRecord, game_id)
            assert game is not None and game.state is not None
            position = json.loads(json.dumps(game.state))
            change(position)
            game.state = Game.from_position(position).to_position()
            session.add(game)
            session.commit()

    def call(self, method: str, path: str, token: str, **kwargs: Any) -> requests.Response:
        """A direct API request (for what another device or player does meanwhile)."""
        headers = {"Authorization": f"Bearer {token}", **kwargs.pop("headers", {})}
        return requests.request(method, self.url + path, headers=headers, timeout=10, **kwargs)


class Cafe:
    """`cafe` run in-process with its own config directory."""

    def __init__(self, server: LiveServer, config_dir: Path) -> None:
        self.server = server
        self.config_dir = config_dir
        self.runner = CliRunner()

    def run(
        self, *args: str, input: str | None = None, env: Mapping[str, str | None] | None = None
    ) -> Result:
        """`cafe ARGS…` as the user would type it; stdout and stderr kept apart."""
        environment = {**CLEAN_ENV, "CAFE_CONFIG_DIR": str(self.config_dir), **(env or {})}
        return self.runner.invoke(
            cafe_app, list(args), input=input, env=environment, prog_name="cafe"
        )

    def sign_up(self, name: str) -> Player:
        """A fresh player (`name` plus a unique suffix) registered and signed in with `cafe`,
        in a profile of its own name. The suffix ends in a digit: a name of letters only
        ("cideddffc") would read as a word to the tests that look for English left in a
        translated run."""
        drawn = uuid.uuid4().hex
        unique = f"{name}{drawn[:5]}{int(drawn[5:], 16) % 10}"
        player = Player(self, unique, f"{unique}@example.com")
        registered = player.run("register", unique, player.email, "--server", self.server.url)
        assert registered.exit_code == 0, registered.output
        signed_in = player.run("login", player.email, "--code", self.server.code_for(player.email))
        assert signed_in.exit_code == 0, signed_in.output
        player.token = json.loads((self.config_dir / "credentials.json").read_text())[unique][
            "token"
        ]
        return player

    def started_game(self, *players: Player, **options: str) -> int:
        """A game of `players` opened by the first, joined by the rest and started; its id."""
        extra = [item for key, value in options.items() for item in (f"--{key}", value)]
        opened = players[0].run("new", "--seats", str(len(players)), *extra)
        assert opened.exit_code == 0, opened.output
        game_id = int(re.search(r"Game (\d+) is open", opened.stdout).group(1))  # type: ignore[union-attr]
        for player in players[1:]:
            joined = player.run("join", str(game_id))
            assert joined.exit_code == 0, joined.output
        started = players[0].run("start", str(game_id))
        assert started.exit_code == 0, started.output
        return game_id


@dataclass
class Player:
    """One signed-in player: a profile in the shared config directory."""

    cafe: Cafe
    name: str
    email: str
    token: str = ""

    def run(
        self, *args: str, input: str | None = None, env: Mapping[str, str | None] | None = None
    ) -> Result:
        return self.cafe.run("--profile", self.name, *args, input=input, env=env)

    def state(self, game_id: int) -> dict[str, Any]:
        shown = self.run("show", str(game_id), "--json")
        assert shown.exit_code == 0, shown.output
        return json.loads(shown.stdout)

    def best_turn(self, game_id: int) -> str:
        """The first hint `cafe hint` gives, as the turn text of its `cafe move` command."""
        hinted = self.run("hint", str(game_id), "-n", "1")
        assert hinted.exit_code == 0, hinted.output
        first = next(line for line in hinted.stdout.splitlines() if "cafe move" in line)
        return first.split(f"cafe move {game_id} ", 1)[1]


def to_move(players: list[Player], state: dict[str, Any]) -> Player:
    """The player whose turn it is."""
    return next(player for player in players if player.name == state["to_move"])
