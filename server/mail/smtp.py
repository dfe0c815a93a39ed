"""The worker's SMTP connections: `smtplib`'s, able to hand a message over without waiting
for the server's verdict on it, and escaping its dots with plain `bytes` operations.

`hand_over` is `smtplib.SMTP.sendmail` for one recipient up to the message's last byte
(the same commands, options and errors); `verdict` then reads the server's answer to the
whole message. In between the worker renders its next message, while the server reads
this one: with one connection and no SMTP pipelining, that is most of the time the server
takes for a message.

Before sending a message, `smtplib` doubles every dot that starts a line (RFC 5321
§4.5.2, so that no line reads as the message's end) with a multi-line regular expression
that tries every byte: about 0.2 ms for a 30 KB "your turn" email. A line starts at the
start of the message or after a line feed, so a `startswith` and a `replace` do the same.
"""

from __future__ import annotations

import smtplib
from collections.abc import Sequence

CRLF = b"\r\n"


def dot_stuffed(data: bytes) -> bytes:
    """`data` with every line that starts with a dot given one more, ended with the
    `CRLF.CRLF` that ends a message."""
    stuffed = data.replace(b"\n.", b"\n..")
    if stuffed.startswith(b"."):
        stuffed = b"." + stuffed
    if not stuffed.endswith(CRLF):
        stuffed += CRLF
    return stuffed + b"." + CRLF


class SMTP(smtplib.SMTP):
    """`smtplib.SMTP` that can hand a message over and read the verdict on it later."""

    def hand_over(
        self, from_addr: str, to_addr: str, data: bytes, mail_options: Sequence[str] = ()
    ) -> None:
        """Send MAIL, RCPT, DATA and the message as `sendmail` does for one recipient,
        raising its errors, but without reading the server's answer to the message:
        `verdict` must be called before anything else is sent."""
        self.ehlo_or_helo_if_needed()
        options = []
        if self.does_esmtp:
            if self.has_extn("size"):
                options.append(f"size={len(data)}")
            options += mail_options
        code, reply = self.mail(from_addr, options)
        if code != 250:
            self._refused(code)
            raise smtplib.SMTPSenderRefused(code, reply, from_addr)
        code, reply = self.rcpt(to_addr)
        if code not in (250, 251):
            self._refused(code)
            raise smtplib.SMTPRecipientsRefused({to_addr: (code, reply)})
        self.putcmd("data")
        code, reply = self.getreply()
        if code != 354:
            raise smtplib.SMTPDataError(code, reply)
        self.send(dot_stuffed(data))

    def verdict(self) -> None:
        """Read the server's answer to the message handed over; `SMTPDataError` unless it
        was accepted."""
        code, reply = self.getreply()
        if code != 250:
            self._refused(code)
            raise smtplib.SMTPDataError(code, reply)

    def _refused(self, code: int) -> None:
        """After a refusal, as `sendmail`: the server is closing (421), or start afresh."""
        if code == 421:
            self.close()
        else:
            self._rset()  # type: ignore[attr-defined]  # smtplib's, untyped: RSET, errors kept


class SMTPOverSSL(SMTP, smtplib.SMTP_SSL):
    """`smtplib.SMTP_SSL` (TLS from the start) that can hand a message over likewise."""
