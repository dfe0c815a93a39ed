"""What a turn would score, without playing it: for a page composing a turn, and for
`cafe move --dry-run`. The engine plays it on a copy; nothing is stored, and nothing of
the copy's draws (which would reveal the bag) leaves this module."""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlmodel import Session

from cafe import Game
from server.games.turns import movers_game
from server.models import Player


def preview_turn(
    session: Session, *, game_id: int, player: Player, notation: str, version: int
) -> dict[str, Any]:
    """The points and per-table breakdown of the caller's turn against `version`, or the
    refusal it would get (the engine's reason, a stale version, not your turn)."""
    game, _ = movers_game(session, game_id=game_id, player=player, version=version)
    assert game.state is not None
    result = Game.from_position(game.state).play(notation)
    return {
        "turn": result.notation,
        "points": result.points,
        "tables": [dataclasses.asdict(table) for table in result.tables],
        "completed": list(result.completed),
        "hand_limit": result.hand_limit,
        "stool": result.stool,
        "eliminated": result.eliminated,
    }
