"""Configuration: defaults, `CAFE_*` environment variables, test overrides, refusals."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError
from server_support import TEST_CONFIG
from sqlalchemy import text

from server import config
from server.app import create_app
from server.config import settings_of
from server.db import get_engine

#: A production-worthy key, as the environment gives it.
KEY = {"CAFE_SECRET_KEY": TEST_CONFIG["SECRET_KEY"]}


def test_defaults_run_locally(tmp_path):
    settings = config.load(tmp_path, environ={}, overrides={"DEVELOPMENT": True})
    assert settings.database_url == f"sqlite:///{tmp_path / 'cafe.db'}"
    assert (settings.smtp_host, settings.smtp_port, settings.smtp_tls) == (
        "127.0.0.1",
        8025,
        "none",
    )


def test_environment_overrides_defaults_and_is_typed(tmp_path):
    settings = config.load(
        tmp_path,
        environ={
            **KEY,
            "CAFE_SMTP_PORT": "2525",
            "CAFE_SMTP_TLS": "starttls",
            "CAFE_BASE_URL": "https://cafe.example",
            "CAFE_TEST_DATABASE_URL": "ignored",
            "OTHER": "ignored",
        },
    )
    assert settings.smtp_port == 2525
    assert settings.smtp_tls == "starttls"
    assert settings.base_url == "https://cafe.example"
    assert not hasattr(settings, "test_database_url")


def test_overrides_win_over_the_environment(tmp_path):
    settings = config.load(
        tmp_path, environ={**KEY, "CAFE_SMTP_PORT": "2525"}, overrides={"SMTP_PORT": 1}
    )
    assert settings.smtp_port == 1


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"CAFE_SMTP_PORT": "twenty"}, "CAFE_SMTP_PORT"),
        ({"CAFE_SMTP_TLS": "tls"}, "CAFE_SMTP_TLS"),
        ({"CAFE_DATABASE_URL": "mysql://x"}, "CAFE_DATABASE_URL"),
        ({"CAFE_DATABASE_PGBOUNCER": "1"}, "CAFE_DATABASE_PGBOUNCER=1 is for PostgreSQL"),
    ],
)
def test_bad_settings_are_refused_by_name(tmp_path, environ, named):
    with pytest.raises(config.ConfigError, match=named):
        config.load(tmp_path, environ={**KEY, **environ})


def test_create_app_reads_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CAFE_DATABASE_URL", f"sqlite:///{tmp_path / 'env.db'}")
    monkeypatch.setenv("CAFE_MAIL_FROM", "Cafe <x@example.com>")
    monkeypatch.setenv("CAFE_SECRET_KEY", TEST_CONFIG["SECRET_KEY"])
    app = create_app()
    assert settings_of(app).database_url.endswith("env.db")
    assert settings_of(app).mail_from == "Cafe <x@example.com>"


def test_sqlite_files_use_wal_and_a_busy_timeout(tmp_path):
    app = create_app(
        {
            **TEST_CONFIG,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'wal.db'}",
            "SQLITE_BUSY_TIMEOUT": 1234,
        }
    )
    with get_engine(app).connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert connection.execute(text("PRAGMA busy_timeout")).scalar() == 1234
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
    assert get_engine(app).hide_parameters  # no snapshot (with its bag) in an error message
    get_engine(app).dispose()


@pytest.fixture
def elsewhere(monkeypatch, tmp_path):
    """A current directory away from the checkout, with no instance or database setting."""
    for name in ("CAFE_INSTANCE_DIR", "CAFE_DATABASE_URL", "CAFE_DEV_MAIL_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CAFE_SECRET_KEY", TEST_CONFIG["SECRET_KEY"])
    monkeypatch.chdir(tmp_path)
    return tmp_path.resolve()


def test_the_instance_folder_is_instance_in_the_current_directory(elsewhere):
    app = create_app()
    assert app.instance_path == str(elsewhere / "instance")
    assert (elsewhere / "instance").is_dir()
    assert settings_of(app).database_url == f"sqlite:///{elsewhere / 'instance' / 'cafe.db'}"
    assert settings_of(app).dev_mail_dir == str(elsewhere / "instance" / "mail")


def test_cafe_instance_dir_moves_the_instance_folder(elsewhere, monkeypatch):
    monkeypatch.setenv("CAFE_INSTANCE_DIR", "state")  # relative: to the current directory
    app = create_app()
    assert app.instance_path == str(elsewhere / "state")
    assert settings_of(app).database_url == f"sqlite:///{elsewhere / 'state' / 'cafe.db'}"
    assert not hasattr(settings_of(app), "instance_dir")  # a place, not a setting


#: Where the project's own `CAFE_*` variables are named: code, process files, deployment.
SOURCES = [
    "server",
    "client",
    "cafe",
    "tests",
    "benchmarks",
    ".ci",
    "deploy",
    "Procfile",
    "Makefile",
]
ROOT = Path(__file__).resolve().parents[2]
VARIABLE = re.compile(r"\bCAFE_[A-Z][A-Z0-9_]*[A-Z0-9]\b")


def _named_variables() -> dict[str, Path]:
    """Each `CAFE_*` name the repository's files use, with one file using it."""
    named: dict[str, Path] = {}
    for source in SOURCES:
        top = ROOT / source
        for path in [top] if top.is_file() else sorted(top.rglob("*")):
            if not path.is_file() or path.suffix not in {"", ".py", ".conf", ".toml", ".sh"}:
                continue
            if path == Path(__file__).resolve():  # this file names misspellings on purpose
                continue
            for name in VARIABLE.findall(path.read_text(encoding="utf-8", errors="replace")):
                named.setdefault(name, path)
    return named


