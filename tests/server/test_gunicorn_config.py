"""`server.gunicorn_config`: its worker leaves a new connection for a moment to a less busy
worker (taking it at once when it holds none or is the only worker, after 1 ms per
connection it holds otherwise, if the connection is still waiting then), and a started
worker freezes its objects out of garbage collection."""

from __future__ import annotations

import gc
import os
import selectors
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from gunicorn.config import Config

from server import gunicorn_config

ROOT = Path(__file__).resolve().parents[2]


def _settings() -> ModuleType:
    return gunicorn_config


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    with socket.create_server(("127.0.0.1", 0)) as sock:
        yield sock


def _worker(listener: socket.socket, workers: int):  # -> BalancedThreadWorker
    settings = _settings()
    config = Config()
    config.set("workers", workers)
    worker = settings.BalancedThreadWorker(1, os.getpid(), [listener], None, 30, config, None)
    worker.poller = selectors.DefaultSelector()
    worker.enqueue_req = lambda conn: None  # accepted connections are only counted here
    worker.set_accept_enabled(True)
    return worker


def _connect(listener: socket.socket) -> socket.socket:
    return socket.create_connection(listener.getsockname())


def test_the_procfile_web_uses_this_file_and_its_worker():
    settings = _settings()
    assert "--config python:server.gunicorn_config" in (ROOT / "Procfile").read_text()
    assert settings.worker_class is settings.BalancedThreadWorker


def test_a_busy_worker_leaves_a_new_connection_waiting_then_takes_it(listener):
    worker = _worker(listener, workers=2)
    first, second = _connect(listener), _connect(listener)
    worker.wait_for_and_dispatch_events(1.0)
    assert worker.nr_conns == 1  # holding none, it took one at once
    worker.wait_for_and_dispatch_events(1.0)
    assert worker.nr_conns == 1  # holding one, it leaves the other for 1 ms
    worker.set_accept_enabled(True)
    worker.wait_for_and_dispatch_events(0.0)
    assert worker.nr_conns == 1
    time.sleep(0.002)
    worker.set_accept_enabled(True)  # as its loop does: the wait is over
    worker.wait_for_and_dispatch_events(1.0)
    assert worker.nr_conns == 2
    first.close()
    second.close()


def test_a_lone_worker_takes_every_connection_at_once(listener):
    worker = _worker(listener, workers=1)
    clients = [_connect(listener) for _ in range(3)]
    for _ in clients:
        worker.wait_for_and_dispatch_events(1.0)
    assert worker.nr_conns == 3
    for client in clients:
        client.close()


def test_a_started_worker_freezes_its_objects():
    try:
        _settings().post_worker_init(None)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
