"""A game's compare-and-set and the rows that depend on it, written as one statement on
PostgreSQL.

A turn, a resignation or a time-out writes the game row, guarded by the version the change
was computed against, and — only if that guard held — its log entry, its events and the
request's idempotency record. On PostgreSQL these are one statement: the UPDATE is a
data-modifying CTE whose RETURNING feeds an `INSERT … SELECT` per table, so the change
costs one round trip and one statement where it cost four (each of which cost the service
and the database server more than the work it did). SQLite has no data-modifying CTEs; it
runs them one by one, which costs little in-process.

Either way nothing is inserted when the guard fails. Its statements are marked as the
whole write (`server.db.WHOLE_WRITE`), so that a change made of nothing else may run in a
`single_statement_write`; a change that writes more runs it in a `write_transaction`, which
makes the whole change atomic with whatever else it writes.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Table, bindparam, insert, select, union_all
from sqlmodel import Session

from server.db import WHOLE_WRITE
from server.games.store import compare_and_set, compare_and_set_params
from server.models import GameRecord, table_of
from server.statements import Prepared

_GAMES = table_of(GameRecord)

#: What a combined statement is built from: the columns the compare-and-set writes, then
#: for each table its columns, how many rows it gets and the columns all its rows share.
Shape = tuple[tuple[str, ...], tuple[tuple[Table, tuple[str, ...], int, frozenset[str]], ...]]


class GuardedWrite:
    """The compare-and-set of `game` with `values`, and the rows to insert if it holds."""

    def __init__(self, game: GameRecord, values: Mapping[str, Any]) -> None:
        self.columns = tuple(values)
        self.params = compare_and_set_params(game, values)
        self.rows: list[tuple[Table, list[dict[str, Any]]]] = []

    def insert(self, table: Table, rows: Sequence[dict[str, Any]]) -> None:
        """Insert `rows` (each with the same columns) into `table` if the guard holds."""
        if rows:
            self.rows.append((table, list(rows)))

    def apply(self, session: Session) -> bool:
        """Write it all (in the session's transaction, if it is in one); False (nothing
        written) if the game moved on. The statements run on the session's connection by
        their SQL text, each compiled once (`server.statements`): the ORM's handling of
        each (which looks for entities in them), then Core's, cost more than running it."""
        if session.get_bind().dialect.name == "postgresql":
            return self._apply_combined(session)
        return self._apply_one_by_one(session)

    def _apply_one_by_one(self, session: Session) -> bool:
        """The compare-and-set, then each table's insert if it held (SQLite's way)."""
        connection = session.connection()
        guard = _prepared_compare_and_set(self.columns).execute(
            connection, self.params, execution_options=WHOLE_WRITE
        )
        if guard.rowcount != 1:
            return False
        for table, rows in self.rows:
            _plain_insert(table, tuple(rows[0])).execute(
                connection, rows[0] if len(rows) == 1 else rows, execution_options=WHOLE_WRITE
            )
        return True

    def _apply_combined(self, session: Session) -> bool:
        """The one statement. A value every row of a table shares is bound once: psycopg
        keeps the parsed form of a query only up to 50 parameters, and a turn's events
        repeat most of theirs."""
        params = dict(self.params)
        tables = []
        for number, (table, rows) in enumerate(self.rows):
            names = tuple(rows[0])
            shared = frozenset(
                name
                for name in names
                if len(rows) > 1 and all(r[name] == rows[0][name] for r in rows)
            )
            tables.append((table, names, len(rows), shared))
            params.update({_name(number, None, name): rows[0][name] for name in shared})
            for index, row in enumerate(rows):
                params.update(
                    {_name(number, index, n): v for n, v in row.items() if n not in shared}
                )
        combined = _combined((self.columns, tuple(tables)))
        found = combined.execute(session.connection(), params, execution_options=WHOLE_WRITE)
        return found.first() is not None


def _name(table_number: int, row: int | None, column: str) -> str:
    """The parameter of a column of one row, or (`row` None) of a value all rows share."""
    return f"t{table_number}_{column}" if row is None else f"t{table_number}_{row}_{column}"


@functools.lru_cache(maxsize=64)
def _prepared_compare_and_set(columns: tuple[str, ...]) -> Prepared:
    """`compare_and_set(columns)`, compiled once per set of columns."""
    return Prepared(compare_and_set(columns))


@functools.lru_cache(maxsize=64)
def _plain_insert(table: Table, columns: tuple[str, ...]) -> Prepared:
    """`INSERT INTO table (columns)`, compiled once per table and columns."""
    return Prepared(insert(table), columns)


@functools.lru_cache(maxsize=128)
def _combined(shape: Shape) -> Prepared:
    """`WITH moved AS (UPDATE games … RETURNING id), t0 AS (INSERT … SELECT … FROM moved), …
    SELECT id FROM moved`, built once per shape: a row if the guard held."""
    columns, tables = shape
    moved = compare_and_set(columns).returning(_GAMES.c.id).cte("moved")
    inserts = []
    for number, (table, names, count, shared) in enumerate(tables):
        rows = [
            select(
                *(
                    bindparam(
                        _name(number, None if n in shared else index, n), type_=table.c[n].type
                    )
                    for n in names
                )
            ).select_from(moved)
            for index in range(count)
        ]
        source = rows[0] if count == 1 else union_all(*rows)
        inserts.append(insert(table).from_select(names, source).cte(f"t{number}"))
    return Prepared(select(moved.c.id).add_cte(*inserts))
