"""Playing a running game: a turn, a resignation, hints, and replaying the log.

`play_turn` is the path every move travels: check seat, version and turn,
let the engine validate, score and draw, then in one transaction compare-and-set the
snapshot, append to the log, queue the emails and remember the idempotency key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from cafe import CafeError, Game, Hint, Options, TableScore, TurnResult
from cafe.endings import Departure
from cafe.i18n import gettext, lazy_gettext
from cafe.render import quantities
from server import idempotency
from server.clock.store import next_deadline
from server.config import Settings
from server.db import single_statement_write, write_transaction
from server.domain import Conflict
from server.games import notify, positions
from server.games.computers import computer_to_move
from server.games.guarded import GuardedWrite
from server.games.store import (
    active_seat,
    conflict,
    departures,
    joined_names,
    load_game,
    read_game,
    standing_json,
    turn_log,
)
from server.idempotency import Idempotency
from server.league import labels, results
from server.models import (
    RESIGNATION_DETAILS,
    GameRecord,
    GameStatus,
    LogEntry,
    Player,
    TurnKind,
    TurnRecord,
    TurnSource,
    table_of,
    utcnow,
)
from server.postbox import outgoing, pings, recipients

#: The fields of a table's score, in order: `table_json` writes them as `dataclasses.asdict`
#: would, without its deep copy of every value (they are all plain already).
_TABLE_FIELDS = tuple(field.name for field in dataclasses.fields(TableScore))


def table_json(table: TableScore) -> dict[str, Any]:
    """What one table scored in a turn, as the log and the API show it."""
    return {name: getattr(table, name) for name in _TABLE_FIELDS}


def result_detail(result: TurnResult) -> dict[str, Any]:
    """The public facts of a played turn, beyond its notation and points (`turns.detail`)."""
    return {
        "tables": [table_json(table) for table in result.tables],
        "drawn": list(result.drawn),
        "completed": list(result.completed),
        "hand_limit": result.hand_limit,
        "stool": result.stool,
        "eliminated": result.eliminated,
    }


def change_values(
    session: Session, *, game: GameRecord, engine: Game, entry: LogEntry, by_the_player: bool
) -> dict[str, Any]:
    """The columns a turn, resignation or time-out (`entry`, played on `engine`) writes with
    the game's compare-and-set: the snapshot, the log's length, the end of a finished game,
    and the next deadline."""
    state = engine.to_position()
    finished = engine.is_over
    values: dict[str, Any] = {
        "state": state,
        "turn_count": entry.number,
        "computer_turn": not finished and computer_to_move(state, game.computers),
    }
    if finished:
        left = departures(session, game, entry)
        standings = [standing_json(s, left.get(s.player)) for s in engine.standings()]
        values.update(
            status=GameStatus.FINISHED,
            finished_at=utcnow(),
            standings=standings,
            ending=engine.ending,
        )
    new_turn = entry.kind != TurnKind.RESIGN and not entry.detail.get("removed")
    values.update(
        next_deadline(
            session,
            game,
            state=state,
            finished=finished,
            new_turn=new_turn,
            by_the_player=by_the_player,
        )
    )
    return values


#: The log's columns, as its INSERT binds them (written with Core: a unit-of-work flush of
#: one new object cost more than the statement).
_TURNS = table_of(TurnRecord)
_TURN_COLUMNS = tuple(column.name for column in _TURNS.c if column.name != "id")


def _turn_row(entry: LogEntry) -> dict[str, Any]:
    """The log entry's columns, as its INSERT binds them."""
    return {name: getattr(entry, name) for name in _TURN_COLUMNS}


def write_change(
    session: Session,
    *,
    game: GameRecord,
    values: dict[str, Any],
    entry: LogEntry,
    by_email: notify.EmailTurn | None = None,
    timed_out: str | None = None,
    config: Settings,
    remembered: dict[str, Any] | None = None,
) -> bool:
    """In the caller's transaction: compare-and-set the game with `values`, append `entry`
    to the log, queue the events and store `remembered` (an idempotency record), in one
    statement where the database allows (`guarded`); False (nothing written) if the game
    moved on."""
    assert game.id is not None
    finished = values.get("status") == GameStatus.FINISHED
    events = notify.change_events(
        game_id=game.id,
        version=game.version + 1,
        state=values["state"],
        finished=finished,
        mover=entry.seat,
        turn=entry.number,
        by_email=by_email,
        timed_out=timed_out,
    )
    write = GuardedWrite(game, values)
    write.insert(_TURNS, [_turn_row(entry)])
    players = values["state"]["players"]  # the recipients' names, from the snapshot
    in_league = game.season_id is not None
    readers = recipients.read(session, events, players)
    write.insert(outgoing.TABLE, outgoing.event_rows(config, recipients.wanted(events, readers)))
    write.insert(pings.TABLE, pings.rows_for_events(session, events, readers, in_league=in_league))
    if remembered is not None:
        write.insert(idempotency.TABLE, [remembered])
    if not write.apply(session):
        return False
    if by_email is not None:
        notify.handled(session, by_email, game_id=game.id)
    removed = values["state"]["players"][entry.seat] if entry.detail.get("removed") else None
    if finished:
        results.game_finished(
            session,
            game=game,
            standings=values["standings"],
            finished_at=values["finished_at"],
            config=config,
            removed_on_time=removed,
        )
    elif removed is not None:
        results.removed_on_time(session, game=game, player=removed, at=utcnow())
    return True


