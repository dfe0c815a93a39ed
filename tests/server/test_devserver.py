"""`cafe-server dev`'s settings: the per-address limits raised for one machine (production
keeps its own), and the note that lets the other `cafe-server` commands started beside a
running development service use its settings — only that service's, only without a key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from server import config
from server.devserver import DEV_LIMITS, MARKER, attached_settings, dev_settings

PRODUCTION_LIMITS = {
    "SIGNUPS_PER_CLIENT": 5,
    "CODE_REQUESTS_PER_CLIENT": 10,
    "SIGNIN_GUESSES_PER_CLIENT": 20,
    "SIGNIN_CODES_PER_HOUR": 5,
}


def test_production_keeps_its_limits_and_development_raises_them(tmp_path: Path) -> None:
    defaults = config.load(tmp_path, environ={}, overrides={"DEVELOPMENT": True})
    assert {key: getattr(defaults, key.lower()) for key in PRODUCTION_LIMITS} == PRODUCTION_LIMITS
    settings = dev_settings(base_url="http://127.0.0.1:6100", environ={})
    assert all(settings[key] >= 20 * PRODUCTION_LIMITS[key] for key in PRODUCTION_LIMITS)
    assert settings["DEVELOPMENT"] and settings["DEV_CLOCK"]
    assert settings["BASE_URL"] == "http://127.0.0.1:6100"


def test_a_limit_the_environment_sets_stands_in_development() -> None:
    settings = dev_settings(base_url="http://x", environ={"CAFE_SIGNUPS_PER_CLIENT": "3"})
    assert "SIGNUPS_PER_CLIENT" not in settings  # the environment's 3 is read as usual
    assert settings["CODE_REQUESTS_PER_CLIENT"] == DEV_LIMITS["CODE_REQUESTS_PER_CLIENT"]


def note(folder: Path, **running: object) -> dict[str, str]:
    """A development service's note in `folder`; the environment of a command beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    fields = {"pid": os.getpid(), "database_url": f"sqlite:///{folder / 'cafe.db'}",
              "base_url": "http://127.0.0.1:6100", **running}  # fmt: skip
    (folder / MARKER).write_text(json.dumps(fields))
    return {"CAFE_INSTANCE_DIR": str(folder)}


def test_a_command_beside_a_running_development_service_takes_its_settings(tmp_path: Path):
    environ = note(tmp_path / "instance")
    settings = attached_settings(environ)
    assert settings == dev_settings(base_url="http://127.0.0.1:6100", environ=environ)


def a_finished_process() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


@pytest.mark.parametrize(
    "case", ["no note", "a secret key", "another database", "a stopped service", "garbage"]
)
def test_anything_else_runs_as_configured(tmp_path: Path, case: str) -> None:
    folder = tmp_path / "instance"
    environ = {"CAFE_INSTANCE_DIR": str(folder)}
    if case == "a secret key":
        environ = note(folder) | {"CAFE_SECRET_KEY": "a" * 40}
    elif case == "another database":
        environ = note(folder) | {"CAFE_DATABASE_URL": f"sqlite:///{tmp_path / 'other.db'}"}
    elif case == "a stopped service":
        environ = note(folder, pid=a_finished_process())
    elif case == "garbage":
        folder.mkdir()
        (folder / MARKER).write_text("{not json")
    assert attached_settings(environ) is None
