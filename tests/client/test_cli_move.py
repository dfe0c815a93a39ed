"""`cafe move`: the local preview, sending with version and idempotency key, and every way
a turn is refused (exit 4) or mistyped (exit 2)."""

from __future__ import annotations

from typing import Any

import pytest
import requests
from client_support import Cafe, Player, to_move

from cafe.render.quantities import points as count_points
from cafe.render.quantities import signed
from client import localgame
from client.api import ApiClient
from client.errors import ExitCode

NATIONS = ("AF", "CN", "CU", "DE", "ES", "FR", "GB", "IN", "IT", "RU", "TR", "US")


def mover_and_other(players: list[Player], game: int) -> tuple[Player, Player, dict[str, Any]]:
    state = players[0].state(game)
    mover = to_move(players, state)
    return mover, next(p for p in players if p is not mover), state


def test_move_previews_sends_and_reports_points_and_scores(
    players: list[Player], game: int
) -> None:
    mover, other, state = mover_and_other(players, game)
    result = mover.run("move", str(game), *mover.best_turn(game).split())  # no quotes needed
    assert result.exit_code == ExitCode.OK, result.output
    after = mover.state(game)
    assert after["version"] == state["version"] + 1
    scored = after["scores"][after["players"].index(mover.name)]
    points = signed(scored)
    notation = mover.run("history", str(game)).stdout.split(": ", 1)[1].rsplit("  ", 1)[0]
    lines = result.stdout.splitlines()
    assert lines[0] == f"Game {game}, version {state['version']}: {notation} scores {points}"
    details = lines[
        1 : lines.index(f"Played {notation} in game {game} for {count_points(scored)}.")
    ]
    assert details and all(line.startswith("  ") for line in details)  # per table, or the bar
    scores = " · ".join(f"{n} {s}" for n, s in zip(after["players"], after["scores"], strict=True))
    assert lines[-3:] == [
        f"  drew {' '.join(_drawn(mover, game))}",
        f"Scores: {scores}",
        f"{other.name} moves next.",
    ]


def _drawn(player: Player, game: int) -> list[str]:
    detail = player.run("history", str(game), "--detail").stdout
    return detail.splitlines()[-1].removeprefix("  drew ").split()


def test_move_in_quotes_and_without_the_game_id(players: list[Player], game: int) -> None:
    mover, _, _ = mover_and_other(players, game)
    result = mover.run("move", mover.best_turn(game))
    assert result.exit_code == ExitCode.OK, result.output
    assert f" in game {game} for " in result.stdout


def test_dry_run_previews_and_sends_nothing(players: list[Player], game: int) -> None:
    mover, _, state = mover_and_other(players, game)
    turn = mover.best_turn(game)
    result = mover.run("move", str(game), turn, "--dry-run")
    assert result.exit_code == ExitCode.OK, result.output
    assert result.stdout.splitlines()[-1] == (
        f"Dry run: nothing was sent. To play it: cafe move {game} {turn}"
    )
    assert mover.state(game)["version"] == state["version"]


def test_the_preview_gives_the_points_per_table(
    cafe: Cafe, players: list[Player], game: int
) -> None:
    """The worked example of rulebook §6, set up on the server: 6 + 3 + 8 + 0 = 17."""
    mover, _, _ = mover_and_other(players, game)

    def worked_example(position: dict[str, Any]) -> None:
        seat = position["players"].index(mover.name)
        wanted = {"16": "USf", "17": "USm", "19": "INf", "23": "USm"}
        hand = ["USm", "USf"]
        taken = list(wanted.values()) + hand
        pool = [t for h in position["hands"] for t in h] + position["bag"]
        for tile in taken:
            pool.remove(tile)
        position["chairs"] = wanted
        position["hands"][seat] = [*hand, *pool[:3]]
        other = 1 - seat
        position["hands"][other] = pool[3:8]
        position["bag"] = pool[8:]

    cafe.server.rearrange(game, worked_example)
    result = mover.run("move", str(game), "USm@US1-US2", "USf@DE2-US1", "--dry-run")
    assert result.exit_code == ExitCode.OK, result.output
    assert result.stdout.splitlines()[:3] == [
        f"Game {game}, version {mover.state(game)['version']}: USm@US1-US2 USf@DE2-US1 scores +17",
        "  USm on #18  US1 +6 (3 guests, one nation ×2)   US2 +3 (3 guests)",
        "  USf on #15  DE2 0 (alone)   US1 +8 (4 guests, one nation ×2)",
    ]


