"""`cafe hint`, `history`, `record`, `verify` (offline) and `resign`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from client_support import Cafe, Player, to_move

from cafe import Game
from cafe.bots import GreedyBot, play_out
from cafe.endings import Departure
from cafe.i18n import gettext as _
from cafe.i18n import speaking
from client.errors import ExitCode


def test_hint_gives_ready_move_commands_best_first(players: list[Player], game: int) -> None:
    mover = to_move(players, players[0].state(game))
    result = mover.run("hint", str(game), "-n", "3")
    assert result.exit_code == ExitCode.OK, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"Best turns in game {game}, best first:"
    assert len(lines) == 4
    points = []
    for line in lines[1:]:
        match = re.fullmatch(rf"\s+([+-]\d+|0)  cafe move {game} (\S.*)", line)
        assert match, line
        points.append(int(match.group(1)))
    assert points == sorted(points, reverse=True)
    dry = mover.run("move", *lines[1].split("cafe move ", 1)[1].split(), "--dry-run")
    assert dry.exit_code == ExitCode.OK, dry.output
    assert mover.run("hint").stdout.startswith(f"Best turns in game {game}")  # the waiting game


def test_history_lists_turns_with_points(players: list[Player], game: int) -> None:
    assert players[0].run("history", str(game)).stdout == f"No turns played in game {game} yet.\n"
    first = to_move(players, players[0].state(game))
    turn = first.best_turn(game)
    assert first.run("move", str(game), turn).exit_code == ExitCode.OK
    second = to_move(players, players[0].state(game))
    assert second.run("resign", str(game), "--yes").exit_code == ExitCode.OK
    lines = players[0].run("history", str(game)).stdout.splitlines()
    assert re.fullmatch(rf"  1\. {first.name}: \S.* ([+-]\d+|0)", lines[0])
    assert lines[1] == f"  2. {second.name} resigned"
    detailed = players[0].run("history", str(game), "--detail").stdout.splitlines()
    assert detailed[0] == lines[0]
    assert detailed[-2].startswith("  drew ")
    assert detailed[-1] == lines[1]


def test_record_prints_the_game_record(players: list[Player], game: int) -> None:
    mover = to_move(players, players[0].state(game))
    assert mover.run("move", str(game), mover.best_turn(game)).exit_code == ExitCode.OK
    record = players[0].run("record", str(game))
    assert record.exit_code == ExitCode.OK, record.output
    state = players[0].state(game)
    assert f'[Players "{" ".join(state["players"])}"]' in record.stdout
    assert f'[Commitment "{state["commitment"]}"]' in record.stdout
    assert "[Seed " not in record.stdout  # not before the game is over
    assert re.search(rf"^1\. {mover.name}: ", record.stdout, re.MULTILINE)


def test_the_record_of_a_finished_game_reveals_the_seed_and_verifies(
    cafe: Cafe, tmp_path: Path, players: list[Player], game: int
) -> None:
    ann, bob = players
    assert bob.run("resign", str(game), "--yes").exit_code == ExitCode.OK
    record = ann.run("record", str(game))
    assert record.exit_code == ExitCode.OK, record.output
    assert "[Seed " in record.stdout
    assert f"-- {bob.name} resigns" in record.stdout
    started = ann.state(game)["started_at"][:10].replace("-", ".")
    assert record.stdout.splitlines()[:3] == [
        '[Site "http://cafe.test"]',
        f'[Date "{started}"]',
        f'[Game "{game}"]',
    ]
    path = tmp_path / f"game-{game}.txt"
    path.write_text(record.stdout)
    verified = cafe.run("verify", str(path))
    assert verified.exit_code == ExitCode.OK, verified.output
    assert f"  1. {ann.name} " in verified.stdout


@pytest.fixture(scope="module")
def finished_record() -> str:
    return play_out(Game.new(["ann", "bob", "cid"], seed="client-tests"), GreedyBot()).to_record()


def altered_draw(record: str) -> tuple[str, int]:
    """The record with the first tile of the fifth recorded draw changed; that line's number."""
    lines = record.splitlines()
    draws = [i for i, line in enumerate(lines) if "| drew " in line]
    index = draws[4]
    head, drawn = lines[index].split("| drew ")
    tiles = drawn.split()
    tiles[0] = "USm" if tiles[0] != "USm" else "DEf"
    lines[index] = f"{head}| drew {' '.join(tiles)}"
    return "\n".join(lines) + "\n", index + 1


