"""What a turn would score, without playing it: for a page composing a turn, and for
`cafe move --dry-run`. The engine plays it on a copy; nothing is stored, and nothing of
the copy's draws (which would reveal the bag) leaves this module."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from cafe.i18n import lazy_gettext
from server.games.store import active_seat, conflict, load_game
from server.games.turns import as_if_movers, table_json
from server.models import Player


def preview_turn(
    session: Session, *, game_id: int, player: Player, notation: str, version: int
) -> dict[str, Any]:
    """The points and per-table breakdown of the caller's turn against `version`, or the
    refusal it would get (the engine's reason, a stale version). A player waiting for their
    turn gets it as if it were theirs now (`as_if_your_turn`), for planning."""
    game = load_game(session, game_id)
    seat = active_seat(session, game, player)
    if version != game.version:
        raise conflict(
            session,
            game_id,
            "stale_version",
            lazy_gettext("your turn was made against version %(version)s", version=version),
        )
    assert game.state is not None
    result = as_if_movers(game.state, seat).play(notation)
    return {
        "as_if_your_turn": game.state["to_move"] != seat,
        "turn": result.notation,
        "points": result.points,
        "tables": [table_json(table) for table in result.tables],
        "completed": list(result.completed),
        "hand_limit": result.hand_limit,
        "stool": result.stool,
        "eliminated": result.eliminated,
    }