def test_every_variable_the_project_reads_is_known():
    named = _named_variables()
    assert {"CAFE_SECRET_KEY", "CAFE_TEST_DATABASE_URL", "CAFE_SERVER", "CAFE_PORT"} <= set(named)
    unknown = {
        name: str(path) for name, path in named.items() if name not in config.known_variables()
    }
    assert unknown == {}


def test_an_unknown_variable_is_refused_with_the_closest_name(tmp_path):
    with pytest.raises(config.ConfigError) as refused:
        config.load(tmp_path, environ={**KEY, "CAFE_SMTP_PROT": "2525"})
    assert str(refused.value) == "unknown variable CAFE_SMTP_PROT (did you mean CAFE_SMTP_PORT?)"
    with pytest.raises(config.ConfigError, match=r"^unknown variable CAFE_ZZZ$"):
        config.load(tmp_path, environ={**KEY, "CAFE_ZZZ": "1"})


def test_an_unknown_override_is_refused_too(tmp_path):
    with pytest.raises(config.ConfigError, match="CAFE_SMTP_PROT is not a setting"):
        config.load(tmp_path, environ=KEY, overrides={"SMTP_PROT": 1})


def test_the_app_factory_stops_on_an_unknown_variable(monkeypatch):
    monkeypatch.setenv("CAFE_SMTP_PROT", "2525")
    with pytest.raises(config.ConfigError, match=r"CAFE_SMTP_PROT \(did you mean CAFE_SMTP_PORT"):
        create_app(TEST_CONFIG)


def test_cafe_server_stops_on_an_unknown_variable_with_one_line(tmp_path):
    env = {
        **os.environ,
        **KEY,
        "CAFE_DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}",
        "CAFE_SMTP_PROT": "2525",
    }
    done = subprocess.run(
        [str(Path(sys.executable).parent / "cafe-server"), "db", "upgrade"],
        check=False, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == (
        "cafe-server: unknown variable CAFE_SMTP_PROT (did you mean CAFE_SMTP_PORT?)\n"
    )
    assert not (tmp_path / "x.db").exists()  # stopped before anything was done


def test_settings_are_frozen(tmp_path):
    settings = config.load(tmp_path, environ=KEY)
    with pytest.raises(ValidationError):
        settings.smtp_port = 1  # type: ignore[misc]  # the point: mypy refuses it too
    assert settings.replace(SMTP_PORT=1).smtp_port == 1 and settings.smtp_port == 8025
