"""What a database error means (`server.transactions`): an abort in favour of a rival is
run again, an outage and any other error are not; a real deadlock on PostgreSQL resolves
itself through `retried`."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError, OperationalError, PendingRollbackError

from server import transactions
from server.transactions import aborted, outage, retried


class Original(Exception):
    """A driver error with psycopg's `sqlstate`."""

    def __init__(self, sqlstate: str) -> None:
        super().__init__(f"sqlstate {sqlstate}")
        self.sqlstate = sqlstate


def failing(error: Exception, times: int):
    """A function that raises `error` `times` times, then answers; and its call count."""
    calls = []

    @retried
    def work() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise error
        return "done"

    return work, calls


@pytest.mark.parametrize("sqlstate", ["40P01", "40001"])
def test_an_abort_for_a_rival_is_run_again(sqlstate):
    error = OperationalError("UPDATE …", {}, Original(sqlstate))
    assert aborted(error) and not outage(error)
    work, calls = failing(error, 2)
    assert work() == "done" and len(calls) == 3


def test_aborts_without_end_are_passed_on_after_the_last_run():
    work, calls = failing(OperationalError("UPDATE …", {}, Original("40P01")), 100)
    with pytest.raises(OperationalError):
        work()
    assert len(calls) == transactions.TRIES


@pytest.mark.parametrize(
    ("error", "is_outage"),
    [
        (OperationalError("SELECT 1", {}, Original("08006")), True),  # connection failure
        (PendingRollbackError("the connection broke earlier"), True),
        (IntegrityError("INSERT …", {}, Original("23505")), False),  # a fault of the work
    ],
)
def test_other_errors_are_not_run_again(error, is_outage):
    assert outage(error) is is_outage and not aborted(error)
    work, calls = failing(error, 1)
    with pytest.raises(type(error)):
        work()
    assert len(calls) == 1


def test_a_real_deadlock_resolves_itself(postgres_url):
    engine = create_engine(postgres_url)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE IF NOT EXISTS deadlock_pair (id int PRIMARY KEY)"))
        connection.execute(text("DELETE FROM deadlock_pair"))
        connection.execute(text("INSERT INTO deadlock_pair VALUES (1), (2)"))
    both_hold_one = threading.Barrier(2, timeout=10)
    runs: list[str] = []
    done: list[str] = []

    def lock_in_order(first: int, second: int) -> None:
        @retried
        def transaction() -> None:
            runs.append(f"{first}{second}")
            with engine.begin() as connection:
                lock = text("SELECT id FROM deadlock_pair WHERE id = :id FOR UPDATE")
                connection.execute(lock, {"id": first})
                if len(runs) <= 2:  # the first runs of both meet: a deadlock
                    both_hold_one.wait()
                connection.execute(lock, {"id": second})

        transaction()
        done.append(f"{first}{second}")

    threads = [threading.Thread(target=lock_in_order, args=pair) for pair in ((1, 2), (2, 1))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    with engine.begin() as connection:
        connection.execute(text("DROP TABLE deadlock_pair"))
    engine.dispose()
    assert sorted(done) == ["12", "21"]  # both went through…
    assert len(runs) > 2  # …though PostgreSQL aborted one of them (at least) once
