"""The Alembic migrations build exactly the schema the models describe."""

from __future__ import annotations

import uuid
from importlib import resources
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel

from server import migrate
from server.db import get_engine, make_engine
from server.models import Player
from server.names import skeleton


def head() -> str:
    """The newest revision of the shipped scripts (whichever branch added it)."""
    return ScriptDirectory.from_config(migrate.alembic_config("sqlite://")).get_current_head()


def differences(url: str) -> list:
    engine = make_engine(url)
    with engine.connect() as connection:
        found = compare_metadata(MigrationContext.configure(connection), SQLModel.metadata)
        version = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    engine.dispose()
    assert version == head()
    return found


def test_upgrade_on_sqlite_matches_the_models(tmp_path):
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    migrate.upgrade(url)
    migrate.upgrade(url)  # a second run has nothing to do
    assert differences(url) == []


def test_upgrade_on_postgresql_matches_the_models(request):
    url = request.getfixturevalue("postgres_url")  # migrated by the fixture; skips without PG
    assert differences(url) == []


def name_indexes(url: str) -> list[str]:
    """The indexes on lower(players.name) the database holds (reflection skips indexes on
    an expression, so `differences` cannot see them)."""
    engine = make_engine(url)
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            sql = "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%lower(name)%'"
        else:
            sql = "SELECT indexname FROM pg_indexes WHERE indexdef LIKE '%lower(%name)%'"
        found = list(connection.execute(text(sql)).scalars())
    engine.dispose()
    return found


def add_players(url: str, *names: str) -> None:
    """Players in SQL, as the schema of the database's revision has them (from 0017 on
    with their names' skeletons)."""
    engine = make_engine(url)
    with engine.begin() as connection:
        skeletons = "name_skeleton" in {
            c["name"] for c in inspect(connection).get_columns("players")
        }
        for name in names:
            connection.execute(
                text(
                    "INSERT INTO players (name, email, created_at, turn_emails, reminders, "
                    "timezone, vacation_hours, vacation_as_of, vacation_carry"
                    + (", name_skeleton" if skeletons else "")
                    + ") VALUES (:name, :email, CURRENT_TIMESTAMP, 'each', 1, 'UTC', 336, "
                    "CURRENT_TIMESTAMP, 0" + (", :skeleton" if skeletons else "") + ")"
                ),
                {
                    "name": name,
                    "email": f"{uuid.uuid4().hex}@example.com",
                    "skeleton": skeleton(name),
                },
            )
    engine.dispose()


def test_a_sqlite_database_built_by_the_migrations_refuses_names_differing_in_case(tmp_path):
    """0005 rebuilt the players table on SQLite without the index on lower(name); 0011
    restores it."""
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    migrate.upgrade(url, "0010")
    assert name_indexes(url) == []  # what 0005's rebuild left
    migrate.upgrade(url)
    assert name_indexes(url) == ["ix_players_name_lower"]
    add_players(url, "Ann")
    with pytest.raises(IntegrityError):
        add_players(url, "aNN")


def test_names_differing_only_in_case_stop_the_upgrade_naming_them(tmp_path):
    url = f"sqlite:///{tmp_path / 'clash.db'}"
    migrate.upgrade(url, "0010")
    add_players(url, "Ann", "ann", "bob", "Cid", "CID", "cid")
    with pytest.raises(migrate.MigrationRefused) as refused:
        migrate.upgrade(url)
    assert "names differ only in case: Ann, ann, CID, Cid, cid;" in str(refused.value)
    assert name_indexes(url) == []
    engine = make_engine(url)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar() == (
            "0010"
        )
    engine.dispose()


def test_upgrade_on_postgresql_keeps_the_name_index(request):
    url = request.getfixturevalue("postgres_url")  # migrated by the fixture; skips without PG
    assert name_indexes(url) == ["ix_players_name_lower"]


@pytest.mark.postgres
def test_the_database_refuses_a_name_that_differs_only_in_case(app, backend):
    with Session(get_engine(app)) as session:
        session.add(Player(name="Ann", email="ann@example.com"))
        session.commit()
        session.add(Player(name="aNN", email="other@example.com"))
        with pytest.raises(IntegrityError):
            session.commit()


