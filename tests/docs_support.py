"""Reading the README and `docs/` in tests: a page, one `## ` section of it, and the command
lines of its sh blocks (the walk-throughs the tests run as written)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def page(name: str) -> str:
    """The text of `README.md` or of a page under `docs/` (`"docs/league.md"`)."""
    return (ROOT / name).read_text(encoding="utf-8")


def section(name: str, heading: str) -> str:
    """The `## heading` section of page `name`, up to the next `## ` heading."""
    found = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", page(name), re.S | re.M)
    assert found, f"{name} has no '## {heading}' section"
    return found.group(1)


def sh_commands(text: str) -> list[list[str]]:
    """The command lines of the sh blocks in `text`, as argument lists (comments dropped)."""
    blocks = re.findall(r"```sh\n(.*?)```", text, re.DOTALL)
    lines = [shlex.split(line, comments=True) for block in blocks for line in block.splitlines()]
    return [line for line in lines if line]
