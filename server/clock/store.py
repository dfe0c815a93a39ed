"""Game clocks in the database: deadlines computed from the stored turn start and the
mover's vacations, and the players' clock facts kept with each game (`player_clocks`).

Every function works inside the caller's transaction and never commits: a deadline is
written in the same transaction as the event that moves it (a game starting, a turn, a
vacation declared or ended, a league season paused or resumed).

Besides the mover's vacations (when the game allows vacation), a game's clocks stop during
the league organiser's holds (`games.clock_holds`, `server.league.pause`), whatever the
game's vacation rule: a hold is a vacation for everyone in the game. While a hold is under
way (no end yet) the game has no deadline and no reminder due, so the sweep finds nothing
to do in it; once it ends, the deadline is the moment the clock has run the allowance
outside every pause, so it moves back by the hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from server.clock import deadlines
from server.clock.deadlines import Interval
from server.models import GameRecord, GameSeat, GameStatus, Player, Vacation, iso, utcnow


@dataclass(frozen=True)
class SeatClocks:
    """The clock facts of a game's players, in the order of its `players`."""

    vacation_until: list[datetime | None]
    timeouts: list[int]


def pauses(session: Session, player_id: int, since: datetime) -> list[Interval]:
    """The player's vacations (declared and automatic) that end after `since`."""
    return pauses_of(session, [player_id], since)[player_id]


def pauses_of(
    session: Session, player_ids: Sequence[int], since: datetime
) -> dict[int, list[Interval]]:
    """Each player's vacations (declared and automatic) that end after `since`, in one
    query (`pauses` for many players)."""
    found: dict[int, list[Interval]] = {player_id: [] for player_id in player_ids}
    for player_id, start, end in session.exec(
        select(Vacation.player_id, Vacation.start, Vacation.end).where(
            col(Vacation.player_id).in_(player_ids), col(Vacation.end) > since
        )
    ):
        found[player_id].append(Interval(start, end))
    return found


def held(holds: Sequence[Mapping[str, Any]]) -> bool:
    """Whether one of a game's holds (`clock_holds`) is under way: every clock stopped."""
    return any(hold["end"] is None for hold in holds)


def stops(
    clock: Mapping[str, Any], vacations: Sequence[Interval], holds: Sequence[Mapping[str, Any]]
) -> list[Interval]:
    """Every pause of the mover's clock: their `vacations` if the game allows vacation, and
    the organiser's ended `holds`, which stop every clock whatever the vacation rule."""
    ended = [
        Interval(datetime.fromisoformat(hold["start"]), datetime.fromisoformat(hold["end"]))
        for hold in holds
        if hold["end"] is not None
    ]
    return [*(vacations if clock["vacation"] else ()), *ended]


