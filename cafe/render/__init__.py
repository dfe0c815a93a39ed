"""Pictures of a game: ``text(game)`` for terminals and plain-text emails, ``svg(game)`` for
web pages and HTML emails.

Both draw the board on the 13×13 grid of rulebook §2, so a chair sits where it sits on the
real board and a shared chair appears once, between its two tables. Both are pure
functions of the game's public state: they read, never change, and do no I/O.

Each picture's module loads on first use of its name (``cafe.render.text``, or
``from cafe.render import svg``), so that a terminal client drawing text never pays for the
SVG renderer.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cafe.render.board_svg import svg
    from cafe.render.board_text import text

__all__ = ["svg", "text"]

#: Where each picture function lives.
_MODULES = {"svg": "cafe.render.board_svg", "text": "cafe.render.board_text"}


def __getattr__(name: str) -> Any:
    """``svg`` or ``text``, imported from its module the first time it is asked for."""
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    function = getattr(import_module(_MODULES[name]), name)
    globals()[name] = function
    return function
