"""Which game a command means when the user gives no id.

`cafe move TURN` needs no id when exactly one game waits for you; otherwise the error lists
the candidates, so the next command can name one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cafe.i18n import gettext as _
from cafe.i18n import ngettext
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
        raise UsageError(
            ngettext(
                "%(num)s game waits for you (%(games)s); name one: %(example)s",
                "%(num)s games wait for you (%(games)s); name one: %(example)s",
                len(waiting),
                games=ids,
                example=example,
            )
        )
    if not active:
        raise no_running_game()
    others = ", ".join(
        _("%(game)s (%(player)s to move)", game=game["id"], player=game["to_move"])
        for game in active[:5]
    )
    raise CliError(_("no game is waiting for you: %(games)s", games=others))


def no_running_game() -> CliError:
    """The error of a command that needs a running game when the player has none."""
    return CliError(_("you have no running game; see `%(command)s`", command="cafe games"))


def game_to_show(api: ApiClient, me: str) -> int:
    """The game waiting for you, else your only running game."""
    active = api.games(status="active")
    waiting = [game for game in active if game["to_move"] == me]
    chosen: list[dict[str, Any]] = waiting if len(waiting) == 1 else active
    if len(chosen) == 1:
        return int(chosen[0]["id"])
    if not active:
        raise no_running_game()
    ids = ", ".join(str(game["id"]) for game in active)
    raise UsageError(
        _(
            "you play in several games (%(games)s); name one: %(command)s",
            games=ids,
            command="cafe show ID",
        )
    )
