"""The worker's SMTP connection escapes dots as `smtplib` does, and a message handed over,
its verdict read later, arrives as it was written."""

from __future__ import annotations

import random
import smtplib

import pytest

from server.mail.smtp import SMTP, dot_stuffed


@pytest.mark.parametrize("seed", range(20))
def test_dots_are_escaped_as_smtplib_escapes_them(seed):
    rng = random.Random(seed)
    for _ in range(200):
        data = bytes(rng.choice(b".\r\nab") for _ in range(rng.randint(0, 40)))
        expected = smtplib._quote_periods(data)  # what smtplib.SMTP.data sends
        expected += b"" if expected.endswith(b"\r\n") else b"\r\n"
        assert dot_stuffed(data) == expected + b".\r\n"


def test_a_message_with_dotted_lines_arrives_as_it_was_written(smtp_server):
    handler, port = smtp_server
    raw = (
        b"From: a@example.com\r\nTo: b@example.com\r\nSubject: dots\r\n\r\n"
        b".starts with a dot\r\n..two\r\n.\r\nmiddle . dot\r\n."
    )
    with SMTP("127.0.0.1", port) as smtp:
        smtp.hand_over("a@example.com", "b@example.com", raw)
        smtp.verdict()
    [message] = handler.messages
    lines = message.get_content().splitlines()
    assert lines == [".starts with a dot", "..two", ".", "middle . dot", "."]
