"""The tests' one SMTP catcher: real SMTP servers (aiosmtpd) on loopback, each in a thread.

The fixture `smtp_catcher` (tests/conftest.py) gives a test a `Catchers`: `start()` runs a
server for a handler (by default a `CatchingHandler`, which keeps what it receives) on a
free port or the one given, `stop(port)` ends it (a mail server going away), and every
server still running is stopped when the test ends.
"""

from __future__ import annotations

import socket
from typing import Any

from aiosmtpd.controller import Controller

from server.devmail import CatchingHandler


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Catchers:
    """The SMTP servers one test started, by port."""

    def __init__(self) -> None:
        self._running: dict[int, Controller] = {}

    def start(
        self, handler: Any = None, *, port: int | None = None, smtputf8: bool = True
    ) -> tuple[Any, int]:
        """Serve `handler` (a new `CatchingHandler` if none) on `port` (a free one if none);
        `smtputf8`: whether the server offers SMTPUTF8. The handler and the port."""
        served = CatchingHandler() if handler is None else handler
        port = free_port() if port is None else port
        controller = Controller(served, hostname="127.0.0.1", port=port, enable_SMTPUTF8=smtputf8)
        controller.start()
        self._running[port] = controller
        return served, port

    def stop(self, port: int) -> None:
        """Stop the server on `port`."""
        self._running.pop(port).stop()

    def stop_all(self) -> None:
        """Stop every server still running."""
        for port in list(self._running):
            self.stop(port)
