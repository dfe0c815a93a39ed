"""`cafe league notify add|list|remove|test SLUG …` (issue 26): a league's shared channels,
its organiser's, against the service with a receiver on loopback that the service's
`CAFE_CHANNELS_ALLOW` lets it reach; anyone else is refused in one line."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from channels_support import Reply, hook_receiver
from client_support import LiveServer, Player
from server_support import TEST_CONFIG
from sqlmodel import SQLModel

from client.errors import ExitCode
from server.app import create_app
from server.db import get_engine


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The service, allowed to reach 127.0.0.1."""
    database = tmp_path_factory.mktemp("league-notify") / "cafe.db"
    app = create_app(
        {**TEST_CONFIG, "DATABASE_URL": f"sqlite:///{database}", "CHANNELS_ALLOW": "127.0.0.1/32"}
    )
    SQLModel.metadata.create_all(get_engine(app))
    server = LiveServer(app)
    yield server
    server.stop()


@pytest.fixture
def league(ann: Player) -> str:
    """A league ann organises."""
    slug = f"club-{uuid.uuid4().hex[:6]}"
    made = ann.run("league", "create", slug, "--name", "Tuesday Club", "--game-size", "2")
    assert made.exit_code == ExitCode.OK, made.output
    return slug


def test_the_organiser_adds_lists_tests_and_removes_a_channel(ann: Player, league: str) -> None:
    with hook_receiver() as hook:
        hook.answer = lambda _r: Reply(200, body=b"club got it")
        added = ann.run("league", "notify", "add", league, "webhook", hook.url("/club-secret"))
        assert added.exit_code == ExitCode.OK, added.output
        lines = added.stdout.splitlines()
        number = lines[0].split()[1].rstrip(":")
        assert lines[0] == f"Channel {number} added: webhook, http://127.0.0.1/…."
        assert lines[1].startswith("Its signing secret, shown only now: whsec_")
        assert lines[2] == f"Send it a test: cafe league notify test {league} {number}"
        listed = ann.run("league", "notify", "list", league)
        assert listed.exit_code == ExitCode.OK, listed.output
        assert "club-secret" not in listed.stdout and "whsec_" not in listed.stdout
        assert listed.stdout.splitlines()[1:3] == [
            "     active",
            "     events: your_turn, game_over, league",
        ]
        assert ann.run("notify", "list").stdout.startswith("No channels yet")  # not her own
        tested = ann.run("league", "notify", "test", league, number)
        assert tested.exit_code == ExitCode.OK, tested.output
        assert tested.stdout.splitlines() == [
            "Delivered: the receiver answered 200.",
            "club got it",
        ]
        [request] = hook.received
        assert request.path == "/club-secret"
        assert "the league's channel" in request.json()["data"]["text"]
    removed = ann.run("league", "notify", "remove", league, number)
    assert removed.exit_code == ExitCode.OK and removed.stdout == f"Channel {number} removed.\n"
    empty = ann.run("league", "notify", "list", league)
    assert empty.stdout.startswith("No channels yet; add one with `cafe league notify add")


def test_events_are_the_leagues_only(ann: Player, league: str) -> None:
    chosen = ann.run(
        "league", "notify", "add", league, "slack", "http://127.0.0.1:9/x", "--events", "game_over"
    )
    assert chosen.exit_code == ExitCode.OK, chosen.output
    assert "events: game_over" in ann.run("league", "notify", "list", league).stdout
    personal = ann.run(
        "league", "notify", "add", league, "slack", "http://127.0.0.1:9/y", "--events", "reminder"
    )
    assert personal.exit_code == ExitCode.USAGE
    assert personal.stderr.strip().endswith(
        "--events takes some of your_turn, game_over, league"
    ), personal.stderr


def test_anyone_but_the_organiser_is_refused_in_one_line(bob: Player, league: str) -> None:
    for args in (("list", league), ("add", league, "slack", "http://127.0.0.1:9/z")):
        refused = bob.run("league", "notify", *args)
        assert refused.exit_code != ExitCode.OK
        assert len(refused.stderr.splitlines()) == 1
        assert f"only the organiser of {league} can manage its channels" in refused.stderr


def test_an_unknown_league_is_said_so(ann: Player) -> None:
    refused = ann.run("league", "notify", "list", "no-such-league")
    assert refused.exit_code != ExitCode.OK
    assert "no-such-league" in refused.stderr and len(refused.stderr.splitlines()) == 1
