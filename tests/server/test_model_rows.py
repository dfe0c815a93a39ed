"""Objects made from rows (`server.models.from_row`), as the turn and the token's owner are
read: like the ORM's own, and usable in a process that has run no ORM query yet."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, SQLModel, create_engine

from server.models import Player, attached, from_row, table_of

_FIRST_USE = """
from server.models import Player, from_row, table_of
row = [None] * len(table_of(Player).columns)
row[0] = 7
player = from_row(Player, row)
print(player.id, player.name)
"""


@pytest.fixture
def engine() -> Iterator[Engine]:
    made = create_engine("sqlite://", poolclass=StaticPool)
    SQLModel.metadata.create_all(made)
    yield made
    made.dispose()


def test_an_object_is_made_from_a_row_before_any_orm_query_in_a_fresh_process() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_USE], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["7", "None"]


def _row(player_id: int, name: str) -> list[object]:
    values = {column.key: None for column in table_of(Player).columns}
    values.update(id=player_id, name=name)
    return list(values.values())


def test_an_attached_object_is_the_sessions_and_its_changes_are_flushed(engine: Engine) -> None:
    with Session(engine) as session:
        session.add(Player(name="ann", email="ann@example.org"))
        session.commit()
        stored = session.get(Player, 1)
        assert stored is not None
        row = [getattr(stored, column.key) for column in table_of(Player).columns]
    with Session(engine) as session:
        player = attached(session, from_row(Player, row))
        assert player in session
        assert not session.dirty  # nothing changed by attaching it
        player.timezone = "Europe/Prague"
        session.commit()
    with Session(engine) as session:
        again = session.get(Player, 1)
        assert again is not None and again.timezone == "Europe/Prague"


def test_attaching_a_row_the_session_holds_gives_the_held_object(engine: Engine) -> None:
    with Session(engine) as session:
        session.add(Player(name="bob", email="bob@example.org"))
        session.commit()
        held = session.get(Player, 1)
        assert attached(session, from_row(Player, _row(1, "bob"))) is held
