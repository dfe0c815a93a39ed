"""The organiser's tools (issue 20 item 18) through the API: removing a member (from a
running season, as a withdrawal; from a season's registration), pausing and resuming a
season's clocks (the deadline arithmetic with the fake clock, a sweep during the pause), and
adjudicating a stuck game (its table, ratings and record); each in the season's log, each
refused precisely to anyone but the organiser, with nothing changed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from postgres_support import scratch_postgres
from server_support import TEST_CONFIG, Api
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from cafe import Game
from cafe.record import verify
from server import migrate
from server.app import create_app
from server.cli import app as cli
from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine, make_engine
from server.games import turns
from server.jobs.sweep import sweep
from server.league import check
from server.models import (
    GameRecord,
    GameSeat,
    LogEntry,
    Player,
    Rating,
    RatingPoint,
    SeasonMember,
    TurnRecord,
    departure_of,
)

NAMES = ["ann", "bob", "cid", "dan", "eve", "fay"]
#: One division of six, games of three: six games, three for each player; ann organises.
LEAGUE = {
    "name": "Holiday Club",
    "slug": "club",
    "game_size": 3,
    "division_size": 6,
    "clock": {"days_per_turn": 3, "timeout": "autoplay", "max_timeouts": 2, "vacation": True},
}
SEASON = "/api/leagues/club/seasons/1"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY, HOUR = timedelta(days=1), timedelta(hours=1)


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with use(FakeClock(T0)) as fake:
        yield fake  # type: ignore[misc]


def ok(response, status=200):
    assert response.status_code == status, response.json
    return response.json


def refused(response, status, code):
    assert response.status_code == status, response.json
    assert response.json["error"] == code, response.json
    return response.json["message"]


def registered(api) -> dict[str, str]:
    """Everyone registered for the service and for season 1 of ann's league (open)."""
    tokens = {name: api.register(name) for name in NAMES}
    ok(api.call("POST", "/api/leagues", tokens["ann"], json=LEAGUE), 201)
    ok(api.call("POST", "/api/leagues/club/seasons", tokens["ann"]), 201)
    for name in NAMES:
        ok(api.call("POST", f"{SEASON}/register", tokens[name]))
    return tokens


def running(api) -> tuple[dict[str, str], dict]:
    """Season 1 started: everyone's token and the season."""
    tokens = registered(api)
    return tokens, ok(api.call("POST", f"{SEASON}/start", tokens["ann"]))


def game(api, game_id, token):
    return ok(api.call("GET", f"/api/games/{game_id}", token))


def games_of(api, tokens, season, name):
    every = [game(api, gid, tokens["ann"]) for gid in season["divisions"][0]["games"]]
    return [shown for shown in every if name in shown["players"]]


def log_of(api):
    return ok(api.call("GET", f"{SEASON}/log"))


def stored(api, model, **where):
    with Session(get_engine(api.app)) as session:
        query = select(model)
        for name, value in where.items():
            query = query.where(getattr(model, name) == value)
        return list(session.exec(query).all())


def differences(api):
    with Session(get_engine(api.app)) as session:
        return check.differences(session)


def mails(api, name, kind):
    return [m for m in api.outbox(f"{name}@example.com") if m.kind == kind]


def words(message) -> str:
    """The email's text part with its lines joined (its wrapping aside)."""
    return " ".join(message.body.split())


def swept(api):
    done = sweep(get_engine(api.app), settings_of(api.app))
    api.send_events()
    return done


# --- removal --------------------------------------------------------------------------


