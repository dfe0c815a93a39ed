"""What a database error means for the work that met it, and running again a transaction
the database aborted in favour of a rival.

Three kinds of database error matter to the worker and the sweep:

- **aborted**: the database gave up this transaction so that another could go on — a
  deadlock (PostgreSQL's SQLSTATE 40P01) or a serialization failure (40001; SQLite's
  `SQLITE_BUSY_SNAPSHOT`, a rival wrote since this transaction began to read). Nothing of
  it was kept, and the documented remedy is to run it again: `retried` does, a few times
  with short random waits, so that the rivals do not meet again in step;
- **outage**: the database cannot be reached, or the connection broke under the work
  (`OperationalError`, `InterfaceError`, a connection the driver invalidated, or a session
  left with a transaction on such a connection). The work is not at fault: whoever does it
  waits and tries again later, and no message loses a delivery attempt over it;
- anything else is a fault of the work itself (a bug, bad data).
"""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError, PendingRollbackError

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

#: SQLSTATEs of a transaction aborted for a rival: deadlock detected, serialization failure.
ABORTED_SQLSTATES = frozenset({"40P01", "40001"})
#: SQLite's extended result code for a read snapshot a rival's write made stale.
SQLITE_BUSY_SNAPSHOT = 517
#: Runs of a transaction before an abort is passed on.
TRIES = 6
#: The longest first wait between two runs, in seconds (doubled for each further one).
FIRST_WAIT = 0.005


def aborted(error: BaseException) -> bool:
    """Whether `error` is the database aborting the transaction in favour of a rival."""
    if not isinstance(error, DBAPIError):
        return False
    original = error.orig
    if getattr(original, "sqlstate", None) in ABORTED_SQLSTATES:  # psycopg
        return True
    return getattr(original, "sqlite_errorcode", None) == SQLITE_BUSY_SNAPSHOT


def outage(error: BaseException) -> bool:
    """Whether `error` means the database cannot be reached or the connection broke (not
    an abort, which is run again, nor a fault of the work)."""
    if aborted(error):
        return False
    if isinstance(error, PendingRollbackError):  # the session's connection broke earlier
        return True
    if isinstance(error, DBAPIError) and error.connection_invalidated:
        return True
    return isinstance(error, OperationalError | InterfaceError)


def retried(work: Callable[P, R]) -> Callable[P, R]:
    """Decorate a function that is one whole transaction (it begins it and commits it, and
    keeps nothing from a failed run): run it again when the database aborted it, up to
    `TRIES` runs in all; then the abort is raised."""

    @functools.wraps(work)
    def again(*args: P.args, **kwargs: P.kwargs) -> R:
        for run in range(1, TRIES):
            try:
                return work(*args, **kwargs)
            except DBAPIError as error:
                if not aborted(error):
                    raise
                log.info("%s: aborted for a rival (%s); run %d", work.__name__, error.orig, run)
                time.sleep(random.uniform(0, FIRST_WAIT * 2 ** (run - 1)))
        return work(*args, **kwargs)  # the last run: an abort now is passed on

    return again
