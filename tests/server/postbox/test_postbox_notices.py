"""The postbox queues a notice with its facts encoded by the mail layer's builders, which it
cannot import (they are above the domain): `server.mail.notices` hands it its encoder."""

from __future__ import annotations

import pytest

from server.mail import notices as rendering
from server.postbox import notices
from server.postbox.kinds import EmailKind


def test_the_mail_layer_hands_the_postbox_its_encoder():
    facts = {"colour": "red"}
    with pytest.raises(TypeError, match="takes no colour"):  # the builder's check, when queued
        notices.encode(EmailKind.GAME_EXPIRED, facts)
    assert notices._encoders == [rendering.encode]


def test_without_the_encoder_a_notice_is_refused_not_queued_unchecked(monkeypatch):
    monkeypatch.setattr(notices, "_encoders", [])
    with pytest.raises(RuntimeError, match=r"import server\.mail\.notices"):
        notices.encode(EmailKind.GAME_EXPIRED, {})
