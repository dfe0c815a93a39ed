"""Which game a command means when the user gives no id.

`cafe move TURN` needs no id when exactly one game waits for you; otherwise the error lists
the candidates, so the next command can name one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from client.errors import CliError, UsageError

if TYPE_CHECKING:
    from client.api import ApiClient


def waiting_game(api: ApiClient, me: str, example: str) -> int:
    """The one running game where it is `me`'s turn; `example` shows how to name one."""
    active = api.games(status="active")
    waiting = [game for game in active if game["to_move"] == me]
    if len(waiting) == 1:
        return int(waiting[0]["id"])
    if waiting:
        ids = ", ".join(str(game["id"]) for game in waiting)
        raise UsageError(f"{len(waiting)} games wait for you ({ids}); name one: {example}")
    if not active:
        raise CliError("you have no running game; see `cafe games`")
    others = ", ".join(f"{game['id']} ({game['to_move']} to move)" for game in active[:5])
    raise CliError(f"no game is waiting for you: {others}")


def game_to_show(api: ApiClient, me: str) -> int:
    """The game waiting for you, else your only running game."""
    active = api.games(status="active")
    waiting = [game for game in active if game["to_move"] == me]
    chosen: list[dict[str, Any]] = waiting if len(waiting) == 1 else active
    if len(chosen) == 1:
        return int(chosen[0]["id"])
    if not active:
        raise CliError("you have no running game; see `cafe games`")
    ids = ", ".join(str(game["id"]) for game in active)
    raise UsageError(f"you play in several games ({ids}); name one: cafe show ID")