@pytest.mark.postgres
def test_removing_a_member_of_a_running_season_resigns_their_games_and_is_logged(api, backend):
    tokens, season = running(api)
    bobs = games_of(api, tokens, season, "bob")
    assert len(bobs) == 3
    body = {"player": "bob", "reason": "his mail bounces"}
    shown = ok(api.call("POST", f"{SEASON}/remove", tokens["ann"], json=body))
    assert shown["withdrawn"] == ["bob"] and "bob" not in shown["registered"]
    for before in bobs:
        now = game(api, before["id"], tokens["ann"])
        assert now["eliminated"][now["players"].index("bob")]
        log = ok(api.call("GET", f"/api/games/{before['id']}/turns", tokens["ann"]))["turns"]
        assert [t["left"] for t in log if t["player"] == "bob"][-1] == "removed"
        page = api.client.get(f"/games/{before['id']}").get_data(as_text=True)
        assert "bob was removed from the season by the organiser" in page
        assert "withdrew" not in page  # the game says what the season's table says
    told_others = [m for name in NAMES if name != "bob" for m in api.outbox(f"{name}@example.com")]
    assert any("bob was removed from the season by the organiser" in words(m) for m in told_others)
    [member] = [m for m in stored(api, SeasonMember) if m.withdrawn_at is not None]
    assert member.removed_reason == "his mail bounces" and member.departure == "removed"
    rows = {row["player"]: row for row in shown["divisions"][0]["standings"]}
    assert rows["bob"]["left"] == "removed" and rows["bob"]["place"] is None
    [entry] = log_of(api)["entries"]
    assert entry["by"] == "ann" and entry["action"] == "remove" and entry["player"] == "bob"
    assert entry["game"] is None and entry["reason"] == "his mail bounces" and entry["at"]
    [told] = mails(api, "bob", "league_removed")
    assert "Their reason: his mail bounces" in words(told)
    assert all(str(g["id"]) in words(told) for g in bobs)
    assert differences(api) == (1, [])
    again = api.call("POST", f"{SEASON}/remove", tokens["ann"], json=body)
    assert "bob has left season 1 of club" in refused(again, 409, "not_a_member")


def test_removing_from_the_registration_keeps_them_out_of_the_season(api):
    tokens = registered(api)
    body = {"player": "CID", "reason": "asked to sit this one out"}
    shown = ok(api.call("POST", f"{SEASON}/remove", tokens["ann"], json=body))
    assert "cid" not in shown["registered"] and shown["withdrawn"] == ["cid"]
    back = api.call("POST", f"{SEASON}/register", tokens["cid"])
    assert "asked to sit this one out" in refused(back, 403, "removed_by_organiser")
    [told] = mails(api, "cid", "league_removed")
    assert "no longer registered" in words(told)
    started = ok(api.call("POST", f"{SEASON}/start", tokens["ann"]))
    assert "cid" not in started["divisions"][0]["players"]
    # the next season they may join again: a removal is from one season
    assert log_of(api)["entries"][0]["player"] == "cid"


def test_only_the_organiser_removes_and_every_refusal_changes_nothing(api):
    tokens, season = running(api)
    body = {"player": "bob", "reason": "because"}
    stranger = api.register("zed")
    for token in (tokens["cid"], stranger):
        message = refused(
            api.call("POST", f"{SEASON}/remove", token, json=body), 403, "not_organiser"
        )
        assert message == "only the organiser of club can remove a member"
    assert api.call("POST", f"{SEASON}/remove", json=body).status_code == 401
    refused(
        api.call("POST", "/api/leagues/nope/seasons/1/remove", tokens["ann"], json=body),
        404,
        "league_not_found",
    )
    refused(
        api.call("POST", "/api/leagues/club/seasons/9/remove", tokens["ann"], json=body),
        404,
        "season_not_found",
    )
    nobody = {"player": "nobody", "reason": "x"}
    refused(
        api.call("POST", f"{SEASON}/remove", tokens["ann"], json=nobody), 404, "player_not_found"
    )
    outsider = {"player": "zed", "reason": "x"}
    message = refused(
        api.call("POST", f"{SEASON}/remove", tokens["ann"], json=outsider), 409, "not_a_member"
    )
    assert message == "zed is not a member of season 1 of club"
    for bad in (
        {"player": "bob"},
        {"player": "bob", "reason": "  "},
        {"reason": "x"},
        {"player": "bob", "reason": "x" * 501},
        {"player": "bob", "reason": "a\nb"},
    ):
        message = refused(
            api.call("POST", f"{SEASON}/remove", tokens["ann"], json=bad), 400, "invalid_request"
        )
        assert "reason" in message or "player" in message
    assert log_of(api)["entries"] == []
    assert ok(api.call("GET", SEASON))["withdrawn"] == []
    assert all(not any(g["eliminated"]) for g in games_of(api, tokens, season, "bob"))


# --- pause and resume -----------------------------------------------------------------


