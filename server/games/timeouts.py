"""What the service does when a player's deadline passes (docs/league.md), exactly once.

`apply_timeout` claims the game (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so that a rival
sweeper skips it; the writer lock on SQLite), re-checks inside the transaction that the same
version is still due, and then, in that one transaction:

1. **automatic vacation**, if the game allows vacation and the mover's bank holds a day
   beyond a declared vacation still to be paid: a day `[deadline, deadline + 24 h)` is
   taken from the bank (an automatic `Vacation`), every game of the player shows it and the
   deadlines move (`store.recompute_for_player`), and the player is told (`auto_vacation`);
2. otherwise the game's policy: `autoplay` plays `hints(1)`'s best turn for the player, a
   log entry of kind `timeout` that scores, draws and may end the game like any turn, and
   counts one more time-out in a row; a player who has had `max_timeouts` of them in a row
   already (or, under `resign`, at the first) is removed instead, as a resignation of kind
   `timeout`. Both go through the same compare-and-set on the version as a player's turn
   (`turns.write_change`), so a turn submitted at the same moment and the time-out cannot
   both land: the loser of the two gets the ordinary stale-version answer, or nothing.
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum

from sqlmodel import Session, col, select

from cafe import Game
from server.clock import bank, store, vacations
from server.clock.deadlines import Interval
from server.config import Settings
from server.db import write_transaction
from server.games import turns
from server.models import (
    GameRecord,
    GameSeat,
    GameStatus,
    LogEntry,
    Player,
    TurnKind,
    Vacation,
    VacationKind,
    utcnow,
)
from server.postbox import outgoing

DAY = timedelta(days=1)


class Outcome(StrEnum):
    """What a time-out came to (also the kind of the email the player gets)."""

    VACATION = "auto_vacation"
    AUTOPLAY = "timed_out"
    REMOVED = "removed"


def apply_timeout(
    session: Session, game_id: int, version: int, *, config: Settings
) -> Outcome | None:
    """Act on the passed deadline of game `game_id` at `version` and commit; None when
    there is nothing to do (the game moved on, its deadline moved, it is not due, or
    another sweeper holds it or its player right now)."""
    with write_transaction(session):
        game = _claim(session, game_id, version)
        outcome = None if game is None else _act(session, game, config)
        if outcome is None:
            session.rollback()  # nothing to keep: let the locks go at once
    return outcome


def _claim(session: Session, game_id: int, version: int) -> GameRecord | None:
    """The game, locked for this transaction, if it is still due at `version`."""
    return session.exec(
        select(GameRecord)
        .where(
            col(GameRecord.id) == game_id,
            col(GameRecord.version) == version,
            col(GameRecord.status) == GameStatus.ACTIVE,
            col(GameRecord.deadline) <= utcnow(),
        )
        .with_for_update(skip_locked=True)
        .execution_options(populate_existing=True)
    ).first()


def _mover(session: Session, game: GameRecord) -> Player | None:
    """The player to move, locked (skipped, None, if another transaction holds them: an
    automatic vacation of theirs in another game, or a vacation being declared)."""
    assert game.state is not None
    return session.exec(
        select(Player)
        .join(GameSeat, col(GameSeat.player_id) == Player.id)
        .where(GameSeat.game_id == game.id, GameSeat.seat == game.state["to_move"])
        .with_for_update(skip_locked=True, of=Player)
        .execution_options(populate_existing=True)
    ).first()


def _act(session: Session, game: GameRecord, config: Settings) -> Outcome | None:
    """Apply the time-out to the claimed `game` in the open transaction."""
    assert game.id is not None and game.state is not None and game.clock is not None
    player = _mover(session, game)
    if player is None:
        return None
    if game.clock["vacation"] and _take_vacation_day(session, game, player, config):
        return Outcome.VACATION
    timeouts = game.player_clocks.get(player.name, {}).get("timeouts", 0)
    engine = Game.from_position(game.state)
    seat = engine.to_move
    best = engine.hints(1)
    removed = game.clock["timeout"] == "resign" or timeouts >= game.clock["max_timeouts"]
    entry = LogEntry(game_id=game.id, number=game.turn_count + 1, seat=seat, kind=TurnKind.TIMEOUT)
    if removed or not best:
        engine.resign(seat, timeout=True)
        entry.detail = {"removed": True}
    else:
        result = engine.play(best[0].turn, timeout=True)
        entry.notation, entry.points = result.notation, result.points
        entry.detail = turns.result_detail(result)
    values = turns.change_values(
        session, game=game, engine=engine, entry=entry, by_the_player=False
    )
    clocks = {name: dict(facts) for name, facts in game.player_clocks.items()}
    clocks.setdefault(player.name, {})["timeouts"] = timeouts + 1
    values["player_clocks"] = clocks
    outcome = Outcome.REMOVED if entry.detail.get("removed") else Outcome.AUTOPLAY
    applied = turns.write_change(
        session, game=game, values=values, entry=entry, timed_out=outcome, config=config
    )
    return outcome if applied else None


def _take_vacation_day(
    session: Session, game: GameRecord, player: Player, config: Settings
) -> bool:
    """An automatic vacation day from the deadline on, if the bank can pay it."""
    assert game.id is not None and game.deadline is not None and player.id is not None
    now = utcnow()
    declared = vacations.unsettled(session, player)
    taken = None if declared is None else vacations.as_bank_vacation(declared)
    balance = bank.settle(vacations.stored_bank(player), now, taken)
    reserved = taken.cost_hours if taken is not None and taken.start > now else 0
    try:
        balance = bank.take_day(balance, now=now, reserved=reserved)
    except bank.BankRefusal:
        return False
    vacations.store_bank(player, balance)
    session.add(player)
    day = Interval(game.deadline, game.deadline + DAY)
    session.add(
        Vacation(
            player_id=player.id, kind=VacationKind.AUTOMATIC, start=day.start, end=day.end, days=1
        )
    )
    session.flush()
    ongoing = declared is not None and declared.end > now
    shown = Interval(declared.start, declared.end) if declared and ongoing else day
    store.recompute_for_player(session, player, shown)
    assert game.state is not None
    outgoing.queue_events(
        session,
        config,
        [
            outgoing.Event(
                kind=Outcome.VACATION,
                game_id=game.id,
                version=game.version,
                seat=game.state["to_move"],
            )
        ],
    )
    return True
