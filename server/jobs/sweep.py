"""The worker's sweep: due deadlines and due reminders, each acted on exactly once.

A sweep takes what is due through the indexes on `games.deadline` and `games.reminder_due`
(`WHERE … <= now ORDER BY … LIMIT 1`: it costs what the due games cost, however many games
are running), one game at a time, each in its own short transaction that begins by claiming
the earliest due game in the listing itself: `FOR UPDATE SKIP LOCKED` on PostgreSQL, so a
game another worker holds is passed over when listing and several workers take different
due games instead of queueing behind the same ones (issue 25: a sweep that listed a batch
first and claimed each later mostly found, in a second worker, the games the first held or
had done — 4 workers timed games out no sooner than 1). The games a sweep has tried are
left out of its next listings, so one it let go (nothing to do after all, its player held
elsewhere) stays due for the next sweep without stopping this one. On SQLite, one writer at
a time, the same query locks nothing and each game is written under the writer lock. Inside
the transaction the handler re-checks that the same version is still due, and acts (the
vacations with an email due and the seasons with a digest due are taken the same way):

- a passed deadline: `server.games.timeouts.apply_timeout` (automatic vacation, a turn
  played for the player, or their removal), with the compare-and-set of a player's turn;
- a due reminder: the `reminder` event is queued in the very transaction that records the
  reminder as sent (`games.reminded`) and arms the next one, so it is sent once, whatever
  the crashes. None goes to a player on vacation or one who turned reminders off (the
  reminder is recorded all the same); when both reminders of a turn are due at once (the
  workers were down), only the later one is sent. The player's reminders of other games
  due within the next hour (`TOGETHER`) are recorded in the same transaction and come in
  the same email (the event's `more_games`), so a player with several games due at about
  the same time gets one reminder, not one per game;
- a declared vacation beginning or ending with time alone (`vacations.notice_due`,
  indexed): `announce` queues its email (`server.clock.notices`) in the transaction that
  moves `notice_due` on, the vacation and its player claimed like a game, so that two
  workers, a crash or the player ending it at that moment never double it. A vacation whose
  end has passed too by the time it is swept (the workers were down) gets "ended" only;
- a running league season's weekly digest (`seasons.digest_due`, indexed): queued in the
  transaction that moves `digest_due` on by a compare-and-set (`server.jobs.league_digest`).

A crash anywhere rolls back the game at hand only; the next sweep finds it due again. A
transaction the database aborted for a rival (a deadlock, a serialization failure) is run
again at once (`server.transactions.retried`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, update
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select, SelectOfScalar

from server.clock import deadlines, store, vacations
from server.clock.notices import queue
from server.config import Settings
from server.db import write_transaction
from server.games import timeouts
from server.jobs import league_digest
from server.models import (
    GameRecord,
    GameSeat,
    GameStatus,
    Player,
    Season,
    Vacation,
    VacationKind,
    utcnow,
)
from server.postbox import outgoing
from server.postbox.kinds import EmailKind, wants
from server.transactions import retried

#: The due games (vacations, seasons) one sweep takes on, of each kind. A worker's round
#: sweeps before it claims mail, so a sweep is a bounded batch (issue 25: 200 time-outs in
#: one go kept every worker's mail waiting 4 s at 10,000 games); when one kind filled its
#: batch (`Swept.more`) the worker sweeps again in its very next round, after that round's
#: mail, rather than a sweep interval later.
BATCH = 20
#: A listing of due rows, earliest first (`_due`, `_due_notices`, `league_digest.due_seasons`).
Due = Select[*tuple[Any, ...]] | SelectOfScalar[Any]
#: Reminders due within this span for one player come as one email.
TOGETHER = timedelta(hours=1)


@dataclass
class Swept:
    """What one sweep did: the time-outs by outcome, the reminders sent, the vacation
    emails queued by kind, and the league seasons whose weekly digest was queued."""

    timeouts: Counter[str] = field(default_factory=Counter)
    reminders: int = 0
    vacations: Counter[str] = field(default_factory=Counter)
    league_digests: int = 0
    #: a kind had more due than one sweep takes, or the sweep ran out of time: sweep again
    more: bool = False

    @property
    def total(self) -> int:
        """Every game, vacation and season the sweep acted on."""
        return (
            sum(self.timeouts.values())
            + self.reminders
            + sum(self.vacations.values())
            + self.league_digests
        )


def sweep(
    engine: Engine, config: Settings, *, limit: int = BATCH, budget: float | None = None
) -> Swept:
    """Act on the deadlines, reminders, vacation emails and league digests due now, up to
    `limit` of each, and with a `budget` (seconds) none begun once it is spent (the first
    always is, so that every sweep makes progress); what is left stays due for the next
    sweep (`Swept.more`)."""
    swept = Swept()
    now = utcnow()
    stop = None if budget is None else time.monotonic() + budget
    begun = 0

    def claimed(session: Session, due: Due, ident: Any) -> Iterator[Any]:
        """The rows of `due` to act on, one at a time: each the earliest not tried yet in
        this sweep, claimed by the transaction its handler then commits (`_claim_next`);
        up to `limit` of them, and none begun once the budget is spent."""
        nonlocal begun
        tried: list[int] = []
        while len(tried) < limit:
            row = _claim_next(session, due, ident, tried)
            if row is None:
                return
            if stop is not None and begun and time.monotonic() >= stop:
                session.rollback()  # let the claim go: the next sweep takes it
                swept.more = True
                return
            begun += 1
            tried.append(row[0])
            yield row
        swept.more = True

    with Session(engine, expire_on_commit=False) as session:
        for game_id, version in claimed(session, _due(GameRecord.deadline, now), GameRecord.id):
            outcome = _time_out(session, game_id, version, config=config)
            if outcome is not None:
                swept.timeouts[outcome] += 1
        reminders = _due(GameRecord.reminder_due, now)
        for game_id, version in claimed(session, reminders, GameRecord.id):
            swept.reminders += remind(session, game_id, version, config=config)
        for (vacation_id,) in claimed(session, _due_notices(now), Vacation.id):
            notice = announce(session, vacation_id, config=config)
            if notice is not None:
                swept.vacations[notice] += 1
        seasons = league_digest.due_seasons(now)
        for season_id, due in claimed(session, seasons, Season.id):
            queued = _send_digest(session, season_id, due, config=config)
            swept.league_digests += queued is not None
    return swept


#: A time-out and a league digest, each one transaction that rolls back on any error, run
#: again when the database aborted it.
_time_out = retried(timeouts.apply_timeout)
_send_digest = retried(league_digest.send_digest)


def _claim_next(session: Session, due: Due, ident: Any, tried: list[int]) -> Any | None:
    """The first row of `due` whose `ident` is not in `tried`, locked for the transaction
    this begins (`FOR UPDATE SKIP LOCKED` on PostgreSQL: a row another transaction holds is
    passed over, and the next one taken); None, the transaction ended, when none is left."""
    if tried:
        due = due.where(col(ident).not_in(tried))
    row = session.execute(due.limit(1).with_for_update(skip_locked=True)).first()
    if row is None:
        session.rollback()
    return row


def _due(column: Any, now: datetime) -> Due:
    """(id, version) of the games whose `column` has come, earliest first (by its index)."""
    return (
        select(GameRecord.id, GameRecord.version)
        .where(col(column) <= now)
        .order_by(col(column), col(GameRecord.id))
    )


@retried
def remind(session: Session, game_id: int, version: int, *, config: Settings) -> bool:
    """Send the due reminder of game `game_id` at `version` (record it, queue its email,
    arm the next one) and commit; False when none was due any more or none was sent."""
    with write_transaction(session):
        return _remind(session, game_id, version, config)


def _remind(session: Session, game_id: int, version: int, config: Settings) -> bool:
    now = utcnow()
    game = session.exec(
        select(GameRecord)
        .where(
            col(GameRecord.id) == game_id,
            col(GameRecord.version) == version,
            col(GameRecord.status) == GameStatus.ACTIVE,
            col(GameRecord.reminder_due) <= now,
        )
        .with_for_update(skip_locked=True)
        .execution_options(populate_existing=True)
    ).first()
    if game is None or game.clock is None or game.state is None or game.turn_started_at is None:
        return False
    seat = game.state["to_move"]
    player = session.exec(
        select(Player)
        .join(GameSeat, col(GameSeat.player_id) == Player.id)
        .where(GameSeat.game_id == game_id, GameSeat.seat == seat)
    ).one()
    assert player.id is not None
    due, away = _record_reminders(session, game, player, until=now)
    wanted = due and wants(player, EmailKind.REMINDER) and not away
    if wanted:
        more: list[tuple[int, int]] = []
        for other in _reminders_soon(session, player, game_id, until=now + TOGETHER):
            if _record_reminders(session, other, player, until=now + TOGETHER)[0]:
                assert other.id is not None  # read from the table
                more.append((other.id, other.version))
        event = outgoing.Event(
            kind=EmailKind.REMINDER,
            game_id=game_id,
            version=version,
            seat=seat,
            more_games=tuple(more),
        )
        outgoing.queue_events(session, config, [event])
    return wanted


def _record_reminders(
    session: Session, game: GameRecord, player: Player, *, until: datetime
) -> tuple[bool, bool]:
    """Record the reminders of `game`'s turn (the player's) due by `until` as sent and arm
    the next one; whether any was due, and whether the player is away now."""
    assert game.clock is not None and game.turn_started_at is not None and player.id is not None
    now = utcnow()
    start, days = game.turn_started_at, game.clock["days_per_turn"]
    paused = store.pauses(session, player.id, start)
    every_stop = store.stops(game.clock, paused, game.clock_holds)
    due = [
        reminder.kind
        for reminder in deadlines.reminders(start, days, every_stop)
        if reminder.due <= until and reminder.kind not in game.reminded
    ]
    reminded = [*game.reminded, *due]
    session.execute(
        update(GameRecord)
        .where(col(GameRecord.id) == game.id, col(GameRecord.version) == game.version)
        .values(
            reminded=reminded,
            reminder_due=deadlines.next_reminder(start, days, every_stop, sent=reminded),
        )
        .execution_options(synchronize_session=False)
    )
    return bool(due), any(pause.start <= now < pause.end for pause in paused)


def _reminders_soon(
    session: Session, player: Player, game_id: int, *, until: datetime
) -> list[GameRecord]:
    """The player's other running games whose reminder is due by `until` and where it is
    their turn, claimed like the game at hand (in id order, skipping any another
    transaction holds: those remind on their own)."""
    found = session.exec(
        select(GameRecord, GameSeat.seat)
        .join(GameSeat, col(GameSeat.game_id) == GameRecord.id)
        .where(
            col(GameSeat.player_id) == player.id,
            col(GameRecord.id) != game_id,
            col(GameRecord.status) == GameStatus.ACTIVE,
            col(GameRecord.reminder_due) <= until,
        )
        .order_by(col(GameRecord.id))
        .with_for_update(skip_locked=True, of=GameRecord)
        .execution_options(populate_existing=True)
    ).all()
    return [
        game
        for game, seat in found
        if game.clock is not None
        and game.state is not None
        and game.turn_started_at is not None
        and game.state["to_move"] == seat
    ]


def _due_notices(now: datetime) -> Due:
    """The ids of the vacations with an email due, earliest first (by the index)."""
    return (
        select(Vacation.id)
        .where(col(Vacation.notice_due) <= now)
        .order_by(col(Vacation.notice_due), col(Vacation.id))
    )


@retried
def announce(session: Session, vacation_id: int, *, config: Settings) -> EmailKind | None:
    """Queue the email due about vacation `vacation_id`, move its `notice_due` on, and
    commit; None when none is due any more or another transaction holds it or its player."""
    with write_transaction(session):
        return _announce(session, vacation_id, config)


def _announce(session: Session, vacation_id: int, config: Settings) -> EmailKind | None:
    now = utcnow()
    vacation = session.exec(
        select(Vacation)
        .where(
            col(Vacation.id) == vacation_id,
            col(Vacation.kind) == VacationKind.DECLARED,
            col(Vacation.notice_due) <= now,
        )
        .with_for_update(skip_locked=True)
        .execution_options(populate_existing=True)
    ).first()
    if vacation is None:
        return None
    player = session.exec(
        select(Player)
        .where(col(Player.id) == vacation.player_id)
        .with_for_update(skip_locked=True)
        .execution_options(populate_existing=True)
    ).first()
    if player is None:  # held by a vacation being declared or ended: the next sweep
        return None
    ended = vacation.end <= now
    notice = EmailKind.VACATION_ENDED if ended else EmailKind.VACATION_STARTED
    vacation.notice_due = None if ended else vacation.end
    session.add(vacation)
    queue(
        session,
        config,
        player,
        vacation,
        notice,
        bank_days=vacations.status(session, player).bank_days,
    )
    return notice
