"""The application factory lives in `server.app`: importing a server module loads what that
module needs, not the app with every blueprint (the `server` package imports nothing)."""

from __future__ import annotations

import subprocess
import sys

import pytest

#: What only the app factory pulls in: the API and the pages with their blueprints.
FACTORY_ONLY = ("server.app", "server.api", "server.web")


def _loaded_after(module: str) -> set[str]:
    """The modules of the service loaded by importing `module` in a fresh Python."""
    script = f"import sys, {module}; print(' '.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return {name for name in done.stdout.split() if name.startswith("server")}


@pytest.mark.parametrize("module", ["server", "server.models", "server.games.store"])
def test_importing_a_server_module_does_not_build_the_app(module):
    loaded = _loaded_after(module)
    blueprints = {name for name in loaded if name.startswith(FACTORY_ONLY)}
    assert not blueprints, f"import {module} loaded {sorted(blueprints)}"


def test_the_factory_loads_the_api_and_the_pages():
    loaded = _loaded_after("server.app")
    assert {"server.api", "server.web"} <= loaded


def test_the_factory_can_queue_notices_without_any_other_import():
    """gunicorn's workers import `server.app` only: that must bring the encoder of notices'
    facts (`server.mail.notices`), or every notice the domain queues fails there."""
    assert "server.mail.notices" in _loaded_after("server.app")
