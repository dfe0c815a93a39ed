"""The hot paths stay cheap (found with `benchmarks/server.py`): showing a started game is
two queries whoever asks, and playing a turn reads seats from the snapshot, not the
database."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from server_support import transaction_states
from sqlalchemy import event
from sqlmodel import Session, select

from server.db import get_engine
from server.models import IdempotencyKey, OutboxMessage, TurnRecord


@contextmanager
def statements(app) -> Iterator[list[str]]:
    """The SQL statements the app runs inside the block."""
    seen: list[str] = []

    def record(_conn, _cursor, statement, _params, _context, _many) -> None:
        seen.append(statement)

    engine = get_engine(app)
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def test_showing_a_started_game_is_two_queries_for_any_player(api):
    game_id, tokens = api.started_game("ann", "bob", "cid")
    for name in ("ann", "cid"):  # the creator, and a player the session has not loaded
        with statements(api.app) as seen:
            response = api.call("GET", f"/api/games/{game_id}", tokens[name])
        assert response.status_code == 200
        assert response.json["creator"] == "ann"
        assert response.json["players"][response.json["your_seat"]] == name
        assert len(seen) == 2, seen  # the token's owner; the game with its creator's name


@pytest.mark.postgres
def test_showing_a_game_runs_its_queries_outside_a_transaction(api):
    """No BEGIN and ROLLBACK round trips around a read: each query stands on its own."""
    game_id, tokens = api.started_game("ann", "bob")
    with transaction_states(api.app) as after:
        response = api.call("GET", f"/api/games/{game_id}", tokens["bob"])
    assert response.status_code == 200
    assert after == [False, False]


def test_a_turn_reads_no_seats(api):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = tokens[state["to_move"]]
    turn = api.call("GET", f"/api/games/{game_id}/hints?n=1", mover).json["hints"][0]["turn"]
    with statements(api.app) as seen:
        response = api.call(
            "POST",
            f"/api/games/{game_id}/turns",
            mover,
            json={"turn": turn, "version": state["version"]},
        )
    assert response.status_code == 201
    assert not [s for s in seen if "game_seats" in s], seen


@pytest.mark.postgres
def test_a_turn_is_seven_statements_and_renders_nothing_three_on_postgresql(api):
    game_id, tokens = api.started_game("ann", "bob", "cid")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = tokens[state["to_move"]]
    turn = api.call("GET", f"/api/games/{game_id}/hints?n=1", mover).json["hints"][0]["turn"]
    with statements(api.app) as seen:
        response = api.call(
            "POST",
            f"/api/games/{game_id}/turns",
            mover,
            json={"turn": turn, "version": state["version"]},
            headers={"Idempotency-Key": "one"},
        )
    assert response.status_code == 201
    # the token's owner; the game; the recipients' channels (issue 26: by name, one indexed
    # read); then the compare-and-set, the log entry, the events (one statement for all),
    # the channels' pings and the idempotency record — on PostgreSQL the channels' read and
    # those writes are one statement, which selects the pings itself (`server.games.guarded`)
    if get_engine(api.app).dialect.name == "postgresql":
        assert len(seen) == 3, seen
        combined = " ".join(seen[2].split())
        assert combined.startswith("WITH moved AS (UPDATE games"), combined
        assert "FROM players JOIN channels" in combined, combined
    else:
        assert "FROM players JOIN channels" in " ".join(seen[2].split()), seen[2]
        assert len(seen) == 7, seen
    assert not [s for s in seen if s.startswith("SELECT") and "idempotency_keys" in s]
    with Session(get_engine(api.app)) as session:
        log = session.exec(select(TurnRecord).where(TurnRecord.game_id == game_id)).all()
        assert [(t.number, t.notation) for t in log] == [(1, response.json["turn"])]
        events = session.exec(
            select(OutboxMessage).where(OutboxMessage.version == response.json["version"])
        ).all()
        assert sorted(e.kind for e in events) == ["turn_played", "your_turn"]
        assert all(e.body is None and e.status == "pending" for e in events)
        (key,) = session.exec(select(IdempotencyKey)).all()
        assert (key.key, key.status_code, key.response) == ("one", 201, response.json)


@pytest.mark.postgres
def test_a_turn_on_postgresql_is_one_write_outside_a_transaction(api):
    """On PostgreSQL a turn's one write stands on its own: no BEGIN and COMMIT round trips
    (on SQLite the writes remain one transaction)."""
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = tokens[state["to_move"]]
    turn = api.call("GET", f"/api/games/{game_id}/hints?n=1", mover).json["hints"][0]["turn"]
    with transaction_states(api.app) as after:
        response = api.call(
            "POST",
            f"/api/games/{game_id}/turns",
            mover,
            json={"turn": turn, "version": state["version"]},
        )
    assert response.status_code == 201
    if get_engine(api.app).dialect.name == "postgresql":
        assert after == [False, False, False]  # the owner, the game, the one write
    else:
        assert after[-1] is True  # the log entry's insert, inside the turn's transaction
