"""`cafe notify add|list|remove|test` (issue 26) against the service, with a receiver on
loopback that the service's `CAFE_CHANNELS_ALLOW` lets it reach."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from channels_support import Reply, hook_receiver
from client_support import Cafe, LiveServer, Player
from server_support import TEST_CONFIG
from sqlmodel import SQLModel

from client.errors import ExitCode
from server.app import create_app
from server.db import get_engine


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The service, allowed to reach 127.0.0.1."""
    database = tmp_path_factory.mktemp("notify") / "cafe.db"
    app = create_app(
        {**TEST_CONFIG, "DATABASE_URL": f"sqlite:///{database}", "CHANNELS_ALLOW": "127.0.0.1/32"}
    )
    SQLModel.metadata.create_all(get_engine(app))
    server = LiveServer(app)
    yield server
    server.stop()


def test_add_list_test_and_remove_a_channel(cafe: Cafe, ann: Player) -> None:
    with hook_receiver() as hook:
        hook.answer = lambda _r: Reply(200, body=b"got it")
        added = ann.run(
            "notify", "add", "webhook", hook.url("/secret-path"), "--events", "your_turn,game_over"
        )
        assert added.exit_code == ExitCode.OK, added.output
        lines = added.stdout.splitlines()
        assert lines[0] == "Channel 1 added: webhook, http://127.0.0.1/…."
        assert lines[1].startswith("Its signing secret, shown only now: whsec_")
        listed = ann.run("notify", "list")
        assert listed.exit_code == ExitCode.OK
        assert "secret-path" not in listed.stdout and "whsec_" not in listed.stdout
        assert listed.stdout.splitlines()[:3] == [
            "  1  webhook  http://127.0.0.1/…",
            "     active",
            "     events: your_turn, game_over",
        ]
        tested = ann.run("notify", "test", "1")
        assert tested.exit_code == ExitCode.OK, tested.output
        assert tested.stdout.splitlines() == ["Delivered: the receiver answered 200.", "got it"]
        assert len(hook.received) == 1 and hook.received[0].path == "/secret-path"
    removed = ann.run("notify", "remove", "1")
    assert removed.exit_code == ExitCode.OK
    assert ann.run("notify", "list").stdout.startswith("No channels yet")


def test_a_url_inside_the_network_is_refused_in_one_line(ann: Player) -> None:
    refused = ann.run("notify", "add", "slack", "https://10.0.0.1/hooks")
    assert refused.exit_code != ExitCode.OK
    assert "10.0.0.1" in refused.stderr and len(refused.stderr.splitlines()) == 1


def test_an_unknown_kind_or_event_is_a_usage_error(ann: Player) -> None:
    assert "sms" in ann.run("notify", "add", "sms", "https://x.example/").stderr
    bad = ann.run("notify", "add", "slack", "https://x.example/", "--events", "everything")
    assert "your_turn" in bad.stderr
