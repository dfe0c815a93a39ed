"""Configuration: defaults, `CAFE_*` environment variables, test overrides, refusals."""

from __future__ import annotations

import pytest
from server_support import TEST_CONFIG
from sqlalchemy import text

from server import config
from server.app import create_app
from server.db import get_engine

#: A production-worthy key, as the environment gives it.
KEY = {"CAFE_SECRET_KEY": TEST_CONFIG["SECRET_KEY"]}


def test_defaults_run_locally(tmp_path):
    settings = config.load(tmp_path, environ={}, overrides={"DEVELOPMENT": True})
    assert settings["DATABASE_URL"] == f"sqlite:///{tmp_path / 'cafe.db'}"
    assert (settings["SMTP_HOST"], settings["SMTP_PORT"], settings["SMTP_TLS"]) == (
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
    assert settings["SMTP_PORT"] == 2525
    assert settings["SMTP_TLS"] == "starttls"
    assert settings["BASE_URL"] == "https://cafe.example"
    assert "TEST_DATABASE_URL" not in settings


def test_overrides_win_over_the_environment(tmp_path):
    settings = config.load(
        tmp_path, environ={**KEY, "CAFE_SMTP_PORT": "2525"}, overrides={"SMTP_PORT": 1}
    )
    assert settings["SMTP_PORT"] == 1


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"CAFE_SMTP_PORT": "twenty"}, "CAFE_SMTP_PORT"),
        ({"CAFE_SMTP_TLS": "tls"}, "CAFE_SMTP_TLS"),
        ({"CAFE_DATABASE_URL": "mysql://x"}, "CAFE_DATABASE_URL"),
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
    assert app.config["DATABASE_URL"].endswith("env.db")
    assert app.config["MAIL_FROM"] == "Cafe <x@example.com>"


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
    assert app.config["DATABASE_URL"] == f"sqlite:///{elsewhere / 'instance' / 'cafe.db'}"
    assert app.config["DEV_MAIL_DIR"] == str(elsewhere / "instance" / "mail")


def test_cafe_instance_dir_moves_the_instance_folder(elsewhere, monkeypatch):
    monkeypatch.setenv("CAFE_INSTANCE_DIR", "state")  # relative: to the current directory
    app = create_app()
    assert app.instance_path == str(elsewhere / "state")
    assert app.config["DATABASE_URL"] == f"sqlite:///{elsewhere / 'state' / 'cafe.db'}"
    assert "INSTANCE_DIR" not in app.config  # a place, not a setting
