"""Writes cannot silently lose their atomicity (`server.db`): a write that would commit on
its own outside a transaction, or that runs beside the one statement of a
`single_statement_write`, is refused (`UnguardedWrite`) — on SQLite as on PostgreSQL, so a
change that breaks the turn's single-statement write fails its tests on either."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import insert, text
from sqlmodel import Session, select

from server.db import WHOLE_WRITE, UnguardedWrite, get_engine, write_transaction
from server.games import turns
from server.models import GameRecord, Player, TurnRecord, Vacation, VacationKind, utcnow

VACATIONS = Vacation.__table__  # type: ignore[attr-defined]


def _day_off(player_id: int) -> dict[str, object]:
    """The columns of an automatic day of vacation for `player_id`, starting now."""
    now = utcnow()
    return {
        "player_id": player_id,
        "kind": VacationKind.AUTOMATIC,
        "start": now,
        "end": now + timedelta(days=1),
        "days": 0,
        "created_at": now,
    }


@pytest.mark.postgres
def test_an_extra_write_in_a_turn_is_refused(api, monkeypatch, caplog):
    """One more `session.add` in `write_change` — the mistake that would make a turn
    non-atomic on PostgreSQL only — is refused on both databases, and not written."""
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = state["to_move"]
    turn = api.call("GET", f"/api/games/{game_id}/hints?n=1", tokens[mover]).json["hints"][0]
    with Session(get_engine(api.app)) as session:
        mover_id = session.exec(select(Player.id).where(Player.name == mover)).one()
    original = turns.write_change

    def also_a_day_off(session, **change):
        applied = original(session, **change)
        session.add(Vacation(**_day_off(mover_id)))  # flushed as the change commits
        return applied

    monkeypatch.setattr(turns, "write_change", also_a_day_off)
    response = api.call(
        "POST",
        f"/api/games/{game_id}/turns",
        tokens[mover],
        json={"turn": turn["turn"], "version": state["version"]},
    )
    assert response.status_code == 500
    assert any(r.exc_info and isinstance(r.exc_info[1], UnguardedWrite) for r in caplog.records), (
        caplog.text
    )
    with Session(get_engine(api.app)) as session:
        assert session.exec(select(Vacation)).all() == []
        if get_engine(api.app).dialect.name == "sqlite":  # the turn's transaction rolled back
            assert session.get(GameRecord, game_id).version == state["version"]
            assert session.exec(select(TurnRecord)).all() == []


@pytest.mark.postgres
def test_a_write_outside_a_transaction_is_refused_unless_it_is_the_whole_write(api):
    """On a connection that commits each statement on its own, only a statement marked as
    the whole write may write; in a transaction any write may."""
    api.register("ann")
    engine = get_engine(api.app)
    with Session(engine) as session:
        ann = session.exec(select(Player.id).where(Player.name == "ann")).one()
    alone = engine.execution_options(isolation_level="AUTOCOMMIT")
    with alone.connect() as connection:
        with pytest.raises(UnguardedWrite, match="outside a transaction"):
            connection.execute(insert(VACATIONS), _day_off(ann))
        with pytest.raises(UnguardedWrite):
            connection.execute(text("UPDATE players SET name = name WHERE id = :id"), {"id": ann})
        connection.execute(insert(VACATIONS), _day_off(ann), execution_options=WHOLE_WRITE)
    with Session(engine) as session, write_transaction(session):
        session.add(Vacation(**_day_off(ann)))
    with Session(engine) as session:
        assert len(session.exec(select(Vacation)).all()) == 2
