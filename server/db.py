"""The database engine, the per-request session (the flaskr `get_db` pattern), and the two
ways to write.

Every write is a transaction (`write_transaction`): committed at the end of its block,
rolled back if the block raises. The one exception is the explicit opt-in
`single_statement_write`, for a change whose one statement (marked `WHOLE_WRITE`, as
`server.games.guarded` does) is atomic on its own: on PostgreSQL, from a view that reads
outside transactions, it then runs without BEGIN and COMMIT. A guard on every engine made
here (`UnguardedWrite`) refuses, in tests and in production alike, an INSERT, UPDATE or
DELETE that would commit on its own outside that opt-in, and any other write inside it: a
change that grows a second statement fails loudly on SQLite too, instead of silently losing
its atomicity on PostgreSQL only (docs/speed.md).

SQLite connections get WAL mode (readers never block the writer), a busy timeout (writers
queue instead of failing at once) and foreign keys; PostgreSQL is used as configured. Behind
PgBouncer in transaction mode (`CAFE_DATABASE_PGBOUNCER`), where consecutive transactions of
one connection may run on different server connections, nothing is kept on a server
connection between transactions: psycopg prepares no statements, and no setting is passed
when a connection starts (PgBouncer refuses startup options it does not track).

SQLite has one writer at a time, and a writer that finds the lock taken polls for it with
growing sleeps (1 ms up to 100 ms): under a few concurrent turns, that sleeping, not the work,
made the slowest requests. So the web's writers take turns through locks that wake the next
one at once (`_writing`): a thread lock among the threads of one process, and an `flock` on
`<database>-writer.lock` among the processes (gunicorn's workers). Other writers (the mail
worker, commands) still meet SQLite's busy handler.
"""

from __future__ import annotations

import fcntl
import functools
import logging
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext, suppress
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar
from weakref import WeakKeyDictionary

from flask import Flask, current_app, g
from sqlalchemy import Engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, create_engine

from server.config import Settings, settings_of

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


