"""End to end with the `cafe` command: three players on a real server (gunicorn) play a
whole game to its end with `cafe` commands only, each a fresh process as a person runs it;
then `cafe verify` passes on the finished game's record and fails, naming the line, on the
record with one draw altered.

The players choose their turns with the engine's GreedyBot on the state `cafe show --json`
showed at the start, kept up to date from what each `cafe move` prints (the turn and the
tiles drawn) — so the test also checks that those outputs tell the whole story. Now and
then the server's own view (`show --json`, `hint`) is compared with it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import mailed_code

from cafe import Game
from cafe.bots import GreedyBot
from client.localgame import position
from server import migrate
from server.db import make_engine

CAFE = Path(sys.executable).parent / "cafe"
CHECK_EVERY = 15  # turns between comparisons with the server's own view


@pytest.fixture(scope="module")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """SQLite only: the client sees the same HTTP on every database, and the server's
    own end-to-end tests cover PostgreSQL."""
    url = f"sqlite:///{tmp_path_factory.mktemp('cli-e2e') / 'cafe.db'}"
    migrate.upgrade(url)
    yield url


class Cafe:
    """`cafe` in subprocesses with one config directory; each player is a profile."""

    def __init__(self, workdir: Path, database_url: str) -> None:
        unwanted = (
            "CAFE_SERVER",
            "CAFE_TOKEN",
            "CAFE_PROFILE",
            "NO_COLOR",
            "PYTHONDONTWRITEBYTECODE",
        )
        self.env = {key: value for key, value in os.environ.items() if key not in unwanted}
        self.env["CAFE_CONFIG_DIR"] = str(workdir / "config")
        # bytecode cached as in an installation, so that each process starts as a player's
        self.env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")
        self.database = make_engine(database_url)

    def __call__(
        self, player: str, *args: str, expect: int = 0
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(CAFE), "--profile", player, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,  # the exit code is checked just below, with the output in view
        )
        assert done.returncode == expect, (args, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        if args[0] != "record":  # a record is a file format, not terminal output
            assert all(len(line) <= 100 for line in done.stdout.splitlines()), done.stdout
        return done

    def code_for(self, email: str) -> str:
        """The code of the newest email to `email` (as its reader would find it)."""
        return mailed_code(self.database, email)


def sign_up(cafe: Cafe, base: str, name: str) -> None:
    email = f"{name}@example.com"
    registered = cafe(name, "register", name, email, "--server", base)
    assert registered.stdout.startswith(f"Registered {name} at {base}.\nA sign-in code")
    signed_in = cafe(name, "login", email, "--code", cafe.code_for(email))
    assert signed_in.stdout == f"Signed in as {name} on {base}.\n"
    assert cafe(name, "whoami").stdout.startswith(f"{name} <{email}> on {base}")


def open_and_start(cafe: Cafe, players: list[str]) -> int:
    creator, *others = players
    opened = cafe(creator, "new", "--seats", str(len(players)))
    game_id = int(re.match(r"Game (\d+) is open: 3 seats", opened.stdout).group(1))  # type: ignore[union-attr]
    for name in others:
        assert f"You joined game {game_id}: " in cafe(name, "join", str(game_id)).stdout
    lobby = cafe(others[0], "show", str(game_id)).stdout
    assert lobby.startswith(f"Game {game_id} · open · 3 of 3 seats taken")
    started = cafe(creator, "start", str(game_id)).stdout
    assert re.search(r"^  [0-9a-f]{64}$", started, re.MULTILINE)
    return game_id


def play_turn(cafe: Cafe, game_id: int, mirror: Game) -> Game:
    """The player to move plays GreedyBot's turn with `cafe move`; the mirror follows."""
    mover = mirror.player_to_move
    turn = str(GreedyBot().choose(mirror))
    expected = mirror.copy().play(turn)
    # --yes: a bar turn that puts the player out is played without the question
    out = cafe(mover, "move", str(game_id), *turn.split(), "--yes").stdout.splitlines()
    points = f"{expected.points:+d}" if expected.points else "0"
    assert out[0].endswith(f": {expected.notation} scores {points}")
    counted = f"{points} point{'' if abs(expected.points) == 1 else 's'}"  # +1 point, +2 points
    assert f"Played {expected.notation} in game {game_id} for {counted}." in out
    drew = next((line.split()[1:] for line in out if line.startswith("  drew ")), [])
    following = following_game(mirror, drew)
    result = following.play(turn)
    assert list(result.drawn) == drew
    scores = " · ".join(
        f"{n} {s}" for n, s in zip(following.players, following.scores, strict=True)
    )
    assert f"Scores: {scores}" in out
    if following.is_over:
        assert "The game is over." in out
    elif following.player_to_move == mover:
        assert out[-1] == f"Your turn again: cafe show {game_id}"
    else:
        assert out[-1] == f"{following.player_to_move} moves next."
    return following


