"""The secret key: no service starts with a missing, default or short one (outside
`cafe-server dev`), an old key still verifies what it signed, and signed links expire."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import itsdangerous.timed
import pytest
from mail_support import reply_message
from server_support import free_port, reconfigure
from typer.testing import CliRunner

from server import config
from server.cli import app as cli
from server.config import settings_of
from server.devserver import run_dev
from server.mail import replies
from server.postbox.addresses import (
    ReplyAddress,
    read_reply_address,
    read_unsubscribe_token,
    reply_address,
    unsubscribe_token,
)

OLD = "the-old-key-which-is-also-long-enough!"
NEW = "the-new-key-which-is-long-enough-as-well"
WEAK = {
    "missing": "",
    "the development default": config.DEV_SECRET_KEY,
    "short": "x" * (config.MIN_SECRET_BYTES - 1),
}


@pytest.mark.parametrize("key", WEAK.values(), ids=WEAK.keys())
def test_a_weak_key_is_refused_outside_development(tmp_path, key):
    with pytest.raises(config.ConfigError, match="CAFE_SECRET_KEY must be a secret of at least"):
        config.load(tmp_path, environ={"CAFE_SECRET_KEY": key})
    with pytest.raises(config.ConfigError, match="CAFE_SECRET_KEY_OLD"):
        config.load(tmp_path, environ={"CAFE_SECRET_KEY": NEW, "CAFE_SECRET_KEY_OLD": key or "a"})
    settings = config.load(tmp_path, environ={"CAFE_SECRET_KEY": NEW, "CAFE_SECRET_KEY_OLD": OLD})
    assert settings.verifying_keys == (NEW, OLD)
    # `cafe-server dev` (and only it) runs on the development default
    assert config.load(tmp_path, environ={}, overrides={"DEVELOPMENT": True}).secret_key == (
        config.DEV_SECRET_KEY
    )


def test_the_environment_cannot_claim_development_mode(tmp_path):
    with pytest.raises(config.ConfigError, match="CAFE_DEVELOPMENT cannot be set"):
        config.load(tmp_path, environ={"CAFE_DEVELOPMENT": "1"})


def test_operator_commands_refuse_to_start_without_a_key(monkeypatch, tmp_path):
    monkeypatch.delenv("CAFE_SECRET_KEY", raising=False)
    env = {"CAFE_DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}"}
    for command in (["worker", "--once"], ["mail-in"], ["db", "upgrade"]):
        result = CliRunner().invoke(cli, command, env=env, input="")
        assert result.exit_code == 1, command
        assert "CAFE_SECRET_KEY must be a secret" in result.stderr


def test_gunicorn_refuses_to_serve_with_the_development_key(tmp_path):
    env = {
        **os.environ,
        "CAFE_DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}",
        "CAFE_SECRET_KEY": config.DEV_SECRET_KEY,
    }
    done = subprocess.run(
        [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{free_port()}",
         "server.app:create_app()"],
        check=False, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode != 0
    assert "CAFE_SECRET_KEY must be a secret" in done.stderr


def test_dev_on_a_network_address_warns(monkeypatch, capsys):
    class Stop(Exception):
        pass

    def stop(*_args, **_kwargs):
        raise Stop

    monkeypatch.setattr("server.devserver.create_app", stop)
    for host, warned in (("0.0.0.0", True), ("192.0.2.1", True), ("127.0.0.1", False)):
        with pytest.raises(Stop):
            run_dev(host=host, port=5000, mail_port=8025, mail_dir=None)
        assert ("WARNING: --host" in capsys.readouterr().err) is warned, host


def test_old_keys_verify_but_never_sign():
    signed_before = ReplyAddress(17, 42, 3)
    address = reply_address(OLD, "cafe.test", signed_before)
    assert read_reply_address((NEW, OLD), "cafe.test", address) == signed_before
    assert read_reply_address((NEW,), "cafe.test", address) is None
    assert reply_address(NEW, "cafe.test", signed_before) != address
    token = unsubscribe_token(OLD, 3)
    assert read_unsubscribe_token((NEW, OLD), token, max_age_days=90) == 3
    assert read_unsubscribe_token(NEW, token, max_age_days=90) is None


@pytest.mark.postgres
def test_a_reply_to_mail_sent_before_a_rotation_still_plays(api):
    reconfigure(api.app, SECRET_KEY=OLD)
    game_id, tokens = api.started_game("ann", "bob")
    to_move = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["to_move"]
    [your_turn] = [r for r in api.outbox(f"{to_move}@example.com") if r.kind == "your_turn"]
    reconfigure(api.app, SECRET_KEY=NEW, SECRET_KEY_OLD=OLD)  # the service restarted
    outcome = replies.handle(api.app, reply_message(your_turn.headers["Reply-To"], "1").as_bytes())
    assert outcome.kind == "applied"
    reconfigure(api.app, SECRET_KEY_OLD="")  # the old key retired: its addresses are dead
    later = reply_message(your_turn.headers["Reply-To"], "1", message_id="<2@mail.example>")
    assert replies.handle(api.app, later.as_bytes()).kind == "unrecognised"


def test_unsubscribe_links_expire(api, monkeypatch):
    token = api.register("ann")
    link = f"/unsubscribe/{unsubscribe_token(settings_of(api.app).secret_key, 1)}"
    days = settings_of(api.app).unsubscribe_link_days
    assert days == 90
    now = time.time()
    monkeypatch.setattr(itsdangerous.timed.time, "time", lambda: now + (days - 1) * 86400)
    assert api.client.get(link).status_code == 200
    monkeypatch.setattr(itsdangerous.timed.time, "time", lambda: now + (days + 1) * 86400)
    assert api.client.post(link).status_code == 404
    preferences = api.call("GET", "/api/me/preferences", token).json
    assert preferences["turn_emails"] == "each"


def test_a_code_mailed_before_a_rotation_still_signs_in(api):
    reconfigure(api.app, SECRET_KEY=OLD)
    api.client.post("/api/players", json={"name": "ann", "email": "ann@example.com"})
    code = api.last_code("ann@example.com")
    reconfigure(api.app, SECRET_KEY=NEW, SECRET_KEY_OLD=OLD)
    body = {"email": "ann@example.com", "code": code}
    assert api.client.post("/api/tokens", json=body).status_code == 201
