"""`make test` beside `make run`: no test mails the developer's catcher on port 8025."""

from __future__ import annotations

import os

from server import config

DEV_MAIL_PORT = 8025


def test_every_test_has_its_own_smtp_port(own_smtp_port, tmp_path):
    assert own_smtp_port != DEV_MAIL_PORT
    assert os.environ["CAFE_SMTP_PORT"] == str(own_smtp_port)
    settings = config.load(tmp_path, environ=dict(os.environ), overrides={"DEVELOPMENT": True})
    assert settings.smtp_port == own_smtp_port
