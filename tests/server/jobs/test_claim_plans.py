"""The claims read the rows still to be sent, never the sent ones (issue 25): on
PostgreSQL's own plans (EXPLAIN ANALYZE), an outbox and a channel's deliveries that are
nearly all settled, as a league's are, cost the claims only their unsettled rows.

main's claim read every earlier message to a claimed message's address (sent ones too, for
whether one held it back) and under load walked the whole outbox in id order: 420,800 rows
for 200 claimed at 10,000 games (`benchmarks/outbox.py`, docs/scaling.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, insert, text
from sqlmodel import SQLModel

from server.clock import timesource
from server.db import make_engine
from server.jobs import deliveries, outbox
from server.models import Player, table_of, utcnow

SETTLED, ADDRESSES, DUE = 3000, 5, 8


@pytest.fixture
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """The session's PostgreSQL database (skipped without one), emptied before and after."""
    made = make_engine(request.getfixturevalue("postgres_url"))
    empty(made)
    yield made
    empty(made)
    made.dispose()


def empty(engine: Engine) -> None:
    with engine.begin() as connection:
        for table in reversed(SQLModel.metadata.sorted_tables):
            connection.execute(table.delete())


def seed(connection: Connection) -> None:
    """SETTLED sent messages to ADDRESSES addresses, then DUE due ones to the same; a player
    with a channel, SETTLED sent deliveries and DUE due ones: the sent ones sent after the
    tables' statistics were taken, as under load."""
    connection.execute(
        text(
            "INSERT INTO outbox (kind, to_addr, message_id, status, attempts, available_at,"
            " created_at) SELECT 'test', 'p' || n % :addresses || '@example.com',"
            " '<' || n || '@t>', 'pending', 0,"
            " now() - interval '1 minute', now() FROM generate_series(1, :all) AS n"
        ),
        {"addresses": ADDRESSES, "settled": SETTLED, "all": SETTLED + DUE},
    )
    ann = Player(name="ann", email="ann@example.com").model_dump(exclude={"id"})
    player = connection.execute(
        insert(table_of(Player)).values(**ann).returning(table_of(Player).c.id)
    ).scalar_one()
    channel = connection.execute(
        text(
            "INSERT INTO channels (player_id, kind, url, events, state, created_at) VALUES"
            " (:player, 'webhook', 'https://hooks.test/', '[\"your_turn\"]', 'active', now())"
            " RETURNING id"
        ),
        {"player": player},
    ).scalar_one()
    connection.execute(
        text(
            "INSERT INTO channel_deliveries (channel_id, delivery_id, event, status, attempts,"
            " available_at, created_at) SELECT :channel, 'msg_' || n, 'your_turn',"
            " 'pending', 0,"
            " now() - interval '1 minute', now() FROM generate_series(1, :all) AS n"
        ),
        {"channel": channel, "settled": SETTLED, "all": SETTLED + DUE},
    )
    for table in ("outbox", "channel_deliveries"):
        # the statistics of a moment when all of it was still to be sent, then the sending:
        # a claim under load meets this before autovacuum catches up
        connection.execute(text(f"ANALYZE {table}"))
        connection.execute(
            text(
                f"UPDATE {table} SET status = 'sent' WHERE id <= (SELECT min(id) FROM {table})"
                " + :settled - 1"
            ),
            {"settled": SETTLED},
        )


def rows_read(connection: Connection, statement: Any, table: str) -> tuple[int, int]:
    """The rows a claim's choice of rows (its `SELECT … FOR UPDATE`, below the plan's
    LockRows) read from `table`, kept or filtered out, and the rows the claim changed, by
    EXPLAIN ANALYZE (inside the caller's transaction). The UPDATE's own look-up of the
    chosen ids is left out: on a table this small the planner may read it whole, which at
    a league's size it does not."""
    compiled = statement.compile(
        dialect=connection.dialect, compile_kwargs={"render_postcompile": True}
    )
    found = connection.exec_driver_sql(
        "EXPLAIN (ANALYZE, FORMAT JSON) " + str(compiled), compiled.params
    ).scalar_one()
    plan = (found if isinstance(found, list) else json.loads(found))[0]["Plan"]
    read = 0

    def walk(node: dict[str, Any], choosing: bool) -> None:
        nonlocal read
        choosing = choosing or node["Node Type"] == "LockRows"
        if choosing and "Scan" in node["Node Type"] and node.get("Relation Name") == table:
            kept = node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)
            read += kept * node.get("Actual Loops", 1)
        for child in node.get("Plans", []):
            walk(child, choosing)

    walk(plan, False)
    return read, plan["Plans"][0]["Actual Rows"] if plan.get("Plans") else plan["Actual Rows"]


def test_the_outbox_claim_reads_the_unsettled_messages_only(engine):
    with engine.connect() as connection:
        seed(connection)
        connection.commit()
        now, lease_now = utcnow(), timesource.system_now()
        *_, claim = outbox.claim_statements(
            "postgresql", now, lease_now, 100, claimer="t", lease_seconds=300
        )
        read, claimed = rows_read(connection, claim, "outbox")
        connection.rollback()
    assert claimed == DUE
    # each due message and its earlier unsettled ones (for the order); main's claim read
    # the sent ones too: 3,008 rows here
    assert read <= DUE * (DUE + 1), read


def test_the_deliveries_claim_reads_the_unsettled_deliveries_only(engine):
    with engine.connect() as connection:
        seed(connection)
        connection.commit()
        now, lease_now = utcnow(), timesource.system_now()
        statement = deliveries.claim_statement(now, lease_now, 64, claimer="t", lease=60)
        read, claimed = rows_read(connection, statement, "channel_deliveries")
        connection.rollback()
    assert claimed == DUE
    assert read <= DUE, read  # without the partial index: 3,008 rows here
