"""`cafe prefs`: the email preferences of issue 4 (`GET`/`PATCH /api/me/preferences`) on
the service, and the clear refusal of an older server that does not have them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from client_support import Cafe, LiveServer, Player
from flask import Flask

from client.errors import ExitCode


def older_service() -> Flask:
    """A server from before issue 4: every route but the ones it had answers a JSON 404."""
    app = Flask("older")

    @app.errorhandler(404)
    def _not_found(_error: Exception) -> tuple[dict[str, str], int]:
        return {"error": "not_found", "message": "The requested URL was not found."}, 404

    return app


@pytest.fixture(scope="module")
def older() -> Iterator[LiveServer]:
    server = LiveServer(older_service())
    yield server
    server.stop()


def test_prefs_on_a_server_without_them(cafe: Cafe, older: LiveServer) -> None:
    result = cafe.run("prefs", env={"CAFE_SERVER": older.url, "CAFE_TOKEN": "cafe_any"})
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr == (
        f"cafe: this server ({older.url}) does not support email preferences yet\n"
    )


def test_prefs_shows_and_changes_them(ann: Player) -> None:
    routes = {rule.rule for rule in ann.cafe.server.app.url_map.iter_rules()}
    if "/api/me/preferences" not in routes:
        pytest.fail("the service has no /api/me/preferences (issue 4)")
    shown = ann.run("prefs")
    assert shown.exit_code == ExitCode.OK, shown.output
    assert shown.stdout.splitlines() == [
        "preference    value",
        "language      en",
        "others_turns  off",
        "reminders     on",
        "talk_emails   with_turns",
        "timezone      UTC",
        "turn_emails   each",
    ]
    changed = ann.run(
        "prefs",
        "turn_emails=digest",
        "others_turns=on",
        "reminders=off",
        "timezone=Europe/Prague",
        "talk_emails=each",
    )
    assert changed.exit_code == ExitCode.OK, changed.output
    assert changed.stdout.splitlines()[1:] == [
        "language      en",
        "others_turns  on",
        "reminders     off",
        "talk_emails   each",
        "timezone      Europe/Prague",
        "turn_emails   digest",
    ]
    assert ann.run("prefs").stdout == changed.stdout


def test_a_value_the_server_refuses_is_its_message(ann: Player) -> None:
    result = ann.run("prefs", "turn_emails=hourly")
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr == "cafe: `turn_emails` must be each, digest or none\n"


def test_prefs_chooses_the_language_of_emails_and_pages(ann: Player) -> None:
    changed = ann.run("prefs", "language=cs")
    assert changed.exit_code == ExitCode.OK, changed.output
    assert "language      cs" in changed.stdout.splitlines()
    refused = ann.run("prefs", "language=fr")
    assert refused.exit_code == ExitCode.ERROR
    assert "`language`" in refused.stderr and "cs (Čeština)" in refused.stderr
    assert "language      cs" in ann.run("prefs").stdout.splitlines()


def test_prefs_changes_are_key_value_pairs(ann: Player) -> None:
    result = ann.run("prefs", "digest")
    assert result.exit_code == ExitCode.USAGE
    assert result.stderr == (
        "cafe: 'digest': write each change as KEY=VALUE, e.g. turn_emails=digest\n"
    )


def test_a_player_registered_from_a_czech_terminal_reads_czech(cafe: Cafe) -> None:
    """`cafe register` sends the terminal's language; the server makes the new player read
    it (their emails, pages and `language` preference), end to end."""
    czech = {"LANG": "cs_CZ.UTF-8"}
    email = "jana@example.com"
    registered = cafe.run("register", "jana", email, "--server", cafe.server.url, env=czech)
    assert registered.exit_code == ExitCode.OK, registered.output
    code = cafe.server.code_for(email)
    assert cafe.run("login", email, "--code", code, env=czech).exit_code == ExitCode.OK
    shown = cafe.run("prefs", env={"CAFE_LANG": "en"})
    assert "language      cs" in shown.stdout.splitlines(), shown.output
