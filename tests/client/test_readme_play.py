"""The README's Play section runs: its `cafe` commands, in order, against a fresh service, and
then those of docs/league.md's time controls.

The deal is random, so three things are adapted, and only these: `hint`, `move` and `watch`
run as the player whose turn it is, with the turn replaced by that player's best hint; a
`login` without `--code` is answered with the code from the email; and before `record`
the game is brought to its end (the second player resigns).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from client_support import Cafe, LiveServer, Player
from docs_support import section, sh_commands

README_SERVER = "http://127.0.0.1:5000"
PLAYERS = {"default": "ann", "bob": "bob"}  # profile -> player, as the README uses them


def play_commands() -> list[list[str]]:
    """The `cafe` command lines of the README's Play section, then those of the time
    controls in docs/league.md, which go on with the same players."""
    return sh_commands(section("README.md", "Play")) + sh_commands(
        section("docs/league.md", "Time controls and vacation")
    )


def run_session(cafe: Cafe, commands: list[list[str]]) -> list[str]:
    """Run the commands; each must succeed. Returns the command names run, in order."""
    ran = []
    for argv in commands:
        assert argv[0] == "cafe", argv
        args = [cafe.server.url if arg == README_SERVER else arg for arg in argv[1:]]
        args, _, target = (
            (args[: args.index(">")], ">", args[-1]) if ">" in args else (args, "", "")
        )
        profile = args[1] if args[0] == "--profile" else "default"
        rest = args[2:] if args[0] == "--profile" else args
        command, game = rest[0], rest[1] if len(rest) > 1 else ""
        player = Player(cafe, profile, f"{PLAYERS[profile]}@example.com")
        answer = None
        if command == "login" and "--code" not in rest:
            answer = cafe.server.code_for(rest[1]) + "\n"
        if command in ("hint", "move", "watch"):
            player = player_to_move(cafe, game)
        if command == "move":
            options = [arg for arg in rest[2:] if arg.startswith("--")]
            rest = ["move", game, *player.best_turn(int(game)).split(), *options]
        if command == "record" and player.state(int(game))["status"] != "finished":
            assert Player(cafe, "bob", "").run("resign", game, "--yes").exit_code == 0
        result = player.run(*rest, input=answer)
        assert result.exit_code == 0, (argv, result.output)
        if target:
            Path(target).write_text(result.stdout)
        ran.append(command)
    return ran


def player_to_move(cafe: Cafe, game: str) -> Player:
    mover = Player(cafe, "default", "").state(int(game))["to_move"]
    profile = next(p for p, name in PLAYERS.items() if name == mover)
    return Player(cafe, profile, f"{mover}@example.com")


def test_the_play_section_of_the_readme_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = play_commands()
    monkeypatch.chdir(tmp_path)  # where the README's files (game-1.txt) are written
    server = LiveServer.on_file(tmp_path / "readme.db")  # fresh: ann, bob and game 1
    try:
        ran = run_session(Cafe(server, tmp_path / "config"), commands)
    finally:
        server.stop()
    assert {"register", "login", "new", "join", "start", "show", "move", "verify"} <= set(ran)