def test_the_scripts_are_package_data_of_server(monkeypatch, tmp_path):
    """Alembic finds them through the installed `server` package (`server:migrations`), so a
    wheel migrates too, whatever the current directory."""
    monkeypatch.chdir(tmp_path)
    scripts = ScriptDirectory.from_config(migrate.alembic_config("sqlite://"))
    shipped = resources.files("server").joinpath("migrations")
    assert Path(scripts.dir) == Path(str(shipped))
    versions = [e for e in shipped.joinpath("versions").iterdir() if e.name.endswith(".py")]
    assert len(list(scripts.walk_revisions())) == len(versions) > 0


def before_0017() -> str:
    """The revision 0017 follows (the chain may grow before it)."""
    scripts = ScriptDirectory.from_config(migrate.alembic_config("sqlite://"))
    return str(scripts.get_revision("0017").down_revision)


def test_look_alike_names_stop_the_upgrade_naming_them(tmp_path):
    url = f"sqlite:///{tmp_path / 'alike.db'}"
    migrate.upgrade(url, before_0017())
    add_players(url, "Iris", "lris", "bob", "O0", "OO", "mary")
    with pytest.raises(migrate.MigrationRefused) as refused:
        migrate.upgrade(url)
    assert "names look alike (the same confusable skeleton): Iris, lris; O0, OO;" in str(
        refused.value
    )
    engine = make_engine(url)
    with engine.connect() as connection:
        version = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
        assert version == before_0017()
        columns = {c["name"] for c in inspect(connection).get_columns("players")}
    engine.dispose()
    assert "name_skeleton" not in columns  # nothing changed


@pytest.mark.postgres
def test_the_database_refuses_a_name_that_looks_like_another(app, backend):
    with Session(get_engine(app)) as session:
        session.add(Player(name="mary", email="mary@example.com"))
        session.commit()
        session.add(Player(name="rnary", email="other@example.com"))
        with pytest.raises(IntegrityError):
            session.commit()


def test_the_upgrade_unrates_private_games_and_recomputes_the_ratings(tmp_path):
    """Before 0017 a private game could be rated; its history would show it to anyone."""
    url = f"sqlite:///{tmp_path / 'rated.db'}"
    migrate.upgrade(url, before_0017())
    add_players(url, "ann", "bob", "cid")
    engine = make_engine(url)
    standings = '[{"player": "%s", "place": 1}, {"player": "%s", "place": 2}]'
    with engine.begin() as connection:
        ids = dict(connection.execute(text("SELECT name, id FROM players")).all())
        for game_id, private, first, second in ((1, 0, "ann", "bob"), (2, 1, "cid", "ann")):
            connection.execute(
                text(
                    "INSERT INTO games (id, creator_id, status, seats, options, invited, version, "
                    "turn_count, standings, created_at, finished_at, clock_serial, player_clocks, "
                    "reminded, private, auto_start, rated) VALUES (:id, :creator, 'finished', 2, "
                    "'{}', '[]', 9, 9, :standings, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 0, '{}', "
                    "'[]', :private, 0, 1)"
                ),
                {
                    "id": game_id,
                    "creator": ids[first],
                    "standings": standings % (first, second),
                    "private": private,
                },
            )
            for name in (first, second):
                connection.execute(
                    text(
                        "INSERT INTO rating_history (player_id, game_id, finished_at, mu, sigma) "
                        "VALUES (:pid, :game, CURRENT_TIMESTAMP, 20, 8)"
                    ),
                    {"pid": ids[name], "game": game_id},
                )
        for name, games in (("ann", 2), ("bob", 1), ("cid", 1)):
            connection.execute(
                text(
                    "INSERT INTO ratings (player_id, mu, sigma, games, updated_at) "
                    "VALUES (:pid, 20, 8, :games, CURRENT_TIMESTAMP)"
                ),
                {"pid": ids[name], "games": games},
            )
    migrate.upgrade(url)
    with engine.connect() as connection:
        history = connection.execute(text("SELECT game_id FROM rating_history")).scalars().all()
        rated = connection.execute(text("SELECT id, rated FROM games ORDER BY id")).all()
        games = dict(connection.execute(text("SELECT player_id, games FROM ratings")).all())
    engine.dispose()
    assert sorted(history) == [1, 1]
    assert [tuple(row) for row in rated] == [(1, 1), (2, 0)]
    assert games == {ids["ann"]: 1, ids["bob"]: 1}  # cid's only rated game was private