def test_an_unreadable_tile_shows_your_hand(players: list[Player], game: int) -> None:
    mover, _, state = mover_and_other(players, game)
    hand = " ".join(state["hands"][state["players"].index(mover.name)])
    result = mover.run("move", str(game), "XXf@DE1")
    assert result.exit_code == ExitCode.REFUSED
    assert result.stderr == (
        "cafe: cannot read the turn: cannot read tile 'XXf': unknown nation 'XX' (nations: "
        f"{', '.join(NATIONS)}) · your hand: {hand}\n"
    )
    assert result.stdout == ""


def test_an_illegal_turn_names_the_rule(players: list[Player], game: int) -> None:
    mover, _, state = mover_and_other(players, game)
    hand = state["hands"][state["players"].index(mover.name)]
    tile = next(t for t in hand if not t.startswith("J"))
    elsewhere = next(n for n in NATIONS if n != tile[:2])
    result = mover.run("move", str(game), f"{tile}@{elsewhere}1")
    assert result.exit_code == ExitCode.REFUSED
    assert result.stderr.startswith("cafe: illegal turn (rule nation): ")
    missing = next(f"{n}m" for n in NATIONS if f"{n}m" not in hand)
    result = mover.run("move", str(game), f"{missing}@{missing[:2]}1")
    assert result.exit_code == ExitCode.REFUSED
    assert result.stderr == (
        f"cafe: illegal turn (rule hand): {missing} is not in {mover.name}'s hand: "
        f"{' '.join(hand)}\n"
    )


def test_not_your_turn_is_refused_before_sending(players: list[Player], game: int) -> None:
    mover, other, _ = mover_and_other(players, game)
    result = other.run("move", str(game), "bar Jf")
    assert result.exit_code == ExitCode.REFUSED
    assert result.stderr == (
        f"cafe: it is {mover.name}'s turn in game {game}, not yours; "
        f"`cafe watch {game}` waits for yours (--dry-run plans one now)\n"
    )
    no_game = other.run("move", "bar Jf")
    assert no_game.exit_code == ExitCode.ERROR
    assert no_game.stderr == f"cafe: no game is waiting for you: {game} ({mover.name} to move)\n"


def test_several_games_waiting_need_an_id(cafe: Cafe, players: list[Player], game: int) -> None:
    mover, other, _ = mover_and_other(players, game)
    second = cafe.started_game(other, mover)
    cafe.server.rearrange(second, lambda p: p.update(to_move=p["players"].index(mover.name)))
    result = mover.run("move", "bar", "Jf")
    assert result.exit_code == ExitCode.USAGE
    assert result.stderr == (
        f"cafe: 2 games wait for you ({second}, {game}); name one: cafe move ID bar Jf\n"
    )


def test_a_move_without_a_turn_is_a_usage_error(players: list[Player], game: int) -> None:
    result = players[0].run("move", str(game))
    assert result.exit_code == ExitCode.USAGE
    assert result.stderr == (
        "cafe: say which turn to play, e.g. cafe move 12 USm@US1-US2 USf@DE2-US1\n"
    )
    assert players[0].run("move").exit_code == ExitCode.USAGE


