"""Pictures of a game: ``text(game)`` for terminals and plain-text emails, ``svg(game)`` for
web pages and HTML emails.

Both draw the board on the 13×13 grid of RULES.md §2, so a chair sits where it sits on the
real board and a shared chair appears once, between its two tables. Both are pure
functions of the game's public state: they read, never change, and do no I/O.
"""

from cafe.render.board_svg import svg
from cafe.render.board_text import text

__all__ = ["svg", "text"]