def before_0020() -> str:
    """The revision 0020 follows (the chain may grow before it)."""
    scripts = ScriptDirectory.from_config(migrate.alembic_config("sqlite://"))
    return str(scripts.get_revision("0020").down_revision)


def test_the_upgrade_keeps_the_rendered_mail_waiting_in_the_outbox(tmp_path):
    """0020 adds the notices' facts (`outbox.payload`): a message queued rendered before it
    stays as it was, with no facts, and the worker sends it as it is."""
    url = f"sqlite:///{tmp_path / 'outbox.db'}"
    migrate.upgrade(url, before_0020())
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO outbox (kind, to_addr, subject, body, message_id, status, attempts, "
                "available_at, created_at) VALUES ('league_paused', 'ann@example.com', 'Paused', "
                "'The clocks are stopped.', '<m1@cafe.test>', 'pending', 0, CURRENT_TIMESTAMP, "
                "CURRENT_TIMESTAMP)"
            )
        )
    migrate.upgrade(url)
    with engine.connect() as connection:
        columns = {c["name"] for c in inspect(connection).get_columns("outbox")}
        kept = connection.execute(text("SELECT body, payload FROM outbox")).one()
    engine.dispose()
    assert "payload" in columns
    assert tuple(kept) == ("The clocks are stopped.", None)


def test_the_upgrade_counts_a_language_other_than_english_as_chosen(tmp_path):
    """0023 adds `players.language_chosen`: a player stored before who reads Czech chose it
    (or registered in it), as `cafe` kept it; one who reads English never chose."""
    url = f"sqlite:///{tmp_path / 'languages.db'}"
    migrate.upgrade(url, "0022")
    add_players(url, "ann", "bob")
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE players SET language = 'cs' WHERE name = 'ann'"))
    migrate.upgrade(url)
    with engine.connect() as connection:
        found = connection.execute(
            text("SELECT name, language, language_chosen FROM players ORDER BY name")
        ).all()
    engine.dispose()
    assert [tuple(row) for row in found] == [("ann", "cs", True), ("bob", "en", False)]


def test_the_upgrade_keeps_the_channels_and_their_deliveries(tmp_path):
    """0026 lets a channel belong to a league (`channels.league_id`, `player_id` may be
    empty): on SQLite it copies `channels` and makes `channel_deliveries` again; a player's
    channel and its waiting delivery come through as they were, and down again."""
    url = f"sqlite:///{tmp_path / 'channels.db'}"
    migrate.upgrade(url, "0025")
    add_players(url, "ann")
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO channels (id, player_id, kind, url, events, state, created_at) "
                "VALUES (7, 1, 'slack', 'https://hooks.example.com/x', '[\"your_turn\"]', "
                "'active', CURRENT_TIMESTAMP)"
            )
        )
        connection.execute(
            text(
                "INSERT INTO channel_deliveries (channel_id, delivery_id, event, game_id, "
                "version, status, attempts, available_at, created_at) VALUES (7, 'msg_1', "
                "'your_turn', 3, 4, 'pending', 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            )
        )
    migrate.upgrade(url)
    with engine.begin() as connection:
        kept = connection.execute(text("SELECT id, player_id, league_id FROM channels")).all()
        waiting = connection.execute(
            text("SELECT channel_id, delivery_id, status FROM channel_deliveries")
        ).all()
        with pytest.raises(IntegrityError):  # the foreign keys hold after the copy
            connection.execute(
                text(
                    "INSERT INTO channels (league_id, kind, url, events, state, created_at) "
                    "VALUES (99, 'slack', 'https://x.example.com/', '[]', 'active', "
                    "CURRENT_TIMESTAMP)"
                )
            )
    assert [tuple(row) for row in kept] == [(7, 1, None)]
    assert [tuple(row) for row in waiting] == [(7, "msg_1", "pending")]
    command.downgrade(migrate.alembic_config(url), "0025")
    with engine.connect() as connection:
        columns = {c["name"] for c in inspect(connection).get_columns("channels")}
        back = connection.execute(text("SELECT channel_id FROM channel_deliveries")).all()
    engine.dispose()
    assert "league_id" not in columns and [tuple(row) for row in back] == [(7,)]
