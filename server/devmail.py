"""A local mail catcher for development (`cafe-server dev`): an aiosmtpd SMTP server that
prints one line for every message it receives (a sign-in email's with its code) and keeps
the whole message under `instance/mail/`, shown at `/dev/mail`, so a newcomer sees the
sign-in codes and reads the "your turn" emails without any mail setup."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller


class CatchingHandler:
    """An aiosmtpd handler that keeps messages in memory and in `folder`, and echoes a
    summary line of each."""

    def __init__(
        self, folder: Path | None = None, echo: Callable[[str], None] | None = None
    ) -> None:
        self.folder = folder
        self.echo = echo
        self.messages: list[EmailMessage] = []
        # go on after the messages of earlier runs, so that none is overwritten
        kept = [int(p.stem) for p in folder.glob("*.eml") if p.stem.isdigit()] if folder else []
        self._numbers = itertools.count(max(kept, default=0) + 1)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        """Accept the message (aiosmtpd's hook for the end of DATA)."""
        raw: bytes = envelope.original_content or envelope.content
        message = message_from_bytes(raw, policy=policy.default)
        assert isinstance(message, EmailMessage)
        self.messages.append(message)
        number = next(self._numbers)
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / f"{number:05d}.eml").write_bytes(raw)
        if self.echo is not None:
            self.echo(summary(number, envelope.rcpt_tos, message))
        return "250 Message accepted for delivery"


#: A sign-in code on a line of its own, as the sign-in email shows it.
_CODE = re.compile(r"^\s+(\d{6,12})\s*$", re.MULTILINE)


def summary(number: int, recipients: list[str], message: EmailMessage) -> str:
    """One line for the console: number, recipients, subject, and a sign-in email's code
    (the full text is in the mail folder and at `/dev/mail/<number>`)."""
    line = f"mail {number} to {', '.join(recipients)}: {message['Subject']}"
    body = message.get_body(preferencelist=("plain",))
    text = body.get_content() if body is not None else ""
    code = _CODE.search(text) if "sign-in code" in str(message["Subject"]) else None
    return line + (f" — code {code.group(1)}" if code else "") + f"  (/dev/mail/{number})"


def start_catcher(handler: CatchingHandler, *, host: str, port: int) -> Controller:
    """Start an SMTP server for `handler` in a background thread (call `.stop()` to end)."""
    controller = Controller(handler, hostname=host, port=port)
    controller.start()
    return controller
