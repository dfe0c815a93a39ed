"""`cafe watch`: waits politely (ETags, growing pauses) until it is your turn."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from client_support import Cafe, Player, to_move

from client.commands import board
from client.errors import CliError, ExitCode, Unreachable

FAST = ("--interval", "0.05", "--max-interval", "0.2")


def mover_and_other(players: list[Player], game: int) -> tuple[Player, Player]:
    mover = to_move(players, players[0].state(game))
    return mover, next(p for p in players if p is not mover)


def play_soon(cafe: Cafe, player: Player, game: int, delay: float = 0.3) -> threading.Timer:
    """`player` plays their best turn after `delay` seconds, from another machine."""

    def play() -> None:
        state = cafe.server.call("GET", f"/api/games/{game}", player.token).json()
        best = cafe.server.call("GET", f"/api/games/{game}/hints?n=1", player.token).json()
        body = {"turn": best["hints"][0]["turn"], "version": state["version"]}
        cafe.server.call("POST", f"/api/games/{game}/turns", player.token, json=body)

    timer = threading.Timer(delay, play)
    timer.start()
    return timer


def test_watch_shows_the_board_when_your_turn_comes(
    cafe: Cafe, players: list[Player], game: int
) -> None:
    mover, other = mover_and_other(players, game)
    version = other.state(game)["version"]
    play_soon(cafe, mover, game)
    result = other.run("watch", str(game), *FAST, "--timeout", "20")
    assert result.exit_code == ExitCode.OK, result.output
    assert result.stderr == f"game {game}: waiting for {mover.name} (version {version})\n"
    assert result.stdout.startswith(f"Game {game} · 1 turn played")
    assert f"Your turn: `cafe hint {game}`" in result.stdout


def test_watch_asks_with_the_etag_and_gets_304s(
    monkeypatch: pytest.MonkeyPatch, cafe: Cafe, players: list[Player], game: int
) -> None:
    mover, other = mover_and_other(players, game)
    really_send = requests.Session.request
    seen: list[tuple[str | None, int, str]] = []  # If-None-Match sent, status, ETag received

    def record(self: requests.Session, method: str, url: str, **kwargs: Any) -> Any:
        answer = really_send(self, method, url, **kwargs)
        if url.endswith(f"/api/games/{game}"):
            sent = kwargs["headers"].get("If-None-Match")
            seen.append((sent, answer.status_code, answer.headers["ETag"]))
        return answer

    monkeypatch.setattr(requests.Session, "request", record)
    play_soon(cafe, mover, game, delay=0.5)
    assert other.run("watch", str(game), *FAST, "--timeout", "20").exit_code == ExitCode.OK
    assert seen[0][:2] == (None, 200)
    assert seen[1][:2] == (seen[0][2], 304)
    assert seen[-1][1] == 200


def test_watch_exec_runs_the_command_with_the_game_number(
    cafe: Cafe, tmp_path: Path, players: list[Player], game: int
) -> None:
    mover, other = mover_and_other(players, game)
    out = tmp_path / "game.txt"
    play_soon(cafe, mover, game)
    result = other.run("watch", str(game), *FAST, "--exec", f'echo "$CAFE_GAME" > {out}; exit 3')
    assert result.exit_code == 3
    assert out.read_text() == f"{game}\n"
    assert result.stderr.endswith(
        f'Your turn in game {game}: running echo "$CAFE_GAME" > {out}; exit 3\n'
    )


def test_watch_without_an_id_watches_all_your_games(
    cafe: Cafe, players: list[Player], game: int
) -> None:
    mover, other = mover_and_other(players, game)
    play_soon(cafe, mover, game)
    result = other.run("watch", *FAST, "--timeout", "20")
    assert result.exit_code == ExitCode.OK, result.output
    assert result.stderr == f"waiting for {mover.name} in game {game}\n"
    assert result.stdout.startswith(f"Game {game} ·")


def test_watch_gives_up_after_the_timeout(players: list[Player], game: int) -> None:
    _, other = mover_and_other(players, game)
    result = other.run("watch", str(game), *FAST, "--timeout", "0.3")
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr.endswith("cafe: gave up after 0.3 s: it is still not your turn\n")


def test_watch_when_the_game_ends_first(players: list[Player], game: int) -> None:
    mover, other = mover_and_other(players, game)
    assert mover.run("resign", str(game), "--yes").exit_code == ExitCode.OK
    shown = other.run("watch", str(game), *FAST)
    assert shown.exit_code == ExitCode.OK
    assert shown.stderr == f"Game {game} is over.\n"
    assert "Game over" in shown.stdout
    with_exec = other.run("watch", str(game), *FAST, "--exec", "true")
    assert with_exec.exit_code == ExitCode.ERROR
    assert with_exec.stderr == f"cafe: game {game} ended before your turn; 'true' was not run\n"


def test_watch_with_no_running_game(ann: Player) -> None:
    result = ann.run("watch", *FAST)
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr == "cafe: you have no running game to watch; see `cafe games`\n"


@pytest.fixture
def pauses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    slept: list[float] = []
    monkeypatch.setattr(board.time, "sleep", slept.append)
    yield slept


def test_pauses_grow_by_half_while_nothing_changes_and_reset_on_change(
    pauses: list[float],
) -> None:
    answers = iter(["a", "a", "a", "a", "a", "b", "b", "ready"])

    def look() -> board.Look:
        answer = next(answers)
        return ({"id": 1} if answer == "ready" else None), answer

    assert board._wait(look, interval=2, max_interval=5, timeout=None) == {"id": 1}
    assert pauses == [2, 3, 4.5, 5, 5, 2, 3]


def test_a_server_away_for_a_while_does_not_end_the_watch(pauses: list[float]) -> None:
    answers: list[Any] = [Unreachable("cannot reach the server at X"), Unreachable("x"), "ready"]

    def look() -> board.Look:
        answer = answers.pop(0)
        if isinstance(answer, CliError):
            raise answer
        return {"id": 1}, ""

    assert board._wait(look, interval=1, max_interval=10, timeout=None) == {"id": 1}
    assert len(pauses) == 2