def test_a_game_that_moved_on_refuses_the_turn_and_is_shown_anew(
    monkeypatch: pytest.MonkeyPatch, cafe: Cafe, players: list[Player], game: int
) -> None:
    """The player's other device plays first, between `cafe move`'s look and its send."""
    mover, other, state = mover_and_other(players, game)
    turn = mover.best_turn(game)
    send = ApiClient.play

    def other_device_first(self: ApiClient, game_id: int, text: str, version: int, key: str) -> Any:
        response = cafe.server.call(
            "POST",
            f"/api/games/{game_id}/turns",
            mover.token,
            json={"turn": text, "version": version},
        )
        assert response.status_code == 201
        return send(self, game_id, text, version, key)

    monkeypatch.setattr(ApiClient, "play", other_device_first)
    result = mover.run("move", str(game), turn)
    assert result.exit_code == ExitCode.REFUSED
    assert result.stderr == (
        f"cafe: the game moved on: it is now {other.name}'s turn (version "
        f"{state['version'] + 1}); your turn was not played\n"
    )
    assert f"Café International · {other.name} to move" in result.stdout


def test_the_servers_refusal_is_reported_when_the_preview_missed_it(
    monkeypatch: pytest.MonkeyPatch, players: list[Player], game: int
) -> None:
    mover, _, _ = mover_and_other(players, game)
    unchecked = {"points": 0, "eliminated": False}
    monkeypatch.setattr(localgame, "preview", lambda state, turn, _: {"turn": turn, **unchecked})
    result = mover.run("move", str(game), "XXf@DE1")
    assert result.exit_code == ExitCode.REFUSED
    assert result.stderr.startswith("cafe: cannot read tile 'XXf': unknown nation 'XX'")


def test_the_idempotency_key_makes_a_retried_send_play_once(
    monkeypatch: pytest.MonkeyPatch, players: list[Player], game: int
) -> None:
    """The turn lands but its answer is lost: the client retries with the same key and gets
    the first answer back, and the turn is played once."""
    mover, _, state = mover_and_other(players, game)
    turn = mover.best_turn(game)
    really_send = requests.Session.request
    keys: list[str] = []

    def lose_the_first_answer(self: requests.Session, method: str, url: str, **kwargs: Any) -> Any:
        answer = really_send(self, method, url, **kwargs)
        if method == "POST" and url.endswith("/turns"):
            keys.append(kwargs["headers"]["Idempotency-Key"])
            if len(keys) == 1:
                raise requests.ConnectionError("connection reset by peer")
        return answer

    monkeypatch.setattr(requests.Session, "request", lose_the_first_answer)
    result = mover.run("move", str(game), turn)
    assert result.exit_code == ExitCode.OK, result.output
    assert len(keys) == 2 and keys[0] == keys[1]
    assert mover.state(game)["version"] == state["version"] + 1
    assert len(mover.run("history", str(game)).stdout.splitlines()) == 1


def test_moving_in_a_finished_game_is_refused(players: list[Player], game: int) -> None:
    mover, other, _ = mover_and_other(players, game)
    assert other.run("resign", str(game), "--yes").exit_code == ExitCode.OK
    result = mover.run("move", str(game), "bar Jf")
    assert result.exit_code == ExitCode.REFUSED
    assert result.stderr == f"cafe: game {game} is over\n"


def test_the_last_turn_shows_the_final_standings(
    cafe: Cafe, players: list[Player], game: int
) -> None:
    """Nineteen stools taken: the next bar turn fills the bar and ends the game."""
    mover, _, _ = mover_and_other(players, game)

    def bar_almost_full(position: dict[str, Any]) -> None:
        position["bar"], position["bag"] = position["bag"][:19], position["bag"][19:]
        seat = position["players"].index(mover.name)
        position["scores"][seat] = 30

    cafe.server.rearrange(game, bar_almost_full)
    state = mover.state(game)
    hand = state["hands"][state["players"].index(mover.name)]
    tile = next(t for t in hand if not t.startswith("J"))
    result = mover.run("move", str(game), "bar", tile)
    assert result.exit_code == ExitCode.OK, result.output
    assert "  bar stool 20: -14" in result.stdout
    assert "The game is over." in result.stdout
    assert "place  player" in result.stdout
    assert result.stdout.endswith(f"cafe verify game-{game}.txt\n")
