"""How a game ended and how its players left, in every view: the API (`ending`, each
standing's and log entry's `left`), the game's page (final standings with penalties, why it
ended, the history with time-out turns and departures marked), the emails (history lines,
game over), and the migration that fills both in for games finished before they were kept."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from server_support import TEST_CONFIG, Api
from sqlalchemy import text
from sqlmodel import Session, select

from server import migrate
from server.app import create_app
from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine, make_engine
from server.jobs.sweep import sweep
from server.models import GameRecord

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)
NO_VACATION = {"days_per_turn": 3, "vacation": False}


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with use(FakeClock(T0)) as fake:
        yield fake  # type: ignore[misc]


def state(api, game_id, token):
    return api.call("GET", f"/api/games/{game_id}", token).json


def timed_out_then_removed(api, clock):
    """A three-player game in which the first mover times out once (a turn played for
    them) and is removed at the next time-out; the game, everyone's token and the late one."""
    game_id, tokens = api.started_game(
        "ann", "bob", "cid", clock={**NO_VACATION, "max_timeouts": 1}
    )
    late = state(api, game_id, tokens["ann"])["to_move"]
    clock.advance(3 * DAY)
    assert sweep(get_engine(api.app), settings_of(api.app)).timeouts == {"timed_out": 1}
    api.send_events()  # each email is rendered as the game is when it is sent
    for _ in range(2):
        api.play_best(game_id, tokens)
        api.send_events()
    clock.advance(3 * DAY)
    assert sweep(get_engine(api.app), settings_of(api.app)).timeouts == {"removed": 1}
    api.send_events()
    return game_id, tokens, late


@pytest.mark.postgres
def test_time_out_turns_and_a_removal_are_marked_in_the_log_page_and_emails(api, backend, clock):
    game_id, tokens, late = timed_out_then_removed(api, clock)
    log = api.call("GET", f"/api/games/{game_id}/turns", tokens["ann"]).json["turns"]
    first, removal = (entry for entry in log if entry["player"] == late)
    assert first["kind"] == "timeout" and "left" not in first
    assert removal["left"] == "timed_out" and removal["turn"] == ""
    page = api.client.get(f"/games/{game_id}").get_data(as_text=True)
    history = page.split('id="history-heading"', 1)[1].split("</ol>", 1)[0]
    assert f"<b>{late} was removed on time</b>" in history
    assert f"{late}: <code>{first['turn']}</code>" in history
    assert "<em>played on time-out</em>" in history
    assert "(+0)" not in history and "eliminated" not in history
    players = page.split('id="players-heading"', 1)[1].split("</table>", 1)[0]
    assert f"{late}</a> · removed on time" in players
    others = [name for name in tokens if name != late]
    told = [m.body for n in others for m in api.outbox(f"{n}@example.com") if m.kind == "your_turn"]
    assert any(f". {late} was removed on time" in body for body in told)
    assert any("(played on time-out)" in body for body in told)


@pytest.mark.postgres
def test_a_game_ended_by_a_resignation_says_who_left_how_and_the_final_standings(api, backend):
    game_id, tokens = api.started_game("ann", "bob")
    for _ in range(4):
        api.play_best(game_id, tokens)
    quitter = state(api, game_id, tokens["ann"])["to_move"]
    assert api.call("POST", f"/api/games/{game_id}/resign", tokens[quitter]).status_code == 200
    winner = next(name for name in tokens if name != quitter)
    shown = state(api, game_id, tokens["ann"])
    assert shown["ending"] == "others_left"
    lines = {line["player"]: line for line in shown["standings"]}
    assert lines[quitter]["left"] == "resigned" and lines[winner]["left"] is None
    penalty = lines[winner]["penalty"]
    assert penalty < 0 and lines[winner]["final"] == lines[winner]["score"] + penalty
    page = api.client.get(f"/games/{game_id}").get_data(as_text=True)
    final = page.split('id="standings-heading"', 1)[1].split("</table>", 1)[0]
    assert f"The game ended because {quitter} resigned, and only {winner} was still in" in final
    assert f'<td class="num">{penalty}</td>' in final  # the penalty for the tiles left in hand
    assert '<span class="muted">resigned</span>' in final and "eliminated" not in final
    [over] = [m for m in api.outbox(f"{winner}@example.com") if m.kind == "game_over"]
    assert f"has ended: {quitter} resigned, and only {winner} was still in the game." in over.body
    assert f"{quitter}: {lines[quitter]['final']} point" in over.body
    assert ", resigned" in over.body and "eliminated" not in over.body.split("Final")[1][:300]


