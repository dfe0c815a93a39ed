"""Writes run by their SQL text (`server.statements`): they send the driver what
SQLAlchemy's own execution sends, keep its errors and the write guard, and refuse at once
what they cannot do."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, bindparam, delete, event, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from server import idempotency
from server.config import settings_of
from server.db import UnguardedWrite, get_engine
from server.games.store import compare_and_set, compare_and_set_params, read_game
from server.models import GameRecord, GameStatus, Player, TurnRecord, table_of, utcnow
from server.postbox import outgoing
from server.statements import Prepared

GAMES = table_of(GameRecord)
PLAYERS = table_of(Player)
TURNS = table_of(TurnRecord)


@contextmanager
def sent(engine: Engine) -> Iterator[list[tuple[str, Any]]]:
    """What reaches the driver while the block runs: (SQL, parameters) per statement."""
    found: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, params: Any, *_rest: Any) -> None:
        found.append((statement, params))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield found
    finally:
        event.remove(engine, "before_cursor_execute", record)


def _driven(statements: list[tuple[str, Any]]) -> tuple[set[str], list[Any]]:
    """`sent`'s statements as the driver ran them: the SQL (without the RETURNING of a new
    row's key, which SQLAlchemy asks for one row at a time and `Prepared` never does) and
    every row's parameters in order, psycopg's JSON wrappers unwrapped to compare by value."""

    def row(params: Any) -> Any:
        if isinstance(params, dict):
            return {name: getattr(v, "obj", v) for name, v in params.items()}
        return tuple(getattr(v, "obj", v) for v in params)

    sql = {re.sub(r" RETURNING \S+$", "", text) for text, _ in statements}
    rows = [row(r) for _, p in statements for r in (p if isinstance(p, list) else [p])]
    return sql, rows


@contextmanager
def rolled_back(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that is rolled back afterwards."""
    with engine.connect() as connection:
        transaction = connection.begin()
        try:
            yield connection
        finally:
            transaction.rollback()


def _played_game(api: Any) -> int:
    """A game of ann and bob with one turn played, so its row has a log and a deadline."""
    game_id, tokens = api.started_game("ann", "bob")
    api.play_best(game_id, tokens)
    return game_id


def _outbox_rows(api: Any, game_id: int) -> list[dict[str, Any]]:
    now = utcnow()
    return [
        outgoing.new_row(settings_of(api.app), now, kind="your_turn", game_id=game_id,
                         version=9, seat=seat, turn=3, answering=None, more_games=more)
        for seat, more in ((0, None), (1, [[game_id, 2]]))
    ]  # fmt: skip


@pytest.mark.postgres
def test_a_write_binds_what_sqlalchemys_own_execution_binds(api: Any) -> None:
    """The compare-and-set (JSON, an enum, dates, None) and an insert of one row and of
    many send the same SQL and the same converted values as `Connection.execute`."""
    game_id = _played_game(api)
    engine = get_engine(api.app)
    with Session(engine) as session:
        game = read_game(session, game_id)
    assert game.state is not None
    values = {
        "state": {**game.state, "to_move": 1},
        "status": GameStatus.FINISHED,
        "finished_at": utcnow(),
        "standings": None,
        "turn_count": game.turn_count + 1,
    }
    params = compare_and_set_params(game, values)
    rows = _outbox_rows(api, game_id)
    record = idempotency.record(
        idempotency.Idempotency(player_id=game.creator_id, key="k", request_hash="h"),
        {"a": [1]},
        201,
    )
    cases = [
        (compare_and_set(tuple(values)), None, params),
        (insert(outgoing.TABLE), tuple(rows[0]), rows),
        (insert(idempotency.TABLE), tuple(record), record),
    ]
    for statement, keys, bound in cases:
        with rolled_back(engine) as connection, sent(engine) as theirs:
            for one in bound if isinstance(bound, list) else [bound]:
                connection.execute(statement, one)
        with rolled_back(engine) as connection, sent(engine) as ours:
            Prepared(statement, keys).execute(connection, bound)
        assert len(ours) == 1
        assert _driven(ours) == _driven(theirs), statement


@pytest.mark.postgres
def test_a_unique_keys_violation_is_still_an_integrity_error(api: Any) -> None:
    game_id = _played_game(api)
    engine = get_engine(api.app)
    with rolled_back(engine) as connection:
        logged = connection.execute(select(TURNS).where(TURNS.c.game_id == game_id)).mappings()
        again = {k: v for k, v in dict(next(iter(logged))).items() if k != "id"}
        with pytest.raises(IntegrityError):
            Prepared(insert(TURNS), tuple(again)).execute(connection, again)


@pytest.mark.postgres
def test_the_write_guard_sees_a_prepared_write(api: Any) -> None:
    """A write by SQL text on a connection that commits each statement on its own is
    refused like any other (`server.db`)."""
    game_id = _played_game(api)
    with Session(get_engine(api.app)) as session:
        creator = read_game(session, game_id).creator_id
    record = idempotency.record(
        idempotency.Idempotency(player_id=creator, key="k", request_hash="h"), {}, 201
    )
    alone = get_engine(api.app).execution_options(isolation_level="AUTOCOMMIT")
    with alone.connect() as connection, pytest.raises(UnguardedWrite, match="outside"):
        Prepared(insert(idempotency.TABLE), tuple(record)).execute(connection, record)


def test_what_it_cannot_do_is_refused_when_it_is_compiled(api: Any) -> None:
    """A column whose default Python computes, left out of the row, and a list rendered
    into an IN at execution: each refused at the first execution, naming what is wrong."""
    api.register("ann")
    engine = get_engine(api.app)
    with rolled_back(engine) as connection:
        with pytest.raises(ValueError, match=r"created_at"):
            Prepared(insert(PLAYERS), ("name", "email")).execute(
                connection, {"name": "bob", "email": "bob@example.org"}
            )
        with pytest.raises(ValueError, match="rendered at execution"):
            Prepared(
                delete(PLAYERS).where(PLAYERS.c.name.in_(bindparam("names", expanding=True)))
            ).execute(connection, {"names": ["ann"]})
        with pytest.raises(KeyError, match="'name'"):
            Prepared(delete(PLAYERS).where(PLAYERS.c.name == bindparam("name"))).execute(
                connection, {}
            )


def test_a_statement_is_compiled_once_per_dialect(api: Any) -> None:
    api.register("ann")
    engine = get_engine(api.app)
    rename = Prepared(
        update(PLAYERS).where(PLAYERS.c.name == bindparam("old")).values(timezone=bindparam("tz"))
    )
    with rolled_back(engine) as connection, sent(engine) as ours:
        for timezone in ("Europe/Prague", "Europe/Berlin", "Europe/Moscow"):
            assert rename.execute(connection, {"old": "ann", "tz": timezone}).rowcount == 1
        assert rename.execute(connection, {"old": "bob", "tz": "UTC"}).rowcount == 0
    assert len({sql for sql, _ in ours}) == 1
