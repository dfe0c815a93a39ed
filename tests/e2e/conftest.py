"""Fixtures for end-to-end tests: a real gunicorn (2 workers × 4 threads) serving
`server.app:create_app()` on a SQLite file, or on PostgreSQL when `CAFE_TEST_DATABASE_URL` is
set, killed and restarted at will; plus an HTTP client that signs players in the way a
person does (the code is read from the outbox, where the email waits)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import requests
from e2e_support import E2E_SECRET_KEY, free_port, mailed_code
from postgres_support import scratch_postgres
from smtp_support import Catchers

from server import migrate
from server.db import make_engine
from server.devmail import CatchingHandler

PG_URL = os.environ.get("CAFE_TEST_DATABASE_URL")
BACKENDS = ["sqlite", "postgresql"] if PG_URL else ["sqlite"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything here is `slow` (`pytest -m "not slow"` leaves it out)."""
    for item in items:
        if "tests/e2e/" in str(item.path).replace(os.sep, "/"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module", params=BACKENDS)
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """An empty, migrated database per test module: a SQLite file, or a fresh PostgreSQL one."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('e2e') / 'e2e.db'}"
        migrate.upgrade(url)
        yield url
        return
    assert PG_URL is not None
    with scratch_postgres(PG_URL, "cafe_e2e") as url:
        yield url


class Server:
    """A gunicorn process group that can be started, killed with SIGKILL and restarted."""

    def __init__(
        self, database_url: str, log_path: Path, env: Mapping[str, str] | None = None
    ) -> None:
        self.database_url = database_url
        self.env = dict(env or {})  # further settings, e.g. CAFE_DEV_CLOCK
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {
            **os.environ,
            "CAFE_DATABASE_URL": self.database_url,
            "CAFE_SECRET_KEY": E2E_SECRET_KEY,
            "CAFE_LOG_LEVEL": "WARNING",
            "CAFE_SIGNUPS_PER_CLIENT": "1000",  # every player of the tests is 127.0.0.1
            "CAFE_CODE_REQUESTS_PER_CLIENT": "1000",
            "CAFE_SIGNIN_GUESSES_PER_CLIENT": "1000",
            **self.env,
        }
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable, "-m", "gunicorn", "--config", "python:server.gunicorn_config",
                    "--workers", "2", "--threads", "4", "--preload",
                    "--bind", f"127.0.0.1:{self.port}",
                    "server.app:create_app()",
                ],
                env=env,
                stdout=log,
                stderr=log,
                start_new_session=True,  # its own process group, killed as one
            )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{self.base}/healthz", timeout=5).status_code == 200:
                    return
            except requests.RequestException:
                time.sleep(0.05)
        raise RuntimeError(f"gunicorn did not start; see {self.log_path}")

    def kill(self) -> None:
        """SIGKILL the master and its workers at once: a crash, nothing cleaned up."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """Gunicorn's quick shutdown (SIGINT to the master); SIGKILL if it lingers."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture(scope="module")
def server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server per test module (tests use fresh player names, so they do not collide)."""
    running = Server(database_url, tmp_path_factory.mktemp("log") / "gunicorn.log")
    running.start()
    yield running
    running.stop()
    log = running.log_path.read_text(errors="replace")
    assert "Traceback" not in log, log


@pytest.fixture(scope="module")
def dev_server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server on the development clock (`CAFE_DEV_CLOCK=1`), one per test module."""
    running = Server(
        database_url, tmp_path_factory.mktemp("log") / "gunicorn.log", {"CAFE_DEV_CLOCK": "1"}
    )
    running.start()
    yield running
    running.stop()
    log = running.log_path.read_text(errors="replace")
    assert "Traceback" not in log, log


class Client:
    """HTTP calls to the server, as the players named in `tokens`."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.engine = make_engine(server.database_url)
        self.tokens: dict[str, str] = {}

    def call(
        self, method: str, path: str, who: str | None = None, **kwargs: Any
    ) -> requests.Response:
        headers = dict(kwargs.pop("headers", {}))
        if who is not None:
            headers["Authorization"] = f"Bearer {self.tokens[who]}"
        return requests.request(
            method, self.server.base + path, headers=headers, timeout=30, **kwargs
        )

    def sign_up(self, name: str) -> str:
        """Register a fresh player named `name` plus a unique suffix; the name used."""
        name = f"{name}{uuid.uuid4().hex[:6]}"
        email = f"{name}@example.com"
        assert self.call("POST", "/api/players", json={"name": name, "email": email}).ok
        code = mailed_code(self.engine, email)
        response = self.call("POST", "/api/tokens", json={"email": email, "code": code})
        assert response.status_code == 201
        self.tokens[name] = response.json()["token"]
        return name

    def new_game(self, *names: str) -> int:
        """A started game of fresh players (the first creates it); its id."""
        names = tuple(self.sign_up(name) for name in names)
        game_id = self.call("POST", "/api/games", names[0], json={"seats": len(names)}).json()["id"]
        for name in names[1:]:
            assert self.call("POST", f"/api/games/{game_id}/join", name).status_code == 200
        assert self.call("POST", f"/api/games/{game_id}/start", names[0]).status_code == 200
        return game_id

    def state(self, game_id: int) -> dict[str, Any]:
        """The game as this client's first player sees it."""
        return self.call("GET", f"/api/games/{game_id}", next(iter(self.tokens))).json()

    def hints(self, game_id: int, who: str, n: int) -> list[str]:
        response = self.call("GET", f"/api/games/{game_id}/hints?n={n}", who)
        return [hint["turn"] for hint in response.json()["hints"]]

    def close(self) -> None:
        self.engine.dispose()


@pytest.fixture
def client(server: Server) -> Iterator[Client]:
    made = Client(server)
    yield made
    made.close()


@pytest.fixture
def dev_client(dev_server: Server) -> Iterator[Client]:
    """A client of the server on the development clock."""
    made = Client(dev_server)
    yield made
    made.close()


@pytest.fixture
def sink(smtp_catcher: Catchers) -> tuple[CatchingHandler, int]:
    """An SMTP server for the mail workers to deliver to, keeping every message."""
    return smtp_catcher.start()
