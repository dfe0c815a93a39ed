"""Replies whose address does not verify, over real SMTP (aiosmtpd on loopback): at most a
short refusal to the envelope sender, once an hour; and oversized mail refused in DATA."""

from __future__ import annotations

import logging
import smtplib
from datetime import timedelta
from email.policy import SMTP

import pytest
from mail_support import outbox_rows, reply_message
from server_support import free_port, reconfigure
from sqlmodel import Session, select

from server.db import get_engine
from server.mail.receiver import start_receiver
from server.models import InboundMail, OutboxMessage

PLAY = "play+g1-v2-p1-aaaaaaaaaaaaaaaa@cafe.test"  # looks like ours, signed by no one


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file: replies are handled in threads


def send(port, message, envelope_from):
    with smtplib.SMTP("127.0.0.1", port) as smtp:
        assert smtp.send_message(message, envelope_from, [PLAY]) == {}


def refusals(api):
    return [row for row in outbox_rows(api.app) if row.kind == "reply_unrecognised"]


@pytest.mark.postgres
def test_a_forged_from_makes_no_mail_to_the_player(api, receiver):
    api.register("bob")
    before = len(api.outbox())
    for number in range(3):
        message = reply_message(
            PLAY, "1", sender="Bob <bob@example.com>", message_id=f"<{number}@evil.example>"
        )
        send(receiver, message, "attacker@evil.example")
    assert len(api.outbox()) == before  # neither bob (From) nor the stranger is written to


@pytest.mark.postgres
def test_a_player_is_told_once_an_hour_at_the_envelope_sender(api, receiver):
    api.register("bob")
    for number in range(3):
        message = reply_message(
            PLAY, "1", sender="Someone <cid@example.com>", message_id=f"<{number}@mail.example>"
        )
        send(receiver, message, "bob@example.com")
    [answer] = refusals(api)
    assert answer.to_addr == "bob@example.com" and "Nothing was played." in answer.body
    with Session(get_engine(api.app)) as session:  # an hour later
        row = session.get(OutboxMessage, answer.id)
        row.created_at -= timedelta(hours=1, seconds=1)
        session.add(row)
        session.commit()
        assert len(session.exec(select(InboundMail)).all()) == 3  # all handled, once each
    send(receiver, reply_message(PLAY, "1", message_id="<later@mail.example>"), "bob@example.com")
    assert len(refusals(api)) == 2


def test_the_log_shows_no_reply_address(api, receiver, caplog):
    api.register("bob")
    with caplog.at_level(logging.INFO):
        send(receiver, reply_message(PLAY, "1"), "bob@example.com")
    handled = [r.getMessage() for r in caplog.records if r.name == "server.mail.replies"]
    assert handled and all("aaaaaaaaaaaaaaaa" not in line for line in handled)


def test_an_oversized_message_is_refused_during_data(api, receiver):
    limit = 20_000
    reconfigure(api.app, MAIL_IN_MAX_BYTES=limit)
    controller = start_receiver(api.app, host="127.0.0.1", port=(port := free_port()))
    try:
        # between the limit and twice it: once answered "too large" after reading it all
        message = reply_message(PLAY, "1\n" + ("x" * 70 + "\n") * (limit // 50))
        with smtplib.SMTP("127.0.0.1", port) as smtp:
            with pytest.raises(smtplib.SMTPSenderRefused) as announced:  # SIZE= in MAIL FROM
                smtp.sendmail("bob@example.com", [PLAY], message.as_bytes())
            assert announced.value.smtp_code == 552
            smtp.rset()
            assert smtp.mail("bob@example.com")[0] == 250  # no SIZE: refused during DATA
            assert smtp.rcpt(PLAY)[0] == 250
            assert smtp.data(message.as_bytes(policy=SMTP))[0] == 552
    finally:
        controller.stop()
    with Session(get_engine(api.app)) as session:
        assert session.exec(select(InboundMail)).all() == []  # never handled
