"""For every test: no mail to a developer's running service.

`make run` catches mail on port 8025, the service's default `SMTP_PORT`; a test that sends
mail without naming a port (a worker run through the CLI, a subprocess) would deliver it
there. Every test gets its own free port instead, in `CAFE_SMTP_PORT`, which the service
and its subprocesses read; nothing listens on it unless the test starts a server there.
"""

from __future__ import annotations

import socket

import pytest


def unused_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(autouse=True)
def own_smtp_port(monkeypatch: pytest.MonkeyPatch) -> int:
    """This test's SMTP port (never 8025)."""
    port = unused_port()
    monkeypatch.setenv("CAFE_SMTP_PORT", str(port))
    return port
