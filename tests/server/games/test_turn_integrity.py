"""Integrity: a turn is all-or-nothing, whole games replay to their snapshots, and neither
the bag's order nor the seed leaks before the end — in any response or email."""

from __future__ import annotations

import dataclasses
import json

import pytest
from sqlalchemy import inspect
from sqlmodel import Session, select

from server.db import get_engine
from server.domain import NotFound
from server.games import store, turns
from server.models import (
    GameRecord,
    IdempotencyKey,
    LogEntry,
    OutboxMessage,
    TurnRecord,
    table_of,
)
from server.postbox import outgoing

SEPARATORS = (" ", ",", ", ", '","', '", "', "\n")


def secret_of(app, game_id):
    with Session(get_engine(app)) as session:
        game = session.get(GameRecord, game_id)
        return game.seed_hex, game.state["bag"], game.status


def assert_no_leak(text: str, seed: str, bag: list[str]) -> None:
    """Neither the seed nor the next six draws in order may appear in `text`."""
    assert seed not in text
    assert seed.upper() not in text
    if len(bag) >= 6:
        for separator in SEPARATORS:
            assert separator.join(bag[:6]) not in text
    assert '"bag"' not in text


@pytest.mark.postgres
def test_a_failing_turn_transaction_leaves_no_trace(api, monkeypatch):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    token = tokens[state["to_move"]]
    turn = api.call("GET", f"/api/games/{game_id}/hints?n=1", token).json["hints"][0]["turn"]
    mails_before = len(api.outbox())

    rows = outgoing.event_rows

    def unstorable_events(config, events):
        """Events the database refuses (an attempt count no integer column holds), so the
        turn's write fails after its snapshot and log entry went in (SQLite) or inside its
        one statement (PostgreSQL)."""
        return [{**row, "attempts": 2**64} for row in rows(config, events)]

    monkeypatch.setattr(outgoing, "event_rows", unstorable_events)
    response = api.call(
        "POST",
        f"/api/games/{game_id}/turns",
        token,
        json={"turn": turn, "version": state["version"]},
        headers={"Idempotency-Key": "k1"},
    )
    assert response.status_code == 500
    with Session(get_engine(api.app)) as session:
        game = session.get(GameRecord, game_id)
        assert game.version == state["version"]
        assert game.turn_count == 0
        assert game.state["hands"] == state["hands"]
        assert session.exec(select(TurnRecord)).all() == []
        assert session.exec(select(IdempotencyKey)).all() == []
    assert len(api.outbox()) == mails_before
    monkeypatch.undo()
    retry = api.call(
        "POST",
        f"/api/games/{game_id}/turns",
        token,
        json={"turn": turn, "version": state["version"]},
        headers={"Idempotency-Key": "k1"},
    )
    assert retry.status_code == 201


def play_scanned_game(api, names, options):
    """Play a game to its end by the best hint, scanning every response for leaks."""
    game_id, tokens = api.started_game(*names, options=options)
    seed, _, _ = secret_of(api.app, game_id)
    state = api.call("GET", f"/api/games/{game_id}", tokens[names[0]]).json
    number = 0
    while state["status"] == "active":
        number += 1
        token = tokens[state["to_move"]]
        responses = [api.call("GET", f"/api/games/{game_id}/hints?n=3", token)]
        turn = responses[0].json["hints"][0]["turn"]
        body = {"turn": turn, "version": state["version"]}
        played = api.call(
            "POST", f"/api/games/{game_id}/turns", token, json=body,
            headers={"Idempotency-Key": f"turn-{number}"},
        )  # fmt: skip
        assert played.status_code == 201, played.json
        responses.append(played)
        responses.append(api.call("GET", f"/api/games/{game_id}/turns", token))
        responses.append(api.call("GET", "/api/games?mine=true", token))
        if number % 5 == 0:
            responses.append(api.call("GET", f"/api/games/{game_id}/record", token))
        state_response = api.call("GET", f"/api/games/{game_id}", token)
        responses.append(state_response)
        state = state_response.json
        api.send_events()  # rendered from the game now: the emails are scanned below
        _, bag, status = secret_of(api.app, game_id)
        if status == "active":
            for response in responses:
                assert_no_leak(response.data.decode(), seed, bag)
    return game_id, tokens, seed


def check_whole_game(api, names, options):
    """Play a game to the end; then check the log, the snapshots, the emails and the record."""
    game_id, tokens, seed = play_scanned_game(api, names, options)
    final = api.call("GET", f"/api/games/{game_id}", tokens[names[0]]).json
    assert final["status"] == "finished" and final["seed"] == seed
    assert [s["place"] for s in final["standings"]] == sorted(
        s["place"] for s in final["standings"]
    )
    with api.app.app_context(), Session(get_engine(api.app)) as session:
        for game in session.exec(select(GameRecord)).all():
            assert turns.check(session, game) is None
        log = session.exec(select(TurnRecord).where(TurnRecord.game_id == game_id)).all()
        assert [entry.number for entry in log] == list(range(1, len(log) + 1))
        assert final["turns"] == len(log)
        mails = session.exec(
            select(OutboxMessage).where(OutboxMessage.status == "sent").order_by(OutboxMessage.id)
        ).all()
    game_over = [m for m in mails if m.kind == "game_over"]
    assert sorted(m.to_addr for m in game_over) == sorted(f"{n}@example.com" for n in names)
    record = api.call("GET", f"/api/games/{game_id}/record", tokens[names[0]]).data.decode()
    assert f'[Seed "{seed}"]' in record
    for mail in mails:
        if mail.kind != "game_over":
            assert seed not in mail.body and seed not in (mail.html or "")
    assert json.dumps(final).count(seed) == 1


@pytest.mark.postgres
def test_a_whole_two_player_game(api):
    check_whole_game(api, ("ann", "bob"), {})


@pytest.mark.parametrize(
    ("names", "options"),
    [
        (("ann", "bob", "cid"), {"birthday": 20}),
        (("ann", "bob", "cid", "dan"), {"coffee_klatsch": True}),
    ],
)
def test_whole_games_with_variants(api, names, options):
    check_whole_game(api, names, options)


def test_a_log_entry_writes_every_column_of_the_log_but_its_id():
    """`LogEntry`, the plain object a change writes to the log with a Core INSERT, has the
    log table's columns (but the id it gets there), so a column added to `TurnRecord`
    cannot be left out of what a turn writes."""
    columns = [column.name for column in table_of(TurnRecord).c if column.name != "id"]
    assert [field.name for field in dataclasses.fields(LogEntry)] == columns


@pytest.mark.postgres
def test_a_turn_reads_its_game_as_the_orm_loads_it(api):
    """`store.read_game`, a turn's Core read of its game, gives the `GameRecord` the ORM's
    `load_game` gives, every column alike, detached and unchanged; a missing game is a 404."""
    game_id, _ = api.started_game("ann", "bob")
    with api.app.app_context(), Session(get_engine(api.app)) as session:
        read = store.read_game(session, game_id)
        loaded = store.load_game(session, game_id)
        assert read is not loaded
        columns = [column.name for column in table_of(GameRecord).c]
        assert [getattr(read, c) for c in columns] == [getattr(loaded, c) for c in columns]
        found = inspect(read)
        assert found.detached and not found.modified and not found.expired_attributes
        with pytest.raises(NotFound):
            store.read_game(session, game_id + 1000)