def following_game(mirror: Game, drawn: list[str]) -> Game:
    """The mirror with `drawn` on top of its bag, so that its next turn draws them."""
    state = mirror.to_position()
    bag = state["bag"]
    for tile in drawn:
        bag.remove(tile)
    state["bag"] = [*drawn, *bag]
    return Game.from_position(state)


def agrees_with_the_server(cafe: Cafe, game_id: int, mirror: Game, viewer: str) -> None:
    """`show --json` and `hint` say what the mirror says."""
    state = json.loads(cafe(viewer, "show", str(game_id), "--json").stdout)
    public = position(state)
    mine = mirror.to_position()
    for key in ("players", "scores", "hands", "hand_limits", "eliminated", "chairs", "bar"):
        assert public[key] == mine[key], key
    if not mirror.is_over:
        assert state["to_move"] == mirror.player_to_move
        hinted = cafe(mirror.player_to_move, "hint", str(game_id), "-n", "1").stdout
        assert hinted.splitlines()[1].split("cafe move ", 1)[1] == (
            f"{game_id} {mirror.hints(1)[0].turn}"
        )


def test_three_players_play_a_whole_game_with_cafe(
    server: Any, database_url: str, tmp_path: Path
) -> None:
    cafe = Cafe(tmp_path, database_url)
    players = ["ann", "bob", "cid"]
    for name in players:
        sign_up(cafe, server.base, name)
    game_id = open_and_start(cafe, players)
    state = json.loads(cafe("ann", "show", str(game_id), "--json").stdout)
    mirror = Game.from_position(position(state))  # unseen tiles shuffled; draws come on top
    games = cafe(mirror.player_to_move, "games").stdout.splitlines()
    assert games[1].split()[:3] == ["▶", str(game_id), "active"]
    turns = 0
    while not mirror.is_over:  # about 60 turns
        mirror = play_turn(cafe, game_id, mirror)
        turns += 1
        if turns % CHECK_EVERY == 0:
            agrees_with_the_server(cafe, game_id, mirror, players[turns % 3])
    agrees_with_the_server(cafe, game_id, mirror, "bob")
    history = cafe("cid", "history", str(game_id)).stdout.splitlines()
    assert len(history) == turns
    final = cafe("ann", "show", str(game_id)).stdout
    assert "Café International · Game over: " in final
    for standing in mirror.standings():
        assert re.search(
            rf"^   {standing.place}\s+{standing.player}\s+{standing.score}\s", final, re.M
        )

    record = cafe("bob", "record", str(game_id)).stdout
    assert '[Seed "' in record
    path = tmp_path / f"game-{game_id}.txt"
    path.write_text(record)
    verified = cafe("cid", "verify", str(path)).stdout
    assert verified.startswith(f"Verified: {turns} turns by {', '.join(mirror.players)}.\n")
    assert f"  commitment {state['commitment']}\n" in verified

    lines = record.splitlines()
    index = next(i for i, line in enumerate(lines) if "| drew " in line and i > 10)
    head, drawn = lines[index].split("| drew ")
    tiles = drawn.split()
    tiles[0] = "USm" if tiles[0] != "USm" else "DEf"
    lines[index] = f"{head}| drew {' '.join(tiles)}"
    altered = tmp_path / "altered.txt"
    altered.write_text("\n".join(lines) + "\n")
    refused = cafe("cid", "verify", str(altered), expect=1)
    assert refused.stdout == ""
    assert refused.stderr.startswith(f"cafe: {altered}: NOT verified: line {index + 1}: ")
