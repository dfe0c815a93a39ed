"""Hot Core writes, compiled once per dialect and run by their SQL text.

SQLAlchemy's execution of a Core statement computes its cache key and then puts every
parameter through the compiled statement's bookkeeping before the driver sees it; for the
statements every turn runs, that cost the service more than the database's running of them
(docs/speed.md). A `Prepared` statement is compiled once per dialect: each execution only
converts its parameters with the same column types' bind processors SQLAlchemy would use,
in the order the SQL binds them, and hands the text to `Connection.exec_driver_sql`. That
keeps what matters of SQLAlchemy's execution: its events (the write guard of `server.db`
sees the statement), its errors (a unique key's violation is still an `IntegrityError`)
and its handling of a lost connection (the pool throws it away).

What it does not do is refused when the statement is compiled, so a statement that needs
it fails at once rather than writing something else: defaults SQLAlchemy computes in
Python for columns the parameters leave out (a row must give every column it writes), and
parameters rendered into the SQL at execution (`IN` with a list). Results are the driver's
values, unconverted: it suits writes, whose result is a rowcount or a new key. (Queries
gain nothing: a result of SQL text builds its description anew for every execution, which
cost more than the compiled statement's execution saved.)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, CursorResult
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement

#: A bind processor of a column type: the Python value to the driver's.
Processor = Callable[[Any], Any]
#: One row of parameters as the driver binds it: by position, or by name.
DriverRow = tuple[Any, ...] | dict[str, Any]

_MISSING = object()


@dataclass(frozen=True, slots=True)
class _Compiled:
    """One statement as one dialect's driver runs it."""

    sql: str
    #: (our parameter's name, the name the SQL binds it by, a value for it when the
    #: parameters leave it out, its type's bind processor), in the SQL's order.
    binds: tuple[tuple[str, str, Any, Processor | None], ...]
    positional: bool

    def bind(self, params: Mapping[str, Any]) -> DriverRow:
        """One row of parameters, converted, as the driver binds them."""
        values = []
        for name, _, default, process in self.binds:
            value = params.get(name, default)
            if value is _MISSING:
                raise KeyError(f"no value for the statement's parameter {name!r}")
            values.append(value if process is None else process(value))
        if self.positional:
            return tuple(values)
        return {
            sql_name: value for (_, sql_name, _, _), value in zip(self.binds, values, strict=True)
        }


class Prepared:
    """`statement`, compiled once per dialect for parameters named `keys` (for an INSERT:
    the columns its rows give; None: the statement's own bind parameters)."""

    def __init__(self, statement: ClauseElement, keys: Sequence[str] | None = None) -> None:
        self.statement = statement
        self.keys = None if keys is None else list(keys)
        self._lock = threading.Lock()
        self._by_dialect: dict[str, _Compiled] = {}

    def execute(
        self,
        connection: Connection,
        params: Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        execution_options: Mapping[str, Any] | None = None,
    ) -> CursorResult[Any]:
        """Run it on `connection` with one row of parameters, or many (`executemany`)."""
        compiled = self._compiled(connection.dialect)
        bound: DriverRow | list[DriverRow]
        if isinstance(params, Mapping):
            bound = compiled.bind(params)
        else:
            bound = [compiled.bind(row) for row in params]
        return connection.exec_driver_sql(compiled.sql, bound, execution_options=execution_options)

    def _compiled(self, dialect: Dialect) -> _Compiled:
        key = f"{dialect.name}+{dialect.driver}"
        found = self._by_dialect.get(key)
        if found is None:
            with self._lock:  # compiled once, even by threads that ask at the same moment
                found = self._by_dialect.get(key)
                if found is None:
                    found = compile_for(self.statement, dialect, self.keys)
                    self._by_dialect[key] = found
        return found


def compile_for(
    statement: ClauseElement, dialect: Dialect, keys: Sequence[str] | None
) -> _Compiled:
    """`statement` as `dialect`'s driver runs it; ValueError for what `Prepared` does not do."""
    # for_executemany: no RETURNING of an INSERT's new key (on PostgreSQL), which nothing
    # here reads, whether one row or many
    compiled: Any = statement.compile(dialect=dialect, column_keys=keys, for_executemany=True)
    text = str(statement)[:80].replace("\n", " ")
    if compiled.insert_prefetch or compiled.update_prefetch:
        left_out = [column.key for column in (*compiled.insert_prefetch, *compiled.update_prefetch)]
        raise ValueError(f"{text}: give the columns whose defaults Python computes: {left_out}")
    if compiled.literal_execute_params or compiled.post_compile_params:
        raise ValueError(f"{text}: a parameter is rendered at execution (an IN with a list?)")
    escaped = compiled.escaped_bind_names or {}
    if compiled.positional:
        names = list(compiled.positiontup)
    else:
        names = [compiled.bind_names[bind] for bind in compiled.binds.values()]
        names = list(dict.fromkeys(names))
    binds = []
    for name in names:
        bind = compiled.binds[name]
        default = _MISSING if bind.required else bind.effective_value
        impl = bind.type.dialect_impl(dialect)
        binds.append((bind.key, escaped.get(name, name), default, impl.bind_processor(dialect)))
    return _Compiled(compiled.string, tuple(binds), bool(compiled.positional))
