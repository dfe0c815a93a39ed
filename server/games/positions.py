"""The engine's game at a stored position, kept by the process that stored it.

Reading a position back into the engine (`Game.from_position`, which checks every field)
was the largest cost of a turn after the database. Each process therefore keeps, for the
games it changed last, the engine at the position it wrote, and the next turn of that game
in this process starts from a copy of it instead of reading the position again.

An entry is used only when the game as just read from the database has both the version and
the very position it was kept with, so it can never stand for another position (whoever
wrote the game, in this process or another); it is always handed out as a copy, and the
number of games kept is bounded.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from cafe import Game

#: Games kept per process: the most recently stored ones.
CAPACITY = 256

_LOCK = threading.Lock()
#: By game id: the version and position stored, and the engine at that position.
_KEPT: OrderedDict[int, tuple[int, dict[str, Any], Game]] = OrderedDict()


def engine_at(game_id: int, version: int, position: dict[str, Any]) -> Game:
    """The engine at `position`, the snapshot of game `game_id` at `version`: a copy of the
    one kept for it, or read from the position (`Game.from_position`)."""
    with _LOCK:
        kept = _KEPT.get(game_id)
    if kept is not None and kept[0] == version and kept[1] == position:
        return kept[2].position_copy()
    return Game.from_position(position)


def keep(game_id: int, version: int, position: dict[str, Any], engine: Game) -> None:
    """Remember `engine`, whose position `position` was just stored as game `game_id`'s
    snapshot at `version`. The engine itself is kept, not a copy: the caller hands it over
    and must not change it again (only copies of it are handed out, and a copy of a
    position holds nothing of its history)."""
    with _LOCK:
        _KEPT[game_id] = (version, position, engine)
        _KEPT.move_to_end(game_id)
        while len(_KEPT) > CAPACITY:
            _KEPT.popitem(last=False)