@pytest.mark.postgres
def test_a_game_ended_by_a_removal_on_time_says_who_was_removed(api, backend, clock):
    """(issue 20 §15) The page's final standings and the game over email say the removal
    ended the game, and mark the player as removed on time, never as eliminated."""
    game_id, tokens = api.started_game("ann", "bob", clock={**NO_VACATION, "timeout": "resign"})
    late = state(api, game_id, tokens["ann"])["to_move"]
    winner = next(name for name in tokens if name != late)
    clock.advance(3 * DAY)
    assert sweep(get_engine(api.app), settings_of(api.app)).timeouts == {"removed": 1}
    api.send_events()
    shown = state(api, game_id, tokens["ann"])
    assert shown["ending"] == "others_left"
    assert {line["player"]: line["left"] for line in shown["standings"]}[late] == "timed_out"
    page = api.client.get(f"/games/{game_id}").get_data(as_text=True)
    final = page.split('id="standings-heading"', 1)[1].split("</table>", 1)[0]
    said = f"{late} was removed on time, and only {winner} was still in"
    assert f"The game ended because {said}" in final
    assert '<span class="muted">removed on time</span>' in final and "eliminated" not in final
    [over] = [m for m in api.outbox(f"{winner}@example.com") if m.kind == "game_over"]
    assert f"has ended: {said} the game." in " ".join(over.body.split())
    assert ", removed on time" in over.body


def test_a_game_ended_by_the_rules_names_the_condition(api):
    game_id, tokens = api.started_game("ann", "bob")
    shown = state(api, game_id, tokens["ann"])
    while shown["status"] == "active":
        api.play_best(game_id, tokens)
        shown = state(api, game_id, tokens["ann"])
    assert shown["ending"] in {"bar_full", "chairs_full", "bag_low", "hand_empty", "last_in_game"}
    page = api.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "The game ended because " in page and "Final standings" in page


def test_games_finished_before_their_ending_was_kept_get_it_from_the_migration(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    migrate.upgrade(url)

    app = create_app({**TEST_CONFIG, "DATABASE_URL": url})
    api = Api(app, app.test_client())
    try:
        game_id, tokens = api.started_game("ann", "bob", "cid")
        api.play_best(game_id, tokens)
        quitter = state(api, game_id, tokens["ann"])["to_move"]
        api.call("POST", f"/api/games/{game_id}/resign", tokens[quitter])
        last = state(api, game_id, tokens["ann"])["to_move"]
        api.call("POST", f"/api/games/{game_id}/resign", tokens[last])
        before = state(api, game_id, tokens["ann"])
    finally:
        api.close()
        get_engine(app).dispose()
    assert before["ending"] == "others_left"
    config = migrate.alembic_config(url)
    command.downgrade(config, "0013")  # as a database of before: no ending, no `left`
    engine = make_engine(url)
    with engine.connect() as connection:
        assert "left" not in connection.execute(text("SELECT standings FROM games")).scalar()
    migrate.upgrade(url)
    with Session(engine) as session:
        game = session.exec(select(GameRecord).where(GameRecord.id == game_id)).one()
        assert game.ending == "others_left"
        assert {line["player"]: line["left"] for line in game.standings or []} == {
            line["player"]: line["left"] for line in before["standings"]
        }
    engine.dispose()
