"""Playing a computer player's turn (`server.games.computers`): the worker finds the games
where one is due (`due`) and plays each (`play_turn`) with `cafe.bots.SamplingBot` at the
game's level, seeded by the game's secret seed and version (the bot never reads the bag's
order: `SamplingBot` samples the unseen tiles), through the same compare-and-set on the
version as any player's turn, so a game changed meanwhile (a resignation) is left alone.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from cafe import Game
from cafe.bots import SamplingBot
from server.config import Settings
from server.db import write_transaction
from server.games import turns
from server.games.computers import DEFAULT_LEVEL, computer_to_move
from server.models import GameRecord, GameStatus, LogEntry, TurnKind, TurnSource


def due(session: Session, limit: int) -> list[tuple[int, int]]:
    """Running games whose player to move is a computer: (id, version), oldest first."""
    rows = session.exec(
        select(GameRecord.id, GameRecord.version)
        .where(col(GameRecord.computer_turn), col(GameRecord.status) == GameStatus.ACTIVE)
        .order_by(col(GameRecord.id))
        .limit(limit)
    ).all()
    return [(game_id, version) for game_id, version in rows if game_id is not None]


def play_turn(session: Session, game_id: int, version: int, *, config: Settings) -> bool:
    """Play the computer's turn in game `game_id` at `version` and commit; False if the game
    moved on or is not a computer's turn. The turn is chosen before the write (the bot
    takes a moment): the write then lands only if the game is still at `version`."""
    game = session.exec(
        select(GameRecord)
        .where(col(GameRecord.id) == game_id)
        .execution_options(populate_existing=True)
    ).first()
    if game is None or game.version != version or game.status != GameStatus.ACTIVE:
        return False
    if not computer_to_move(game.state, game.computers):
        return False
    assert game.state is not None and game.seed_hex is not None
    engine = Game.from_position(game.state)
    bot = SamplingBot(game.computer_level or DEFAULT_LEVEL, seed=f"{game.seed_hex}:{version}")
    result = engine.play(bot.choose(engine))
    entry = LogEntry(
        game_id=game_id,
        number=game.turn_count + 1,
        seat=result.seat,
        kind=TurnKind.TURN,
        notation=result.notation,
        submitted=result.notation,
        source=TurnSource.COMPUTER,
        points=result.points,
        detail=turns.result_detail(result),
    )
    with write_transaction(session):
        values = turns.change_values(
            session, game=game, engine=engine, entry=entry, by_the_player=True
        )
        applied = turns.write_change(session, game=game, values=values, entry=entry, config=config)
        if not applied:
            session.rollback()
    return applied
