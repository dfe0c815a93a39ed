"""A local mail catcher for development (`cafe-server dev`): an aiosmtpd SMTP server that
prints every message it receives and keeps a copy under `instance/mail/`, so a newcomer
sees the sign-in codes and "your turn" emails without any mail setup."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller


class CatchingHandler:
    """An aiosmtpd handler that keeps messages in memory and in `folder`, and echoes them."""

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
            body = message.get_body(preferencelist=("plain",))
            text = body.get_content().replace("\r\n", "\n") if body is not None else ""
            self.echo(
                f"\n--- mail {number} to {', '.join(envelope.rcpt_tos)}: "
                f"{message['Subject']}\n{text}---"
            )
        return "250 Message accepted for delivery"


def start_catcher(handler: CatchingHandler, *, host: str, port: int) -> Controller:
    """Start an SMTP server for `handler` in a background thread (call `.stop()` to end)."""
    controller = Controller(handler, hostname=host, port=port)
    controller.start()
    return controller