def _commit_change(
    session: Session,
    *,
    game: GameRecord,
    engine: Game,
    entry: LogEntry,
    response: dict[str, Any],
    idem: Idempotency | None,
    by_email: notify.EmailTurn | None = None,
    config: Settings,
) -> dict[str, Any]:
    """The one transaction of a turn or resignation; a 409 if the game moved on meanwhile.

    Everything is read and computed before it starts; it then writes only the snapshot
    (compare-and-set on the version), the log entry, one event row per email and the
    idempotency record, holding the write lock for as short a time as it can. On
    PostgreSQL that is one statement, so a turn from a view that reads outside transactions
    (`reads_then_one_write`) needs none (`single_statement_write`, which refuses any other
    write) — unless it writes more (a finished game's results, an emailed turn's record),
    which then get a transaction of their own with it (`write_transaction`).
    """
    assert game.id is not None
    values = change_values(session, game=game, engine=engine, entry=entry, by_the_player=True)
    more = by_email is not None or values.get("status") == GameStatus.FINISHED
    try:
        with (write_transaction if more else single_statement_write)(session) as writer:
            applied = write_change(
                writer,
                game=game,
                values=values,
                entry=entry,
                by_email=by_email,
                config=config,
                remembered=None if idem is None else idempotency.record(idem, response, 201),
            )
            if not applied:
                writer.rollback()
    except IntegrityError:  # a rival took this turn number or this idempotency key first
        applied = False
    if not applied:
        raise conflict(
            session,
            game.id,
            "stale_version",
            lazy_gettext("game %(game)s changed before your turn landed", game=game.id),
        )
    positions.keep(game.id, game.version + 1, values["state"], engine)
    return response


def play_turn(
    session: Session,
    *,
    game_id: int,
    player: Player,
    notation: str,
    version: int,
    idem: Idempotency | None,
    source: TurnSource = TurnSource.API,
    by_email: notify.EmailTurn | None = None,
    config: Settings,
) -> dict[str, Any]:
    """Apply the caller's turn made against `version`; the response describes it.
    `source`: how the turn came in, kept in the log. `by_email`: the emailed reply the turn
    came in, confirmed and recorded as handled in the turn's own transaction.

    With an idempotency key, a request whose twin (same key and body) already succeeded
    gets the twin's response — also when the twin won a race a moment ago, which this
    request then sees as a conflict. The key is looked up only then: a twin that succeeded
    moved the game on, so a retry always meets a conflict first (the stale version, or its
    key's insert), and a first request costs no lookup.
    """
    try:
        return _apply_turn(
            session,
            game_id=game_id,
            player=player,
            notation=notation,
            version=version,
            idem=idem,
            source=source,
            by_email=by_email,
            config=config,
        )
    except Conflict:
        if idem is not None:
            stored = idempotency.recall(session, idem)
            if stored is not None:
                return stored[0]
        raise


def movers_game(
    session: Session, *, game_id: int, player: Player, version: int
) -> tuple[GameRecord, int]:
    """The running game and the player's seat, when it is their turn at `version`: else
    the refusal a turn would get (not a player, not running, a stale version, not your
    turn)."""
    game = read_game(session, game_id)
    seat = active_seat(session, game, player)
    if version != game.version:
        raise conflict(
            session,
            game_id,
            "stale_version",
            lazy_gettext("your turn was made against version %(version)s", version=version),
        )
    assert game.state is not None
    if game.state["to_move"] != seat:
        raise conflict(session, game_id, "not_your_turn", lazy_gettext("it is not your turn"))
    return game, seat


def _apply_turn(
    session: Session,
    *,
    game_id: int,
    player: Player,
    notation: str,
    version: int,
    idem: Idempotency | None,
    source: TurnSource,
    by_email: notify.EmailTurn | None,
    config: Settings,
) -> dict[str, Any]:
    """The checks, the engine and the transaction of `play_turn`."""
    game, seat = movers_game(session, game_id=game_id, player=player, version=version)
    assert game.state is not None
    engine = positions.engine_at(game_id, game.version, game.state)
    result = engine.play(notation)
    entry = LogEntry(
        game_id=game_id,
        number=game.turn_count + 1,
        seat=seat,
        notation=result.notation,
        submitted=notation,
        source=source,
        points=result.points,
        detail=result_detail(result),
    )
    response = {
        "summary": gettext(
            "%(player)s played %(turn)s for %(points)s",
            player=player.name,
            turn=entry.notation,
            points=quantities.points(result.points),
        ),
        "game_id": game_id,
        "number": entry.number,
        "player": player.name,
        "turn": entry.notation,
        "points": result.points,
        **entry.detail,
        "game_over": engine.is_over,
        "version": game.version + 1,
        "to_move": None if engine.is_over else engine.player_to_move,
        "scores": engine.scores,
    }
    return _commit_change(
        session,
        game=game,
        engine=engine,
        entry=entry,
        response=response,
        idem=idem,
        by_email=by_email,
        config=config,
    )


