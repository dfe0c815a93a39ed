"""Helpers shared by the end-to-end tests."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
