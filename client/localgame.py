"""The engine on the client's side: a game rebuilt from the server's public state, for
pictures and for checking a turn before it is sent.

The public state (`GET /api/games/<id>`) holds everything a position (docs/formats.md) needs
except the bag's order, which is secret: the engine shuffles the unseen tiles itself, so a
local preview scores a turn exactly as the server will, but cannot know the tiles it draws.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from cafe import CafeError, Game, IllegalTurnError, InvalidPositionError, NotationError
from cafe.i18n import gettext as _
from client.errors import CliError, TurnRefused


def position(state: dict[str, Any], mover: str | None = None) -> dict[str, Any]:
    """The position (docs/formats.md, without the bag) of a started game's public state; with
    `mover`, as if it were that player's turn (planning while waiting)."""
    players = state["players"]
    mover = mover or state.get("to_move")
    return {
        "players": players,
        "to_move": players.index(mover) if mover in players else 0,
        "scores": state["scores"],
        "hands": state["hands"],
        "hand_limits": state["hand_limits"],
        "eliminated": state["eliminated"],
        "chairs": state["board"],
        "bar": state["bar"],
        "options": state.get("options") or {},
        "birthday_nation": state.get("birthday_nation"),
        "birthday_player": state.get("birthday_player"),
        "elimination_order": state.get("elimination_order") or [],
    }


def load(state: dict[str, Any], mover: str | None = None) -> Game:
    """The engine's game for a started game's public state (with `mover` to move)."""
    try:
        return Game.from_position(position(state, mover))
    except InvalidPositionError as error:
        raise CliError(
            _(
                "cannot rebuild game %(game)s from the server's state: %(error)s",
                game=state.get("id"),
                error=error,
            )
        ) from None


def picture(
    state: dict[str, Any], *, color: bool, compact: bool = False, last: dict[str, Any] | None = None
) -> str:
    """The board, bar and players as a terminal picture: 93 columns, or 80 when `compact`;
    the guests of `last` (the log's last turn) stand out."""
    from cafe.render import board_text  # noqa: PLC0415 (only `show` needs it)

    chairs = [t["chair"] for t in (last or {}).get("tables") or [] if t.get("chair")]
    return board_text.text(
        load(state),
        color=color,
        layout=board_text.COMPACT if compact else board_text.WIDE,
        last=chairs,
        last_stool=(last or {}).get("stool"),
    )


def preview(state: dict[str, Any], turn: str, mover: str | None = None) -> dict[str, Any]:
    """Play `turn` (for `mover`, default the player to move) on a copy of the game, as the
    API would describe it; `TurnRefused` with the engine's reason (and your hand, for a turn
    it cannot read) if it is not legal."""
    game = load(state, mover)
    try:
        result = game.play(turn)
    except NotationError as error:
        hand = " ".join(game.hands[game.to_move])
        raise TurnRefused(
            _("cannot read the turn: %(error)s · your hand: %(hand)s", error=error, hand=hand)
        ) from None
    except IllegalTurnError as error:
        raise TurnRefused(
            _("illegal turn (rule %(rule)s): %(error)s", rule=error.rule, error=error)
        ) from None
    except CafeError as error:
        raise TurnRefused(str(error)) from None
    return {
        "turn": result.notation,
        "points": result.points,
        "tables": [asdict(table) for table in result.tables],
        "completed": list(result.completed),
        "hand_limit": result.hand_limit,
        "stool": result.stool,
        "eliminated": result.eliminated,
    }
