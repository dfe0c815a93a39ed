"""The service behind a real PgBouncer in transaction mode (`CAFE_DATABASE_PGBOUNCER=1`):
games played from several threads at once and their mail claimed and sent, through a
PgBouncer that lends two server connections to all of them, so that consecutive
transactions of one client connection run on different server connections.

Without the setting, psycopg prepares a statement on the server once it has run five times
on a connection, and the next transaction, on another server connection, does not find it
(or finds another client's of the same name): requests fail. With it nothing outlives a
transaction on a server connection, and the worker's engine passes no startup option, which
PgBouncer would refuse. Needs PostgreSQL (`CAFE_TEST_DATABASE_URL`) and PgBouncer (`make
test` installs Debian's, `tests/prerequisites.py`)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from postgres_support import empty_tables
from server_support import TEST_CONFIG, Api, free_port
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, func, select

from server.app import create_app
from server.config import settings_of
from server.db import get_engine, make_engine
from server.jobs.worker import Worker, worker_engine
from server.models import OutboxMessage

PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
#: Server connections PgBouncer lends to all the clients: fewer than the threads playing.
SERVER_CONNECTIONS = 2
THREADS = 4
#: Turns each thread plays in its own game: well past psycopg's five runs of a statement.
TURNS = 12


@pytest.fixture
def bouncer(postgres_url: str) -> Iterator[str]:
    """PgBouncer in transaction mode in front of the session's PostgreSQL database; its URL."""
    if not Path(PGBOUNCER).exists():
        pytest.fail("PgBouncer is not installed: apt-get install pgbouncer (make test does)")
    database = make_url(postgres_url)
    port = free_port()
    # PgBouncer will not run as root: there it takes the postgres user's identity (`-u`),
    # so its folder and files must be readable by that user
    folder = Path(tempfile.mkdtemp(prefix="cafe-pgbouncer-"))
    folder.chmod(0o755)
    (folder / "users.txt").write_text(f'"{database.username}" ""\n')
    (folder / "pgbouncer.ini").write_text(
        "[databases]\n"
        f"* = host={database.host} port={database.port or 5432}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\n"
        f"auth_type = trust\nauth_file = {folder / 'users.txt'}\n"
        f"pool_mode = transaction\ndefault_pool_size = {SERVER_CONNECTIONS}\n"
        "max_client_conn = 100\nunix_socket_dir =\n"
    )
    for file in folder.iterdir():
        file.chmod(0o644)
    identity = ["-u", "postgres"] if os.geteuid() == 0 else []
    process = subprocess.Popen(
        [PGBOUNCER, *identity, str(folder / "pgbouncer.ini")],
        stdout=subprocess.DEVNULL,
        stderr=(folder / "out.log").open("wb"),
    )
    try:
        _wait_for(port, process, folder / "out.log")
        yield database.set(port=port).render_as_string(hide_password=False)
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def _wait_for(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"PgBouncer ended at once: {log.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    pytest.fail(f"PgBouncer did not listen on {port}: {log.read_text()}")


def bounced_app(postgres_url: str, bouncer: str) -> Flask:
    """The app with the setting, through PgBouncer, on the emptied database."""
    empty_tables(postgres_url)  # straight to the database: the app goes through PgBouncer
    return create_app({**TEST_CONFIG, "DATABASE_URL": bouncer, "DATABASE_PGBOUNCER": True})


def play_in_threads(app: Flask) -> list[str]:
    """`THREADS` games, each played `TURNS` turns by a thread of its own, all at once; what
    went wrong (a turn answered otherwise than 201, or an error)."""
    api = Api(app, app.test_client())
    games = [api.started_game(f"ann{n}", f"bob{n}") for n in range(THREADS)]
    problems: list[str] = []

    def play(game: int, tokens: dict[str, str]) -> None:
        client = app.test_client()
        try:
            for _ in range(TURNS):
                state = _get(client, f"/api/games/{game}", next(iter(tokens.values())))
                mover = tokens[state["to_move"]]
                hints = _get(client, f"/api/games/{game}/hints?n=1", mover)
                body = {"turn": hints["hints"][0]["turn"], "version": state["version"]}
                answer = client.post(f"/api/games/{game}/turns", json=body, headers=_bearer(mover))
                if answer.status_code != 201:
                    problems.append(f"game {game}: {answer.status_code} {answer.json}")
                    return
        except Exception as error:  # what the test reports, whatever it is
            problems.append(f"game {game}: {type(error).__name__}: {error}")

    threads = [threading.Thread(target=play, args=game) for game in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    api.close()
    return problems


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _get(client: Any, path: str, token: str) -> Any:
    answer = client.get(path, headers=_bearer(token))
    assert answer.status_code == 200, (path, answer.status_code, answer.json)
    return answer.json


def test_games_and_their_mail_go_through_pgbouncer_with_the_setting(
    postgres_url: str, bouncer: str, smtp_server: Any
) -> None:
    app = bounced_app(postgres_url, bouncer)
    assert play_in_threads(app) == []
    engine = get_engine(app)
    with engine.connect() as connection:
        played = connection.execute(
            text("SELECT count(*) FROM turns WHERE source = 'api' GROUP BY game_id")
        ).scalars()
        assert list(played) == [TURNS] * THREADS
    # the worker's own engine through PgBouncer: it would be refused a startup option
    _, port = smtp_server
    config = settings_of(app).replace(SMTP_PORT=port, MAIL_PER_MINUTE=0)
    worker = Worker(worker_engine(config), config)
    while worker.run_once():
        pass
    with Session(engine) as session:
        unsent = session.exec(
            select(func.count()).where(OutboxMessage.status.in_(("pending", "sending")))  # type: ignore[attr-defined]
        ).one()
        sent = session.exec(select(func.count()).where(OutboxMessage.status == "sent")).one()
    assert unsent == 0
    assert sent > 2 * THREADS  # the sign-ins, and the your-turn mail still current when sent
    engine.dispose()


@pytest.mark.parametrize("pgbouncer", [False, True])
def test_only_with_the_setting_do_two_connections_take_turns_on_one_server_connection(
    bouncer: str, pgbouncer: bool
) -> None:
    """The same statement, run again and again by two clients in turn, each run its own
    transaction: PgBouncer gives each transaction whichever server connection is free, so
    a statement psycopg prepared on one is missing on (or clashes with another client's
    on) the next."""
    engine = make_engine(bouncer, pgbouncer=pgbouncer)
    first, second = engine.connect(), engine.connect()
    failure = None
    try:
        for run in range(8):  # psycopg prepares a statement on its fifth run
            for connection in (first, second):
                connection.execute(text("SELECT CAST(:run AS integer) + 1"), {"run": run})
                connection.commit()
    except DBAPIError as error:
        failure = str(error.orig)
    finally:
        first.close()
        second.close()
        engine.dispose()
    if pgbouncer:
        assert failure is None
    else:
        assert failure is not None and "prepared statement" in failure, failure