class _WriterLock:
    """The writer lock of one SQLite database file: a thread lock, then an `flock` on a file
    beside the database, opened once per process (a forked child opens its own)."""

    def __init__(self, path: str | None) -> None:
        self.path = None if path is None else f"{path}-writer.lock"
        self.thread_lock = threading.Lock()
        self._file: tuple[int, int] | None = None  # (pid, descriptor)

    def _descriptor(self) -> int:
        assert self.path is not None
        if self._file is None or self._file[0] != os.getpid():
            self._file = (os.getpid(), os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        return self._file[1]

    @contextmanager
    def held(self) -> Iterator[None]:
        with self.thread_lock:
            if self.path is None:
                yield
                return
            descriptor = self._descriptor()
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(descriptor, fcntl.LOCK_UN)


#: The writer lock of each SQLite engine (`_writing`).
_WRITER_LOCKS: WeakKeyDictionary[Engine, _WriterLock] = WeakKeyDictionary()

#: The execution option that marks a statement as the whole write of a
#: `single_statement_write` (`session.execute(..., execution_options=WHOLE_WRITE)`).
WHOLE_WRITE = {"cafe_whole_write": True}
#: Whether the current thread is inside a `single_statement_write`.
_IN_SINGLE_STATEMENT_WRITE: ContextVar[bool] = ContextVar(
    "in_single_statement_write", default=False
)
#: A statement that writes: INSERT, UPDATE, DELETE (REPLACE, MERGE), also as a CTE of a WITH.
_WRITES = re.compile(
    r"\s*(?:INSERT|UPDATE|DELETE|REPLACE|MERGE)\b"
    r"|\s*WITH\b.*?\bAS\s*\(\s*(?:INSERT|UPDATE|DELETE|MERGE)\b",
    re.IGNORECASE | re.DOTALL,
)


class UnguardedWrite(RuntimeError):
    """A write that would not be atomic with the rest of its change: outside any transaction
    and not the marked statement of a `single_statement_write`, or beside that statement."""


def _alone(dbapi_connection: Any) -> bool:
    """Whether a statement on this DBAPI connection commits on its own: autocommit, and no
    transaction begun. (sqlite3 in its default mode and psycopg without autocommit begin
    one before the first write themselves.)"""
    if isinstance(dbapi_connection, sqlite3.Connection):
        return dbapi_connection.isolation_level is None and not dbapi_connection.in_transaction
    if not getattr(dbapi_connection, "autocommit", False):
        return False
    return dbapi_connection.info.transaction_status.name == "IDLE"  # psycopg


def _guard_writes(
    _conn: Any, cursor: Any, statement: str, _params: Any, context: Any, _many: bool
) -> None:
    """Refuse (`UnguardedWrite`) a write outside a transaction, or inside a
    `single_statement_write`, unless it is the statement marked `WHOLE_WRITE`."""
    if context is not None and context.execution_options.get("cafe_whole_write"):
        return
    if not _IN_SINGLE_STATEMENT_WRITE.get() and not _alone(cursor.connection):
        return
    if _WRITES.match(statement):
        where = (
            "beside the whole write of a single_statement_write"
            if _IN_SINGLE_STATEMENT_WRITE.get()
            else "outside a transaction"
        )
        raise UnguardedWrite(
            f"{where}: {' '.join(statement.split())[:120]} — write in a write_transaction"
        )


def engine_of(config: Settings, *, durable: bool = True) -> Engine:
    """The engine `config` asks for (`make_engine`): its database, SQLite's busy timeout, and
    whether PgBouncer stands in front."""
    return make_engine(
        config.database_url,
        busy_timeout_ms=config.sqlite_busy_timeout,
        durable=durable,
        pgbouncer=config.database_pgbouncer,
    )


def make_engine(
    url: str, *, busy_timeout_ms: int = 30_000, durable: bool = True, pgbouncer: bool = False
) -> Engine:
    """An engine for `url`, tuned for SQLite when it is one.

    `hide_parameters` keeps bound values out of database error messages: a snapshot holds
    the bag's order, and an error message may end up in a log. `durable=False` (the mail
    worker's bookkeeping) lets a commit return before it reaches the disk: it survives a
    crash of the process, and only a power loss can undo the last few — for the worker,
    at worst a message is sent again, with its same Message-ID. Behind PgBouncer
    (`pgbouncer`) that is a startup option it refuses, so there every commit is durable
    (a role of the workers' own with `synchronous_commit = off` gives it back), and psycopg
    prepares no statements: a prepared statement lives on one server connection, and the
    next transaction may run on another.
    """
    if not url.startswith("sqlite"):
        options: dict[str, Any] = {}
        if pgbouncer:
            options["prepare_threshold"] = None
        elif not durable:
            options["options"] = "-c synchronous_commit=off"
        return _guarded(
            create_engine(url, pool_pre_ping=True, hide_parameters=True, connect_args=options)
        )
    in_memory = url in ("sqlite://", "sqlite:///:memory:")
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
        # one shared connection, or every connection would see its own empty database
        poolclass=StaticPool if in_memory else None,
        hide_parameters=True,
    )

    @event.listens_for(engine, "connect")
    def _tune_sqlite(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        if not in_memory:
            cursor.execute("PRAGMA journal_mode=WAL")  # synchronous stays FULL: a 201 is durable
            if not durable:
                cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        # what is deleted or overwritten (a cleared sign-in code) is zeroed in the file, not
        # left in a free page for a copy of the file to show
        cursor.execute("PRAGMA secure_delete=ON")
        cursor.close()

    _WRITER_LOCKS[engine] = _WriterLock(None if in_memory else engine.url.database)
    return _guarded(engine)


def _guarded(engine: Engine) -> Engine:
    """`engine`, with the guard against writes that are not atomic (`_guard_writes`)."""
    event.listen(engine, "before_cursor_execute", _guard_writes)
    return engine


@contextmanager
def _writing(session: Session) -> Iterator[None]:
    """Hold the web's writer lock of a SQLite database for the block: a short write
    transaction, begun and ended inside it. Nothing to do on PostgreSQL (row locks)."""
    bind = session.get_bind()  # an engine: the service's sessions are bound to engines
    lock = _WRITER_LOCKS.get(bind) if isinstance(bind, Engine) else None
    with lock.held() if lock is not None else nullcontext():
        yield


@contextmanager
def write_transaction(session: Session) -> Iterator[Session]:
    """The way to write: the block is one transaction, committed at its end and rolled back
    if it raises, under the SQLite writer lock. It yields the session to write with:
    `session` itself, or — when `session` reads outside transactions (`reads_only`) — a
    session of its own on the app's engine, closed afterwards. A block that decides to keep
    nothing may roll back itself; the final commit then has nothing to do."""
    with _writing(session), _transactional(session) as writer:
        try:
            yield writer
            writer.commit()
        except BaseException:
            writer.rollback()
            raise


@contextmanager
def single_statement_write(session: Session) -> Iterator[Session]:
    """The explicit opt-in to a write that needs no transaction of its own: in the block,
    only statements marked `WHOLE_WRITE` may write — one statement that is the whole change
    (on SQLite, which lacks the data-modifying CTE, its parts run one by one in the
    session's transaction). Any other write in the block is refused (`UnguardedWrite`) on
    every database. Committed at the end and rolled back on error, as `write_transaction`;
    from a view that reads outside transactions on PostgreSQL (`reads_then_one_write`),
    the statement commits on its own and the commit has nothing to do."""
    inside = _IN_SINGLE_STATEMENT_WRITE.set(True)
    try:
        with _writing(session):
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise
    finally:
        _IN_SINGLE_STATEMENT_WRITE.reset(inside)


@contextmanager
def snapshot(engine: Engine) -> Iterator[Session]:
    """A session whose reads all see one snapshot of the database, for a check that compares
    rows with each other while the service writes (`games check`: a game and its log): on
    PostgreSQL a `REPEATABLE READ READ ONLY` transaction, on SQLite one read transaction
    (WAL mode: its first read fixes what it sees). Rolled back at the end: it writes nothing."""
    with engine.connect() as connection:
        if connection.dialect.name == "postgresql":
            # set before its transaction begins (on the connection itself, which it returns)
            connection.execution_options(
                isolation_level="REPEATABLE READ", postgresql_readonly=True
            )
        else:
            connection.exec_driver_sql("BEGIN")  # sqlite3 begins none before a read itself
        with Session(connection, expire_on_commit=False) as session:
            yield session
        connection.rollback()


@contextmanager
def _transactional(session: Session) -> Iterator[Session]:
    """`session`, unless it runs every statement on its own (autocommit): then a session of
    its own on the app's engine for the block."""
    bind = session.get_bind()
    if bind.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
        yield session
        return
    with Session(get_engine(), expire_on_commit=False) as own:
        yield own


def init_app(app: Flask) -> None:
    """Create the app's engine and close each request's session when the request ends."""
    engine = engine_of(settings_of(app))
    app.extensions["cafe_engine"] = engine
    app.extensions["cafe_reader"] = (
        engine.execution_options(isolation_level="AUTOCOMMIT")
        if engine.dialect.name == "postgresql"
        else engine  # SQLite's reads begin no transaction anyway
    )
    app.teardown_appcontext(close_session)


def get_engine(app: Flask | None = None) -> Engine:
    """The engine of `app` (default: the current app)."""
    return (app or current_app).extensions["cafe_engine"]


def get_session() -> Session:
    """The session of the current request, opened on first use (outside any transaction in
    a view marked `reads_only`)."""
    if "db_session" not in g:
        bind = current_app.extensions["cafe_reader" if g.get("reads_only") else "cafe_engine"]
        g.db_session = Session(bind, expire_on_commit=False)
    return g.db_session


def reads_only(view: Callable[P, R]) -> Callable[P, R]:
    """Mark a view that only reads, each query a fact on its own (outermost decorator, so
    that it holds for the sign-in check too): its session runs every statement in
    autocommit. On PostgreSQL that spares the BEGIN and ROLLBACK round trips around its
    queries, which cost the server as much CPU as the queries; each statement sees the
    committed data, as in a READ COMMITTED transaction."""

    @functools.wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        g.reads_only = True
        return view(*args, **kwargs)

    return wrapped


def reads_then_one_write(view: Callable[P, R]) -> Callable[P, R]:
    """Mark a view whose reads each stand on their own (as in `reads_only`) and whose write
    is one statement, atomic on its own (`single_statement_write`), unless it opens a
    transaction for more (`write_transaction`): on PostgreSQL that spares the BEGIN and
    COMMIT round trips."""
    return reads_only(view)


def insert_for(session: Session) -> Callable[..., Any]:
    """The `insert` of the session's database, which can say `ON CONFLICT`."""
    dialect = session.get_bind().dialect.name
    return postgresql.insert if dialect == "postgresql" else sqlite.insert


def close_session(_exc: BaseException | None = None) -> None:
    """Close the request's session, rolling back anything left uncommitted.

    The request has been answered by now (its JSON, or the 503 of a connection lost while
    it ran): a connection that broke meanwhile fails the ROLLBACK, and is discarded
    quietly rather than turning that answer into the server's bare 500."""
    session = g.pop("db_session", None)
    if session is None:
        return
    try:
        session.close()
    except DBAPIError as error:
        log.warning("a database connection broke as the request ended: %s", error.orig)
        with suppress(DBAPIError):
            session.invalidate()