def alarms(
    clock: dict[str, Any] | None,
    turn_start: datetime,
    paused: list[Interval],
    *,
    sent: list[str] | tuple[str, ...],
    holds: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The deadline and the next reminder due (`reminder_due`) of a turn begun at
    `turn_start`, the mover's clock `paused` by their vacations as given and by the game's
    `holds`, with the reminders `sent` this turn already; all None without a clock or
    while a hold is under way."""
    if clock is None or held(holds):
        return {"deadline": None, "reminder_due": None}
    days, every_stop = clock["days_per_turn"], stops(clock, paused, holds)
    return {
        "deadline": deadlines.deadline(turn_start, days, every_stop),
        "reminder_due": deadlines.next_reminder(turn_start, days, every_stop, sent=sent),
    }


def next_deadline(
    session: Session,
    game: GameRecord,
    *,
    state: dict[str, Any],
    finished: bool,
    new_turn: bool,
    by_the_player: bool = True,
) -> dict[str, Any]:
    """The clock columns of `game` after a change, to write with its compare-and-set:
    `bump_version(session, game, **values, **next_deadline(...))`.

    `state` is the position after the change, `game` the row before it. A new turn (a turn
    played, or the player to move changed) starts the mover's clock now; a change that
    leaves the same turn running (another player resigning) keeps its start. A finished
    game, or one without a clock, has no deadline. A turn made `by_the_player` (not played
    for them on time-out) sets their time-outs in a row back to zero. The reminders are
    armed for the turn: a new turn (or a new mover) has sent none yet.
    """
    assert game.state is not None
    values: dict[str, Any] = {}
    mover_before = game.state["players"][game.state["to_move"]]
    if new_turn and by_the_player and game.player_clocks.get(mover_before, {}).get("timeouts"):
        clocks = {name: dict(facts) for name, facts in game.player_clocks.items()}
        del clocks[mover_before]["timeouts"]
        values["player_clocks"] = {name: facts for name, facts in clocks.items() if facts}
    if finished or game.clock is None:
        return {**values, "deadline": None, "turn_started_at": None, "reminder_due": None}
    mover = state["players"][state["to_move"]]
    same_turn = not new_turn and mover == mover_before
    turn_start = game.turn_started_at if same_turn and game.turn_started_at else utcnow()
    sent = game.reminded if same_turn else []
    due = alarms(
        game.clock, turn_start, _known_pauses(game, mover), sent=sent, holds=game.clock_holds
    )
    return {**values, **due, "turn_started_at": turn_start, "reminded": sent}


def _known_pauses(game: GameRecord, name: str) -> list[Interval]:
    """The player's vacation as the game's row knows it (`player_clocks`, which every
    vacation change updates in all of the player's games), so that a turn needs no query."""
    away = game.player_clocks.get(name, {}).get("vacation")
    if away is None:
        return []
    start, end = (datetime.fromisoformat(moment) for moment in away)
    return [Interval(start, end)]


def recompute_for_player(session: Session, player: Player, vacation: Interval | None) -> int:
    """After the player's vacations changed (`vacation`: the declared one under way or to
    come, if any): every open or running game they sit in shows it (its `player_clocks`,
    and its `clock_serial` rises so that its ETag changes), and the deadline of every
    running game where they are to move is recomputed if the game allows vacation. Each
    update is a compare-and-set on the game's version, retried on a game that a turn
    changed meanwhile (or whose clock facts did: a season's hold); the games are changed in
    id order, as everywhere several are, so that two players' changes of shared games wait
    for each other instead of deadlocking. The number of games touched."""
    assert player.id is not None
    games = session.exec(
        select(GameRecord)
        .join(GameSeat, col(GameSeat.game_id) == GameRecord.id)
        .where(GameSeat.player_id == player.id, GameRecord.status != GameStatus.FINISHED)
        .order_by(col(GameRecord.id))  # the one order games are changed in (no deadlocks)
        .execution_options(populate_existing=True)
    ).all()
    for game in games:
        while not _touch(session, game, player, vacation):
            session.refresh(game)
    return len(games)


def _touch(session: Session, game: GameRecord, player: Player, vacation: Interval | None) -> bool:
    clocks = {name: dict(facts) for name, facts in game.player_clocks.items()}
    facts = clocks.setdefault(player.name, {})
    facts.pop("vacation", None)
    if vacation is not None:
        facts["vacation"] = [iso(vacation.start), iso(vacation.end)]
    values: dict[str, Any] = {
        "clock_serial": GameRecord.clock_serial + 1,
        "player_clocks": {name: facts for name, facts in clocks.items() if facts},
    }
    state, clock = game.state, game.clock
    moving = (
        game.status == GameStatus.ACTIVE
        and state is not None
        and state["players"][state["to_move"]] == player.name
    )
    if moving and clock is not None and clock["vacation"] and game.turn_started_at is not None:
        assert player.id is not None
        turn_start = game.turn_started_at
        values.update(
            alarms(
                clock,
                turn_start,
                pauses(session, player.id, turn_start),
                sent=game.reminded,
                holds=game.clock_holds,
            )
        )
    return _write_clock(session, game, values)


def _write_clock(session: Session, game: GameRecord, values: dict[str, Any]) -> bool:
    """Write the game's clock `values` if neither its version nor its clock facts changed
    since `game` was read (the compare-and-set of a vacation's or a hold's change)."""
    result = session.exec(
        update(GameRecord)
        .where(
            col(GameRecord.id) == game.id,
            col(GameRecord.version) == game.version,
            col(GameRecord.clock_serial) == game.clock_serial,
        )
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    return result.rowcount == 1


def seat_clocks(game: GameRecord, names: list[str], now: datetime) -> SeatClocks:
    """The clock facts of the game's players `names`, from the game's row alone: the end of
    the vacation each is on at `now` (or None), and their time-outs in a row."""
    until: list[datetime | None] = []
    for name in names:
        away = game.player_clocks.get(name, {}).get("vacation")
        start, end = (None, None) if away is None else map(datetime.fromisoformat, away)
        until.append(end if start is not None and end is not None and start <= now < end else None)
    timeouts = [game.player_clocks.get(name, {}).get("timeouts", 0) for name in names]
    return SeatClocks(until, timeouts)


def hold(session: Session, game: GameRecord, holds: list[dict[str, Any]]) -> bool:
    """Give the running `game` these holds of its clocks (`clock_holds`: the organiser's
    pauses) and the deadline and next reminder they make for its mover, whose vacations
    count as ever. A compare-and-set on the version and the clock facts (`clock_serial`,
    which rises so that the game's ETag changes); False if the game changed meanwhile."""
    values: dict[str, Any] = {
        "clock_holds": holds,
        "clock_serial": GameRecord.clock_serial + 1,
    }
    state, turn_start = game.state, game.turn_started_at
    if game.clock is not None and state is not None and turn_start is not None:
        mover_id = session.exec(
            select(GameSeat.player_id).where(
                GameSeat.game_id == game.id, GameSeat.seat == state["to_move"]
            )
        ).one()
        values.update(
            alarms(
                game.clock,
                turn_start,
                pauses(session, mover_id, turn_start),
                sent=game.reminded,
                holds=holds,
            )
        )
    return _write_clock(session, game, values)
