"""`cafe new --computer N [--level L]` and `cafe start ID --fill-computer`: practice games
and computer seats, and their refusals."""

from __future__ import annotations

from client_support import Player

from client.errors import ExitCode


def test_new_with_computers_starts_a_practice_game_at_once(ann: Player) -> None:
    result = ann.run("new", "--computer", "2", "--level", "1")
    assert result.exit_code == ExitCode.OK, result.output
    game_id = int(result.stdout.split()[1])
    assert "has started" in result.stdout
    assert f"Play it: cafe show {game_id}" in result.stdout
    state = ann.state(game_id)
    assert state["status"] == "active"
    assert state["seats"] == 3
    assert sorted(state["computers"]) == ["computer-1", "computer-2"]


def test_a_game_of_computers_only_is_refused(ann: Player) -> None:
    result = ann.run("new", "--seats", "2", "--computer", "2")
    assert result.exit_code != ExitCode.OK
    assert "at least one person" in result.output


def test_level_without_computers_is_a_usage_error(ann: Player) -> None:
    result = ann.run("new", "--level", "2")
    assert result.exit_code == ExitCode.USAGE
    assert "--computer" in result.output


def test_start_fills_the_free_seats_with_computers(ann: Player, bob: Player) -> None:
    opened = ann.run("new", "--seats", "4")
    game_id = opened.stdout.split()[1]
    assert bob.run("join", game_id).exit_code == ExitCode.OK
    started = ann.run("start", game_id, "--fill-computer", "--level", "2")
    assert started.exit_code == ExitCode.OK, started.output
    state = ann.state(int(game_id))
    assert state["status"] == "active"
    assert sorted(state["players"]) == sorted(["computer-1", "computer-2", ann.name, bob.name])