def test_verify_a_finished_record(cafe: Cafe, tmp_path: Path, finished_record: str) -> None:
    path = tmp_path / "game.txt"
    path.write_text(finished_record)
    result = cafe.run("verify", str(path))
    assert result.exit_code == ExitCode.OK, result.output
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"Verified: \d+ turns by \w+, \w+, \w+\.", lines[0])
    assert lines[1] == (
        "  The revealed seed matches the commitment, and so do the deal and every draw:"
    )
    assert re.fullmatch(r"  commitment [0-9a-f]{64}", lines[2])
    assert re.fullmatch(r"  1\. \w+ -?\d+ \(score -?\d+, penalty -?\d+\)", lines[3])
    assert cafe.run("verify", "-", input=finished_record).stdout == result.stdout


def test_verify_names_the_line_of_an_altered_draw(
    cafe: Cafe, tmp_path: Path, finished_record: str
) -> None:
    text, line = altered_draw(finished_record)
    path = tmp_path / "game.txt"
    path.write_text(text)
    result = cafe.run("verify", str(path))
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr.startswith(f"cafe: {path}: NOT verified: line {line}: ")
    assert len(result.stderr.splitlines()) == 1


def test_verify_refuses_a_game_in_progress_and_a_missing_file(cafe: Cafe, tmp_path: Path) -> None:
    game = Game.new(["ann", "bob"], seed="in progress")
    game.play(GreedyBot().choose(game))
    path = tmp_path / "running.txt"
    path.write_text(game.to_record())
    running = cafe.run("verify", str(path))
    assert running.exit_code == ExitCode.ERROR
    assert "only a record with its seed revealed can be verified" in running.stderr
    missing = cafe.run("verify", str(tmp_path / "nope.txt"))
    assert missing.exit_code == ExitCode.ERROR
    assert (
        missing.stderr == f"cafe: cannot read {tmp_path / 'nope.txt'}: No such file or directory\n"
    )


def test_resign_asks_first(players: list[Player], game: int) -> None:
    bob = players[1]
    kept = bob.run("resign", str(game), input="n\n")
    assert kept.exit_code == ExitCode.ERROR
    assert bob.state(game)["status"] == "active"
    resigned = bob.run("resign", str(game), input="y\n")
    assert resigned.exit_code == ExitCode.OK, resigned.output
    assert resigned.stdout.endswith(f"You resigned from game {game}. The game is over.\n")
    again = bob.run("resign", str(game), "--yes")
    assert again.exit_code == ExitCode.ERROR
    assert again.stderr == f"cafe: game {game} is over\n"


def test_resign_from_a_three_player_game_passes_the_turn(cafe: Cafe) -> None:
    trio = [cafe.sign_up(name) for name in ("ann", "bob", "cid")]
    game = cafe.started_game(*trio)
    mover = to_move(trio, trio[0].state(game))
    result = mover.run("resign", str(game), "--yes")
    assert result.exit_code == ExitCode.OK, result.output
    after = trio[0].state(game)
    assert result.stdout == f"You resigned from game {game}. {after['to_move']} moves next.\n"


def test_how_a_player_left_is_one_translated_sentence(players: list[Player], game: int) -> None:
    """`cafe history` and the end of `cafe show` say a player leaving as one sentence of the
    run's language (`Departure.sentence`), never an English predicate after the name."""
    bob = players[1]
    assert bob.run("resign", str(game), "--yes").exit_code == ExitCode.OK
    for language in ("cs", "de", "ru"):
        with speaking(language):
            sentence = Departure.RESIGNED.sentence(bob.name)
            left = _("Left before the end: %(players)s.", players=sentence)
        history = players[0].run("--lang", language, "history", str(game))
        assert history.stdout.splitlines()[-1] == f"  1. {sentence}"
        shown = players[0].run("--lang", language, "show", str(game), "--plain")
        assert shown.exit_code == ExitCode.OK, shown.output
        end = " ".join(shown.stdout.split())
        assert left in end and "resigned" not in end and "still in the game" not in end