def resignation(
    game: GameRecord, seat: int, *, how: Departure = Departure.RESIGNED
) -> tuple[Game, LogEntry]:
    """The running game after the player at `seat` resigns (`how`: of their own, or by
    leaving the league's season — withdrawn or removed by its organiser), and the log entry
    that records it (to write with `write_change`)."""
    assert game.id is not None and game.state is not None
    engine = Game.from_position(game.state)
    engine.resign(seat)
    entry = LogEntry(
        game_id=game.id,
        number=game.turn_count + 1,
        seat=seat,
        kind=TurnKind.RESIGN,
        detail=dict(RESIGNATION_DETAILS[how]),
    )
    return engine, entry


def resign(session: Session, *, game_id: int, player: Player, config: Settings) -> GameRecord:
    """The caller leaves a running game for good (``Game.resign``): out like an eliminated
    player, ranked below everyone still in."""
    game = load_game(session, game_id)
    seat = active_seat(session, game, player)
    assert game.state is not None
    if game.state["eliminated"][seat]:
        raise Conflict(
            "already_out", lazy_gettext("you are already out of game %(game)s", game=game_id)
        )
    engine, entry = resignation(game, seat)
    response = {"summary": gettext("%(player)s resigned", player=player.name)}
    _commit_change(
        session, game=game, engine=engine, entry=entry, response=response, idem=None, config=config
    )
    return load_game(session, game_id)


def hints(session: Session, *, game_id: int, player: Player, n: int) -> tuple[list[Hint], bool]:
    """The caller's `n` best turns now, and whether it is not their turn yet: then they are
    found for the caller's hand against the current board, as if it were (for planning)."""
    game = load_game(session, game_id)
    seat = active_seat(session, game, player)
    assert game.state is not None
    return as_if_movers(game.state, seat).hints(n), game.state["to_move"] != seat


def as_if_movers(state: Mapping[str, Any], seat: int) -> Game:
    """The game at `state` with `seat` to move: the position a player waiting for their
    turn plans against."""
    return Game.from_position({**state, "to_move": seat})


def replay(session: Session, game: GameRecord) -> Game:
    """The game rebuilt from its seed and log: the truth the snapshot must equal."""
    if game.seed_hex is None:
        raise Conflict(
            "game_not_started", lazy_gettext("game %(game)s has not started yet", game=game.id)
        )
    engine = Game.new(
        joined_names(session, game),
        seed=bytes.fromhex(game.seed_hex),
        options=Options(**game.options),
    )
    for entry in turn_log(session, game):
        timeout = entry.kind == TurnKind.TIMEOUT
        if entry.kind == TurnKind.RESIGN or entry.detail.get("removed"):
            engine.resign(entry.seat, timeout=timeout)
        elif entry.kind == TurnKind.END:
            engine.adjudicate(entry.detail["reason"])
        else:
            engine.play(entry.notation, timeout=timeout)
    return engine


def record_text(session: Session, game: GameRecord, *, config: Settings) -> str:
    """The game record (`cafe.record`); it reveals the seed only once the game is over. Its
    Event is a league game's league, season and division (in English: a file format's tag,
    whoever reads it), Site the service's address, Date
    the day the game started, Game its id."""
    started = game.started_at
    league = labels.label(session, game)
    return replay(session, game).to_record(
        event=league.event if league else None,
        site=config.base_url,
        date=started.strftime("%Y.%m.%d") if started else None,
        game_id=str(game.id),
    )


def check(session: Session, game: GameRecord) -> str | None:
    """Why the game's snapshot differs from its replayed log, or None when they agree.

    The snapshot is compared as the engine reads it, so one stored in an older spelling of
    the same position (a joker on a private chair without its nation, docs/formats.md) agrees.
    """
    if game.state is None:
        return None
    try:
        replayed = replay(session, game).to_position()
    except CafeError as error:
        return f"the log does not replay: {error}"
    try:
        stored = Game.from_position(game.state).to_position()
    except CafeError as error:
        return f"the snapshot does not load: {error}"
    if replayed != stored:
        differing = sorted(
            k for k in replayed.keys() | stored.keys() if replayed.get(k) != stored.get(k)
        )
        return f"snapshot differs from the replayed log in {', '.join(differing)}"
    return None
