"""Player names: the one rule for the names a game accepts and the service registers.

Names appear in records (a `Players` tag separates them by spaces), in terminal pictures,
in emails and in URLs (`/players/<name>`), so the rule is narrow: a letter, then letters,
digits, `_`, `.` or `-`, at most `NAME_LENGTH` characters. The service's database column
holds `NAME_LENGTH` characters, and its API publishes `NAME_PATTERN` (`server.schemas`),
so the engine and the service accept and refuse the very same names (docs/formats.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cafe.errors import CafeError
from cafe.i18n import N_, Text, lazy_gettext

MIN_PLAYERS = 2
MAX_PLAYERS = 4
#: The longest name: what the service's `players.name` column holds.
NAME_LENGTH = 24
#: A whole name, as a regular expression (the API publishes it as its pattern).
NAME_PATTERN = rf"^[A-Za-z][A-Za-z0-9_.-]{{0,{NAME_LENGTH - 1}}}$"
#: What a valid name is, in words: every refusal of a name says it (in its reader's
#: language: `Text(NAME_RULE)`). The number is `NAME_LENGTH - 1` (a test checks it).
NAME_RULE = N_("a player name: a letter, then up to 23 letters, digits, '_', '.' or '-'")
_NAME = re.compile(NAME_PATTERN)


def is_player_name(name: object) -> bool:
    """Whether `name` is a name a player may have (`NAME_RULE`). ASCII only, and matched
    with `fullmatch`, so no trailing newline slips past the pattern's `$`."""
    return isinstance(name, str) and _NAME.fullmatch(name) is not None


def check_players(players: Sequence[str]) -> list[str]:
    """The names as a list, or a ``CafeError`` saying what is wrong with them."""
    names = list(players)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise CafeError(
            lazy_gettext(
                "a game has %(least)s to %(most)s players, not %(count)s",
                least=MIN_PLAYERS,
                most=MAX_PLAYERS,
                count=len(names),
            )
        )
    for name in names:
        if not is_player_name(name):
            raise CafeError(
                lazy_gettext(
                    "player name %(name)s: %(rule)s", name=repr(name), rule=Text(NAME_RULE)
                )
            )
    if len(set(names)) != len(names):
        raise CafeError(lazy_gettext("player names must differ"))
    return names
