"""Player names: what a game accepts, since names appear in records, pictures and emails."""

from __future__ import annotations

from collections.abc import Sequence

from cafe.errors import CafeError

MIN_PLAYERS = 2
MAX_PLAYERS = 4
MAX_NAME_LENGTH = 32


def check_players(players: Sequence[str]) -> list[str]:
    """The names as a list, or a ``CafeError`` saying what is wrong with them."""
    names = list(players)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise CafeError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(names)}")
    for name in names:
        if (
            not isinstance(name, str)
            or not 0 < len(name) <= MAX_NAME_LENGTH
            or not name.isprintable()
            or any(c.isspace() or c in ':"' for c in name)
        ):
            raise CafeError(
                f"player name {name!r}: 1 to {MAX_NAME_LENGTH} printable characters, "
                "without spaces, ':' or '\"'"
            )
    if len(set(names)) != len(names):
        raise CafeError("player names must differ")
    return names
