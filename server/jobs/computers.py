"""The worker's computer players: every round, the turns of computer players that are due
(`server.games.computer_turns`), each in its own short write, so a practice game moves on
within seconds of a person's turn rather than at a deadline.

Several workers may look at one game at once: both choose the same turn (the bot is
seeded by the game), and the compare-and-set on the version lets one of them write it.
"""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session

from server.config import Settings
from server.games import computer_turns
from server.transactions import retried

#: The most computer turns one round plays, so that mail is never kept waiting long.
BATCH = 20

_play = retried(computer_turns.play_turn)


def play_due(engine: Engine, config: Settings, *, limit: int = BATCH) -> int:
    """Play the computer turns due now, up to `limit`, and those they make due (a computer
    after a computer); how many were played."""
    played = 0
    with Session(engine, expire_on_commit=False) as session:
        while played < limit:
            before = played
            for game_id, version in computer_turns.due(session, limit - played):
                played += bool(_play(session, game_id, version, config=config))
            if played == before:
                break
    return played
