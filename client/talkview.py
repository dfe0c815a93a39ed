"""Table talk as `cafe talk` and `cafe show` print it: each message's writer and time (in
the player's zone), then its text, line by line as it was written, indented and broken to
the terminal's width (a long address too, so that nothing is wider than the terminal)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from client import timeview

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

#: How far a message's text is indented under its heading.
INDENT = "  "


def message_lines(said: dict[str, Any], where: ZoneInfo, width: int) -> list[str]:
    """One message: `ann · Thu 5 Mar 14:00 CET`, then its text."""
    lines = [f"{said['player']} · {timeview.local(timeview.parse(said['at']), where)}"]
    room = max(20, width - len(INDENT))
    for line in str(said["text"]).split("\n"):
        wrapped = textwrap.wrap(line, room, break_long_words=True, break_on_hyphens=False)
        lines += [INDENT + part for part in wrapped] or [""]
    return lines


def talk_text(messages: Sequence[dict[str, Any]], where: ZoneInfo, width: int) -> str:
    """Messages, oldest first, one after the other."""
    return "\n".join(line for said in messages for line in message_lines(said, where, width))
