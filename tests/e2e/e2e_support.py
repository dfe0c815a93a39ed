"""Helpers shared by the end-to-end tests."""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

import signin_support
from sqlalchemy import Engine

from server import config

#: The secret key of the servers the end-to-end tests start.
E2E_SECRET_KEY = "e2e-secret-of-at-least-thirty-two-bytes"
#: The sign-in settings of the servers these tests start (the defaults, but the key).
E2E_SIGNIN_CONFIG = config.load("instance", environ={}, overrides={"SECRET_KEY": E2E_SECRET_KEY})
#: The checkout, whose code the operator's commands and workers run.
ROOT = Path(__file__).resolve().parents[2]
#: Seconds the workers get to act on what is due.
WAIT = 30


def worker_environment(database_url: str, smtp_port: int) -> dict[str, str]:
    """The settings of the operator's commands and the mail workers on the development
    clock: this checkout's code, short poll and sweep periods, and no per-recipient limit
    (a game's start, or a season's, mails a player more than a minute's share, and the
    tests do not wait a minute for the rest)."""
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "CAFE_DATABASE_URL": database_url,
        "CAFE_DEV_CLOCK": "1",
        "CAFE_SECRET_KEY": E2E_SECRET_KEY,
        "CAFE_SMTP_PORT": str(smtp_port),
        "CAFE_MAIL_FROM": "Cafe <cafe@cafe.test>",
        "CAFE_WORKER_POLL": "1",
        "CAFE_WORKER_SWEEP": "1",
        "CAFE_MAIL_PER_MINUTE": "0",
        "CAFE_LOG_LEVEL": "WARNING",
    }


def cafe_server(*args: str) -> list[str]:
    """The `cafe-server` command line (the checkout's code, as PYTHONPATH says)."""
    return [sys.executable, "-c", "from server.cli import app; app()", *args]


def wait_for(what: str, done: Callable[[], bool]) -> None:
    """Wait until `done()`, at most `WAIT` seconds (then fail, saying `what` was awaited)."""
    deadline = time.monotonic() + WAIT
    while not done():
        assert time.monotonic() < deadline, f"the workers did not {what} in {WAIT} s"
        time.sleep(0.1)


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def mailed_code(engine: Engine, email: str, *, link: bool = False) -> str:
    """The sign-in code (`link`: the link's code) in the newest email to `email`, as its
    reader would find it (no worker runs beside these servers: `signin_support` takes the
    step the worker would take to render it)."""
    return signin_support.mailed_code(engine, E2E_SIGNIN_CONFIG, email, link=link)
