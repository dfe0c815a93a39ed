"""Fixtures for the client tests: one live service per test process (players get unique
names, so tests share it safely), a fresh config directory per test, and signed-in players."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from client_support import Cafe, LiveServer, Player


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the views draw directly sees an 80-column terminal, whatever terminal runs the
    tests (their tables take the terminal's width); `cafe` runs set `COLUMNS` themselves."""
    monkeypatch.setenv("COLUMNS", "80")


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer.on_file(tmp_path_factory.mktemp("service") / "cafe.db")
    yield server
    server.stop()


@pytest.fixture
def cafe(live_server: LiveServer, tmp_path: Path) -> Cafe:
    """`cafe` with a config directory of its own (no profile stored yet)."""
    return Cafe(live_server, tmp_path / "config")


@pytest.fixture
def ann(cafe: Cafe) -> Player:
    return cafe.sign_up("ann")


@pytest.fixture
def bob(cafe: Cafe) -> Player:
    return cafe.sign_up("bob")


@pytest.fixture
def game(cafe: Cafe, ann: Player, bob: Player) -> int:
    """A started two-player game of ann and bob."""
    return cafe.started_game(ann, bob)


@pytest.fixture
def players(ann: Player, bob: Player) -> list[Player]:
    return [ann, bob]


@pytest.fixture
def dead_url() -> str:
    """A loopback URL where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
