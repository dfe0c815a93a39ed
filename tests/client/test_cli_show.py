"""`cafe show`: the picture, colour only on a terminal, the JSON state, and which game."""

from __future__ import annotations

import json
from zoneinfo import ZoneInfo

import pytest
from click.testing import Result
from client_support import Cafe, Player, to_move

from client import output
from client.errors import ExitCode
from client.timeview import local, parse

ANSI = "\x1b["


def test_show_draws_the_board_with_header_and_next_step(players: list[Player], game: int) -> None:
    ann = players[0]
    state = ann.state(game)
    result = ann.run("show", str(game))
    assert result.exit_code == ExitCode.OK, result.output
    lines = result.stdout.splitlines()
    title = lines.index(f"Café International · {state['to_move']} to move")
    assert " · ".join(lines[:title]) == (  # the header, wrapped at 100 columns
        f"Game {game} · 0 turns played · version {state['version']} · deadline "
        f"2 days 23 hours left ({local(parse(state['deadline']), ZoneInfo('UTC'))})"
        f" · you are {ann.name}"
    )
    assert "╭────────────── BAR ──────────────╮" in result.stdout
    assert any(line.startswith(" ▶ ") and state["to_move"] in line for line in lines)
    if state["to_move"] == ann.name:
        assert lines[-1] == (
            f"Your turn: `cafe hint {game}` suggests turns, `cafe move {game} TURN` plays."
        )
    else:
        assert (
            lines[-1] == f"Waiting for {state['to_move']}; `cafe watch {game}` waits for your turn."
        )
    assert ANSI not in result.stdout  # not a terminal
    assert max(len(line) for line in lines) <= 100


def test_show_is_in_colour_on_a_terminal_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch, players: list[Player], game: int
) -> None:
    monkeypatch.setattr(output, "stdout_is_terminal", lambda: True)
    ann = players[0]
    assert ANSI in ann.run("show", str(game)).stdout
    assert ANSI not in ann.run("show", str(game), "--plain").stdout
    assert ANSI not in ann.run("show", str(game), env={"NO_COLOR": "1"}).stdout


def test_show_json_is_the_servers_state(players: list[Player], game: int) -> None:
    result = players[0].run("show", str(game), "--json")
    assert result.exit_code == ExitCode.OK
    state = json.loads(result.stdout)
    assert state["id"] == game and state["status"] == "active"
    assert "bag" not in state and "seed" not in state


def test_show_without_an_id_picks_the_game_waiting_for_you(
    cafe: Cafe, players: list[Player], game: int
) -> None:
    mover = to_move(players, players[0].state(game))
    other = next(p for p in players if p is not mover)
    assert mover.run("show").stdout.startswith(f"Game {game} ·")
    assert other.run("show").stdout.startswith(f"Game {game} ·")  # the only running game
    second = cafe.started_game(other, mover)
    cafe.server.rearrange(second, lambda p: p.update(to_move=p["players"].index(mover.name)))
    several = other.run("show")  # waited for in neither of two games
    assert several.exit_code == ExitCode.USAGE
    assert several.stderr == (
        f"cafe: you play in several games ({second}, {game}); name one: cafe show ID\n"
    )
    assert mover.run("move", "bar Jf").exit_code == ExitCode.USAGE  # two games wait for mover


def test_show_without_an_id_and_no_running_game(ann: Player) -> None:
    result = ann.run("show")
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr == "cafe: you have no running game; see `cafe games`\n"


def test_show_an_open_game_is_the_lobby_view(cafe: Cafe, ann: Player, bob: Player) -> None:
    game_id = ann.run("new", "--seats", "3", "--invite", bob.name).stdout.split()[1]
    result = ann.run("show", game_id)
    assert result.exit_code == ExitCode.OK, result.output
    assert result.stdout.splitlines() == [
        f"Game {game_id} · open · 1 of 3 seats taken · no variants",
        f"Players: {ann.name} (creator)",
        f"Invited: {bob.name}",
        f"Waiting for players; {ann.name} starts it.",
    ]
    assert bob.run("show", game_id).stdout.splitlines()[-1] == f"Join it: cafe join {game_id}"


def test_show_an_unknown_game(ann: Player) -> None:
    result = ann.run("show", "424242")
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr == "cafe: there is no game 424242; see `cafe games`\n"


def test_show_a_finished_game_gives_the_standings_and_how_to_verify(
    players: list[Player], game: int
) -> None:
    ann, bob = players
    assert bob.run("resign", str(game), "--yes").exit_code == ExitCode.OK
    result = ann.run("show", str(game))
    assert result.exit_code == ExitCode.OK, result.output
    assert f"Café International · Game over: {ann.name} wins with " in result.stdout
    assert "place  player" in result.stdout
    assert result.stdout.endswith(
        f"  cafe record {game} > game-{game}.txt && cafe verify game-{game}.txt\n"
    )


def widest(result: Result) -> int:
    assert result.exit_code == ExitCode.OK, result.output
    return max(len(line) for line in result.stdout.splitlines())


@pytest.mark.parametrize("columns", ["80", "120"])
def test_show_fits_the_terminal_and_marks_the_last_turn(
    players: list[Player], game: int, columns: str
) -> None:
    mover = next(p for p in players if p.name == players[0].state(game)["to_move"])
    turn = mover.best_turn(game)
    assert mover.run("move", str(game), turn).exit_code == ExitCode.OK
    shown = mover.run("show", str(game), env={"COLUMNS": columns})
    if columns == "80":
        assert widest(shown) <= 80
        assert widest(mover.run("show", str(game), "--wide", env={"COLUMNS": "80"})) > 80
    else:
        assert 80 < widest(shown) <= 100
        assert widest(mover.run("show", str(game), "--compact", env={"COLUMNS": "120"})) <= 80
    assert "›DEf the last turn" in shown.stdout
    first = turn.split()[0]
    assert first.startswith("bar") or f"›{first.split('@')[0].split('=')[0]}" in shown.stdout