def deadlines(api, tokens, season):
    """Each running game's deadline, by id."""
    return {
        gid: game(api, gid, tokens["ann"])["deadline"] for gid in season["divisions"][0]["games"]
    }


def at(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


@pytest.mark.postgres
def test_a_pause_stops_every_clock_and_the_resumption_moves_each_deadline_back(api, backend, clock):
    tokens, season = running(api)
    first = deadlines(api, tokens, season)
    assert set(first.values()) == {at(T0 + 3 * DAY)}
    clock.advance(DAY)
    paused = ok(api.call("POST", f"{SEASON}/pause", tokens["ann"], json={"reason": "holidays"}))
    assert paused["paused_since"] == at(T0 + DAY)
    shown = game(api, season["divisions"][0]["games"][0], tokens["bob"])
    assert shown["deadline"] is None
    assert shown["clock_paused"] == {"since": at(T0 + DAY), "reason": "holidays"}
    assert all(mails(api, name, "league_paused") for name in NAMES)
    assert "Their reason: holidays" in words(mails(api, "bob", "league_paused")[0])

    # ten days of holiday: nothing times out, nothing reminds (the weekly digest still goes)
    clock.advance(10 * DAY)
    during = swept(api)
    assert not during.timeouts and during.reminders == 0 and not during.vacations
    assert stored(api, TurnRecord, kind="timeout") == []
    assert not any(m.kind == "reminder" for m in api.outbox())

    resumed = ok(api.call("POST", f"{SEASON}/resume", tokens["ann"], json={}))
    assert resumed["paused_since"] is None
    # each deadline moved back by the pause: 3 days of clock, 1 run before it, 2 after
    assert set(deadlines(api, tokens, season).values()) == {at(T0 + 13 * DAY)}
    assert "clock_paused" not in game(api, season["divisions"][0]["games"][0], tokens["bob"])
    movers = {game(api, gid, tokens["ann"])["to_move"] for gid in first}
    for name in NAMES:
        [told] = mails(api, name, "league_resumed")
        assert "stopped for 10 days" in words(told)
        assert ("your move, by" in words(told)) == (name in movers)

    # the clock runs again: half time (1.5 days run) half a day after the resumption, the
    # last call a day before the deadline, then the time-out, each when it is due
    clock.advance(11 * HOUR)
    assert swept(api).total == 0
    clock.advance(2 * HOUR)  # one reminder email per player to move, about all their games
    assert swept(api).reminders == len(movers)
    clock.advance(12 * HOUR)
    assert swept(api).reminders == len(movers)
    clock.advance(22 * HOUR)
    assert not swept(api).timeouts
    clock.advance(2 * HOUR)
    # due at last: an automatic vacation day (which moves the player's other deadlines too)
    assert set(swept(api).timeouts) == {"auto_vacation"}
    assert [e["action"] for e in log_of(api)["entries"]] == ["pause", "resume"]
    assert differences(api) == (1, [])


def test_a_turn_played_during_the_pause_starts_its_clock_at_the_resumption(api, clock):
    tokens, season = running(api)
    game_id = season["divisions"][0]["games"][0]
    ok(api.call("POST", f"{SEASON}/pause", tokens["ann"], json={"reason": "holidays"}))
    clock.advance(2 * DAY)
    shown = game(api, game_id, tokens["ann"])
    hint = ok(api.call("GET", f"/api/games/{game_id}/hints?n=1", tokens[shown["to_move"]]))
    body = {"turn": hint["hints"][0]["turn"], "version": shown["version"]}
    ok(api.call("POST", f"/api/games/{game_id}/turns", tokens[shown["to_move"]], json=body), 201)
    assert game(api, game_id, tokens["ann"])["deadline"] is None
    clock.advance(5 * DAY)
    ok(api.call("POST", f"{SEASON}/resume", tokens["ann"], json={"reason": "back"}))
    assert game(api, game_id, tokens["ann"])["deadline"] == at(T0 + 7 * DAY + 3 * DAY)
    assert log_of(api)["entries"][-1]["reason"] == "back"


def test_a_vacation_within_the_pause_is_not_counted_twice(api, clock):
    tokens, season = running(api)
    game_id = season["divisions"][0]["games"][0]
    mover = game(api, game_id, tokens["ann"])["to_move"]
    ok(api.call("POST", f"{SEASON}/pause", tokens["ann"], json={"reason": "holidays"}))
    ok(api.call("POST", "/api/me/vacation", tokens[mover], json={"days": 2}), 201)
    clock.advance(4 * DAY)
    ok(api.call("POST", f"{SEASON}/resume", tokens["ann"], json={}))
    # the vacation lay inside the pause: the deadline moves by the pause alone
    assert game(api, game_id, tokens["ann"])["deadline"] == at(T0 + 4 * DAY + 3 * DAY)


def test_pause_and_resume_are_the_organisers_and_refused_precisely(api):
    tokens = registered(api)
    body = {"reason": "holidays"}
    refused(
        api.call("POST", f"{SEASON}/pause", tokens["ann"], json=body), 409, "season_not_running"
    )
    ok(api.call("POST", f"{SEASON}/start", tokens["ann"]))
    for action in ("pause", "resume"):
        message = refused(
            api.call("POST", f"{SEASON}/{action}", tokens["bob"], json=body), 403, "not_organiser"
        )
        assert message == f"only the organiser of club can {action} a season"
    refused(api.call("POST", f"{SEASON}/resume", tokens["ann"], json={}), 409, "season_not_paused")
    refused(api.call("POST", f"{SEASON}/pause", tokens["ann"], json={}), 400, "invalid_request")
    refused(
        api.call("POST", f"{SEASON}/pause", tokens["ann"], json={"reason": ""}),
        400,
        "invalid_request",
    )
    refused(
        api.call("POST", "/api/leagues/club/seasons/2/pause", tokens["ann"], json=body),
        404,
        "season_not_found",
    )
    assert log_of(api)["entries"] == [] and ok(api.call("GET", SEASON))["paused_since"] is None
    ok(api.call("POST", f"{SEASON}/pause", tokens["ann"], json=body))
    message = refused(
        api.call("POST", f"{SEASON}/pause", tokens["ann"], json=body), 409, "season_paused"
    )
    assert "resume it first" in message
    assert [e["action"] for e in log_of(api)["entries"]] == ["pause"]


# --- adjudication ---------------------------------------------------------------------


@pytest.mark.postgres
def test_an_adjudicated_game_finishes_counts_and_says_why(api, backend):
    tokens, season = running(api)
    game_id = season["divisions"][0]["games"][0]
    before = game(api, game_id, tokens["ann"])
    body = {"reason": "a dispute the rules do not settle"}
    finished = ok(api.call("POST", f"/api/games/{game_id}/adjudicate", tokens["ann"], json=body))
    assert finished["status"] == "finished"
    assert sorted(s["score"] for s in finished["standings"]) == sorted(before["scores"])
    [end] = [
        t
        for t in ok(api.call("GET", f"/api/games/{game_id}/turns", tokens["bob"]))["turns"]
        if t["kind"] == "end"
    ]
    assert end["adjudicated"] and end["by"] == "ann" and end["reason"] == body["reason"]
    record = api.call("GET", f"/api/games/{game_id}/record", tokens["bob"]).get_data(as_text=True)
    assert record.splitlines()[-1] == f"-- adjudicated: {body['reason']}"
    report = verify(record)
    assert report.adjudication == body["reason"]
    assert [s.player for s in report.standings] == [s["player"] for s in finished["standings"]]
    # it counts in the table and the ratings like any finished game
    table = ok(api.call("GET", SEASON))["divisions"][0]["standings"]
    assert sum(row["played"] for row in table) == 3
    assert {p.player_id for p in stored(api, RatingPoint, game_id=game_id)} == {
        r.player_id for r in stored(api, Rating)
    }
    for name in before["players"]:
        [over] = mails(api, name, "game_over")
        assert "adjudicated it (a dispute the rules do not settle)" in words(over)
    [entry] = log_of(api)["entries"]
    assert entry["action"] == "adjudicate" and entry["game"] == game_id
    assert entry["player"] is None and entry["by"] == "ann"
    assert differences(api) == (1, [])
    again = api.call("POST", f"/api/games/{game_id}/adjudicate", tokens["ann"], json=body)
    refused(again, 409, "game_not_running")


def test_adjudication_is_the_league_organisers_and_refused_precisely(api):
    tokens, season = running(api)
    game_id = season["divisions"][0]["games"][0]
    body = {"reason": "stuck"}
    for token in (tokens["bob"], api.register("zed")):
        message = refused(
            api.call("POST", f"/api/games/{game_id}/adjudicate", token, json=body),
            403,
            "not_organiser",
        )
        assert message == "only the organiser of club can adjudicate its games"
    refused(
        api.call("POST", "/api/games/9999/adjudicate", tokens["ann"], json=body),
        404,
        "game_not_found",
    )
    refused(
        api.call("POST", f"/api/games/{game_id}/adjudicate", tokens["ann"], json={}),
        400,
        "invalid_request",
    )
    plain, _ = api.started_game("gus", "hal")
    message = refused(
        api.call("POST", f"/api/games/{plain}/adjudicate", tokens["ann"], json=body),
        422,
        "not_a_league_game",
    )
    assert message.startswith(f"game {plain} is not a league game")
    assert game(api, game_id, tokens["ann"])["status"] == "active"
    assert stored(api, GameRecord, status="finished") == []
    assert log_of(api)["entries"] == []


@pytest.mark.postgres
def test_the_log_is_public_and_its_season_must_exist(api, backend):
    tokens, _ = running(api)
    ok(api.call("POST", f"{SEASON}/pause", tokens["ann"], json={"reason": "holidays"}))
    shown = log_of(api)
    assert shown["league"] == "club" and shown["season"] == 1 and shown["paused_since"]
    refused(api.call("GET", "/api/leagues/club/seasons/4/log"), 404, "season_not_found")
    refused(api.call("GET", "/api/leagues/none/seasons/1/log"), 404, "league_not_found")
    # a number past PostgreSQL's integers names nothing (it was a 500 there): the route
    # converter's 404 (`server.schemas.fields.StoredInt`)
    for path in ("/api/leagues/club/seasons/2147483648/log", "/api/leagues/club/seasons/2147483648",
                 "/api/leagues/club/seasons/2147483648/divisions/1",
                 "/api/leagues/zz/seasons/2147483648/log"):  # fmt: skip
        refused(api.call("GET", path), 404, "not_found")


@pytest.mark.postgres
def test_a_turn_computed_before_the_pause_cannot_land_with_a_deadline_after_it(api, backend):
    """A turn read the game before the pause and computed its next deadline without the
    hold; landing after the pause it would give a paused game a deadline. Its
    compare-and-set, guarded by the clock facts too, writes nothing: the player retries."""
    tokens, season = running(api)
    game_id = season["divisions"][0]["games"][0]
    with api.app.app_context(), Session(get_engine(api.app)) as session:
        stale = session.get(GameRecord, game_id)
        assert stale is not None and stale.state is not None
        engine = Game.from_position(stale.state)
        result = engine.play(engine.hints(1)[0].turn)
        entry = LogEntry(
            game_id=game_id,
            number=stale.turn_count + 1,
            seat=stale.state["to_move"],
            notation=result.notation,
            points=result.points,
            detail=turns.result_detail(result),
        )
        values = turns.change_values(
            session, game=stale, engine=engine, entry=entry, by_the_player=True
        )
        assert values["deadline"] is not None
        session.expunge(stale)  # the game as that turn read it
        session.rollback()
        ok(api.call("POST", f"{SEASON}/pause", tokens["ann"], json={"reason": "holidays"}))
        assert not turns.write_change(
            session, game=stale, values=values, entry=entry, config=settings_of(api.app)
        )
        session.rollback()
    shown = game(api, game_id, tokens["ann"])
    assert shown["deadline"] is None and shown["turns"] == 0


@pytest.fixture(params=["sqlite", "postgresql"])
def migrated_url(request, tmp_path) -> Iterator[str]:
    """A database of its own built by the migrations, on each backend."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'migrated.db'}"
        migrate.upgrade(url)
        yield url
        return
    server = request.getfixturevalue("postgres_url")  # the session's: skips without PG
    with scratch_postgres(server, "cafe_migrated", durable=False) as url:
        yield url


def test_removals_logged_as_withdrawals_before_are_said_as_removals_after_the_upgrade(
    migrated_url,
):
    """A database of before (0027) logged a removed member's resignations as a withdrawal's;
    the upgrade makes them, and the finished game's standings, say the removal."""
    url = migrated_url
    app = create_app({**TEST_CONFIG, "DATABASE_URL": url})
    api = Api(app, app.test_client())
    tokens = {name: api.register(name) for name in NAMES[:4]}
    pair = {**LEAGUE, "game_size": 2, "division_size": 4}
    ok(api.call("POST", "/api/leagues", tokens["ann"], json=pair), 201)
    ok(api.call("POST", "/api/leagues/club/seasons", tokens["ann"]), 201)
    for token in tokens.values():
        ok(api.call("POST", f"{SEASON}/register", token))
    season = ok(api.call("POST", f"{SEASON}/start", tokens["ann"]))
    ok(api.call("POST", f"{SEASON}/remove", tokens["ann"], json={"player": "bob", "reason": "x"}))
    games = [game(api, g, tokens["ann"]) for g in season["divisions"][0]["games"]]
    bobs = [g["id"] for g in games if "bob" in g["players"]]
    api.close()
    get_engine(app).dispose()

    def said(engine) -> tuple[set[str], set[str]]:
        """How bob left, by his log entries and by the finished games' standings."""
        with Session(engine) as session:
            seats = {(s.game_id, s.seat) for s in stored_in(session, GameSeat, "bob")}
            logged = {
                str(departure_of(t.kind, t.detail))
                for t in session.exec(select(TurnRecord).where(TurnRecord.kind == "resign"))
                if (t.game_id, t.seat) in seats
            }
            lines = {
                line["left"]
                for g in session.exec(select(GameRecord).where(col(GameRecord.id).in_(bobs)))
                for line in g.standings or []
                if line["player"] == "bob"
            }
        return logged, lines

    engine = make_engine(url)
    assert len(bobs) == 3 and said(engine) == ({"removed"}, {"removed"})
    command.downgrade(migrate.alembic_config(url), "0027")  # as logged before
    assert said(engine) == ({"withdrew"}, {"withdrew"})
    migrate.upgrade(url)
    assert said(engine) == ({"removed"}, {"removed"})
    engine.dispose()


def stored_in(session, model, name):
    """The rows of `model` of the player called `name`."""
    player = session.exec(select(Player).where(Player.name == name)).one()
    return session.exec(select(model).where(model.player_id == player.id)).all()


def test_league_check_agrees_after_a_removal_and_an_adjudication(tmp_path):
    """On a database built by the migrations: the table and ratings that `cafe-server
    league check` recomputes from the finished games match the stored ones, after the
    organiser removed a member and adjudicated a game, and once the season is over."""
    env = {
        "CAFE_DATABASE_URL": f"sqlite:///{tmp_path / 'organiser.db'}",
        "CAFE_LOG_LEVEL": "WARNING",
        "CAFE_SECRET_KEY": TEST_CONFIG["SECRET_KEY"],
    }
    assert CliRunner().invoke(cli, ["db", "upgrade"], env=env).exit_code == 0
    app = create_app({**TEST_CONFIG, "DATABASE_URL": env["CAFE_DATABASE_URL"]})
    api = Api(app, app.test_client())
    tokens, season = running(api)
    ok(api.call("POST", f"{SEASON}/remove", tokens["ann"], json={"player": "bob", "reason": "x"}))
    body = {"reason": "stuck"}
    first = season["divisions"][0]["games"][0]
    if game(api, first, tokens["ann"])["status"] == "active":
        ok(api.call("POST", f"/api/games/{first}/adjudicate", tokens["ann"], json=body))
    checked = CliRunner().invoke(cli, ["league", "check"], env=env)
    assert checked.exit_code == 0 and "0 differences" in checked.stdout, checked.output
    for game_id in season["divisions"][0]["games"]:
        shown = game(api, game_id, tokens["ann"])
        if shown["status"] == "active":
            ok(api.call("POST", f"/api/games/{game_id}/adjudicate", tokens["ann"], json=body))
    assert ok(api.call("GET", SEASON))["status"] == "finished"
    checked = CliRunner().invoke(cli, ["league", "check"], env=env)
    assert checked.exit_code == 0 and "0 differences" in checked.stdout, checked.output
    rebuilt = CliRunner().invoke(cli, ["ratings", "rebuild"], env=env)
    assert rebuilt.exit_code == 0, rebuilt.output
    api.close()
    get_engine(app).dispose()
