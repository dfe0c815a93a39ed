"""Every `cafe` command within 80 columns at `COLUMNS=80`, with the widest names there can
be (players of 24 characters, a league of 64 with a slug of 32), and tables that use a
wider terminal when they have one.

The commands are read from the Typer app itself, so a command added later fails
`test_every_command_is_run_here` until `RUNS` says how to run it at its widest.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer
from client_support import Cafe, LiveServer, Player, to_move
from test_cli_league import games_of
from typer.core import TyperGroup
from typer.testing import Result

from client.app import app as cafe_app
from client.errors import ExitCode

COLUMNS = 80
NARROW = {"COLUMNS": str(COLUMNS)}


def command_paths(group: TyperGroup, prefix: tuple[str, ...] = ()) -> Iterator[str]:
    """Every command of `group`, subcommands of its groups included: `games`, `league list`."""
    for name, command in group.commands.items():
        if isinstance(command, TyperGroup):
            yield from command_paths(command, (*prefix, name))
        else:
            yield " ".join((*prefix, name))


COMMANDS = sorted(command_paths(typer.main.get_command(cafe_app)))  # type: ignore[arg-type]


def long_name(cafe: Cafe, letter: str) -> Player:
    """A player whose name has the longest length the service allows (24)."""
    player = cafe.sign_up(letter * 18)
    assert len(player.name) == 24
    return player


@dataclass
class World:
    """Players with the longest names, their games in every state, and a league with the
    longest name and slug whose season runs."""

    cafe: Cafe
    players: list[Player]
    running: int  # a four-player game, some turns played
    finished: int  # a four-player game that is over
    league: str
    record_file: Path

    def mover(self, game: int) -> Player:
        return to_move(self.players, self.players[0].state(game))

    def fresh_game(self, *players: Player) -> int:
        return self.cafe.started_game(*(players or self.players))

    def open_game(self) -> int:
        opened = self.players[0].run("new", "--seats", "4")
        return int(opened.stdout.split()[1])

    def newcomer(self) -> Player:
        return long_name(self.cafe, "n")


def play_a_turn(world: World, game: int) -> None:
    mover = world.mover(game)
    played = mover.run("move", str(game), mover.best_turn(game))
    assert played.exit_code == ExitCode.OK, played.output


@pytest.fixture(scope="module")
def world(live_server: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> World:
    cafe = Cafe(live_server, tmp_path_factory.mktemp("widths") / "config")
    players = [long_name(cafe, letter) for letter in "pqrs"]
    running = cafe.started_game(*players)
    finished = cafe.started_game(*players)
    world = World(
        cafe,
        players,
        running,
        finished,
        f"l{uuid.uuid4().hex[:31]}",
        tmp_path_factory.mktemp("record") / "game.txt",
    )
    for _ in range(3):
        play_a_turn(world, running)
    play_a_turn(world, finished)
    for player in players[1:]:
        assert player.run("resign", str(finished), "--yes").exit_code == ExitCode.OK
    record = players[0].run("record", str(finished))
    world.record_file.write_text(record.stdout)
    organiser = players[0]
    created = organiser.run(
        "league",
        "create",
        world.league,
        "--name",
        "L" * 64,
        "--game-size",
        "4",
        "--division-size",
        "4",
        "--invitation-only",
        "--birthday",
        "100",
        "--coffee-klatsch",
    )
    assert created.exit_code == ExitCode.OK, created.output
    names = [player.name for player in players]
    assert organiser.run("league", "invite", world.league, *names).exit_code == ExitCode.OK
    assert organiser.run("league", "open", world.league).exit_code == ExitCode.OK
    for player in players:
        assert player.run("league", "join", world.league).exit_code == ExitCode.OK
    assert organiser.run("league", "start", world.league).exit_code == ExitCode.OK
    return world


#: One run: who runs it, the words after `cafe`, and what is typed at its prompt.
Run = tuple[Player, list[str], str | None]


def registering(world: World) -> list[Run]:
    name = f"{'m' * 18}{uuid.uuid4().hex[:6]}"
    server = world.cafe.server.url
    player = Player(world.cafe, name, f"{name}@example.com")
    return [(player, ["register", name, player.email, "--server", server], None)]


def signing_in(world: World) -> list[Run]:
    player = world.cafe.sign_up("o" * 18)  # registered and signed in once already
    assert player.run("logout").exit_code == ExitCode.OK
    requested = world.cafe.run("--profile", player.name, "login", player.email, input="\n")
    del requested  # asked for a code, which is now in the mail
    code = world.cafe.server.code_for(player.email)
    return [(player, ["login", player.email, "--code", code], None)]


def signing_out(world: World) -> list[Run]:
    return [(world.cafe.sign_up("z" * 18), ["logout"], None)]


def joining(world: World) -> list[Run]:
    return [(world.players[1], ["join", str(world.open_game())], None)]


def starting(world: World) -> list[Run]:
    game = world.open_game()
    for player in world.players[1:]:
        assert player.run("join", str(game)).exit_code == ExitCode.OK
    return [(world.players[0], ["start", str(game)], None)]


def moving(world: World) -> list[Run]:
    game = world.fresh_game()
    mover = world.mover(game)
    turn = mover.best_turn(game)
    waiting = next(p for p in world.players if p is not mover)
    return [
        (mover, ["move", str(game), turn, "--dry-run"], None),
        (waiting, ["move", str(game), waiting.best_turn(game), "--dry-run"], None),
        (mover, ["move", str(game), turn], None),
    ]


def resigning(world: World) -> list[Run]:
    game, asked = world.fresh_game(), world.fresh_game()
    return [
        (world.players[2], ["resign", str(game), "--yes"], None),
        (world.players[2], ["resign", str(asked)], "y\n"),
    ]


def ok(player: Player, *words: str) -> None:
    done = player.run(*words)
    assert done.exit_code == ExitCode.OK, (words, done.output)


def new_league(world: World, *registered: Player, size: str = "4") -> str:
    """Another league of the longest name and slug, its first season open to `registered`."""
    league = f"j{uuid.uuid4().hex[:31]}"
    ok(
        world.players[0],
        "league",
        "create",
        league,
        "--name",
        "J" * 64,
        "--game-size",
        size,
        "--division-size",
        "4",
    )
    ok(world.players[0], "league", "open", league)
    for player in registered:
        ok(player, "league", "join", league)
    return league


def creating_a_league(world: World) -> list[Run]:
    league = f"k{uuid.uuid4().hex[:31]}"
    words = ["league", "create", league, "--name", "K" * 64, "--invitation-only"]
    return [(world.players[1], [*words, "--birthday", "100", "--coffee-klatsch"], None)]


def opening_a_season(world: World) -> list[Run]:
    league = f"j{uuid.uuid4().hex[:31]}"
    ok(world.players[0], "league", "create", league, "--name", "J" * 64)
    return [(world.players[0], ["league", "open", league], None)]


def joining_a_season(world: World) -> list[Run]:
    league = new_league(world, *world.players[:3])
    return [(world.players[3], ["league", "join", league], None)]


def leaving_a_season(world: World) -> list[Run]:
    waiting = new_league(world, *world.players)
    running = new_league(world, *world.players, size="2")
    ok(world.players[0], "league", "start", running)
    return [
        (world.players[3], ["league", "leave", waiting, "--yes"], None),
        (world.players[3], ["league", "leave", running], "y\n"),
    ]


def starting_a_season(world: World) -> list[Run]:
    league = new_league(world, *world.players, world.newcomer())
    return [(world.players[0], ["league", "start", league], None)]


#: A reason long enough to wrap, as an organiser might write one.
REASON = "a reason long enough to wrap onto more lines " * 8


def running_league(world: World) -> str:
    """Another league of the longest name and slug, its first season running."""
    league = new_league(world, *world.players, size="2")
    ok(world.players[0], "league", "start", league)
    return league


def pausing(world: World) -> list[Run]:
    league = running_league(world)
    return [(world.players[0], ["league", "pause", league, "--reason", REASON], None)]


def resuming(world: World) -> list[Run]:
    league = running_league(world)
    ok(world.players[0], "league", "pause", league, "--reason", REASON)
    return [(world.players[0], ["league", "resume", league], None)]


def removing(world: World) -> list[Run]:
    league = running_league(world)
    words = ["league", "remove", league, world.players[3].name, "--reason", REASON]
    return [(world.players[0], words, None)]


def adjudicating(world: World) -> list[Run]:
    game = games_of(world.cafe, running_league(world))[0][0]
    return [(world.players[0], ["league", "adjudicate", str(game), "--reason", REASON], None)]


def reading_the_log(world: World) -> list[Run]:
    league = running_league(world)
    ok(world.players[0], "league", "pause", league, "--reason", REASON)
    ok(world.players[0], "league", "resume", league)
    ok(world.players[0], "league", "remove", league, world.players[3].name, "--reason", REASON)
    return [(world.players[1], ["league", "log", league], None)]


def opening_a_game(world: World) -> list[Run]:
    invited = ",".join(player.name for player in world.players[1:])
    words = ["new", "--invite", invited, "--birthday", "30", "--coffee-klatsch", "--rated"]
    return [(world.players[0], [*words, "--auto-start"], None)]


#: A message as long as the service takes: an address longer than a line, then words.
MESSAGE = ("https://example.org/" + "x" * 100 + " " + "a message long enough to wrap " * 20)[:500]


def talked(world: World) -> None:
    """Messages as long as they may be at the table of the running game, by the longest
    names."""
    for player in world.players[:2]:
        ok(player, "say", str(world.running), MESSAGE)


def talking(world: World) -> list[Run]:
    talked(world)
    return [
        (world.players[2], ["talk", str(world.running)], None),
        (world.players[2], ["talk", str(world.finished)], None),
    ]


def muting(world: World) -> list[Run]:
    return [
        (world.players[3], ["mute", world.players[0].name], None),
        (world.players[3], ["mute"], None),
    ]


def unmuting(world: World) -> list[Run]:
    ok(world.players[2], "mute", world.players[1].name)
    return [(world.players[2], ["unmute", world.players[1].name], None)]


def showing(world: World) -> list[Run]:
    talked(world)
    return [
        (world.mover(world.running), ["show", str(world.running)], None),
        (world.players[0], ["show", str(world.finished)], None),
    ]


def by_each(words: Callable[[World], list[str]], count: int = 4) -> Callable[[World], list[Run]]:
    """The same command run by each of the first `count` players."""
    return lambda world: [(player, words(world), None) for player in world.players[:count]]


def by(index: int, *words: str | Callable[[World], str]) -> Callable[[World], Run]:
    """A run by player `index`, its words given or computed from the world."""
    return lambda world: (
        world.players[index],
        [word if isinstance(word, str) else word(world) for word in words],
        None,
    )


def each(*runs: Callable[[World], Run]) -> Callable[[World], list[Run]]:
    return lambda world: [run(world) for run in runs]


def game_id(attribute: str) -> Callable[[World], str]:
    return lambda world: str(getattr(world, attribute))


#: A channel URL the guard lets through at creation (https, a public address).
PUBLIC_HOOK = "https://93.184.215.14/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX"


def newest_channel(world: World, *league: str) -> str:
    """The number of the first player's newest channel, or of the `league`'s."""
    words = ("league", "notify", "list", *league) if league else ("notify", "list")
    listed = world.players[0].run(*words).stdout.splitlines()
    return max((line.split()[0] for line in listed if line[:3].strip().isdigit()), key=int)


def newest_league_channel(world: World) -> str:
    """The number of the newest channel of the league the first player organises."""
    return newest_channel(world, world.league)


def league_notify(*words: str | Callable[[World], str]) -> Callable[[World], Run]:
    """`cafe league notify …` by the organiser, on the world's league (of the longest slug)."""
    return by(0, "league", "notify", words[0], lambda w: w.league, *words[1:])


#: How to run each command at its widest. `cafe record` prints the game record, a file
#: format whose header lines name every player; `--json` and completion scripts are for
#: programs. Those stay out of the width rule.
RUNS: dict[str, Callable[[World], list[Run]]] = {
    "register": registering,
    "login": signing_in,
    "logout": signing_out,
    "whoami": each(by(0, "whoami")),
    "games": each(by(0, "games"), by(0, "games", "--finished"), by(0, "games", "--lobby")),
    "new": opening_a_game,
    "join": joining,
    "start": starting,
    "show": showing,
    "move": moving,
    "hint": by_each(lambda w: ["hint", str(w.running)]),
    "watch": lambda w: [(w.mover(w.running), ["watch", str(w.running), "--timeout", "5"], None)],
    "history": each(by(0, "history", game_id("running")), by(0, "history", game_id("finished"))),
    "record": lambda world: [],
    "verify": each(by(0, "verify", lambda w: str(w.record_file))),
    "resign": resigning,
    "say": each(by(1, "say", game_id("running"), MESSAGE)),
    "talk": talking,
    "mute": muting,
    "unmute": unmuting,
    "vacation": each(
        by(0, "vacation"),
        by(0, "vacation", "start", "3", "--from", "2099-07-01"),
        by(0, "vacation", "end"),
    ),
    "rating": each(by(1, "rating"), by(1, "rating", lambda w: w.players[2].name)),
    "prefs": each(by(0, "prefs"), by(0, "prefs", "others_turns=on")),
    "league list": each(by(1, "league", "list")),
    "league show": each(by(1, "league", "show", lambda w: w.league)),
    "league create": creating_a_league,
    "league open": opening_a_season,
    "league invite": each(
        by(0, "league", "invite", lambda w: w.league, lambda w: w.newcomer().name)
    ),
    "league join": joining_a_season,
    "league leave": leaving_a_season,
    "league start": starting_a_season,
    "league standings": by_each(lambda w: ["league", "standings", w.league], 2),
    "league schedule": by_each(lambda w: ["league", "schedule", w.league], 2),
    "league pause": pausing,
    "league resume": resuming,
    "league remove": removing,
    "league adjudicate": adjudicating,
    "league log": reading_the_log,
    "rules": each(by(0, "rules"), by(0, "rules", "notation")),
    "notify add": each(by(0, "notify", "add", "webhook", PUBLIC_HOOK, "--events", "your_turn")),
    "notify list": each(by(0, "notify", "add", "slack", PUBLIC_HOOK), by(0, "notify", "list")),
    "notify remove": each(
        by(0, "notify", "add", "slack", PUBLIC_HOOK), by(0, "notify", "remove", newest_channel)
    ),
    "notify test": each(
        by(0, "notify", "add", "slack", PUBLIC_HOOK), by(0, "notify", "test", newest_channel)
    ),
    "league notify add": each(league_notify("add", "webhook", PUBLIC_HOOK)),
    "league notify list": each(
        league_notify("add", "slack", PUBLIC_HOOK, "--events", "game_over"), league_notify("list")
    ),
    "league notify remove": each(
        league_notify("add", "slack", PUBLIC_HOOK), league_notify("remove", newest_league_channel)
    ),
    "league notify test": each(
        league_notify("add", "slack", PUBLIC_HOOK), league_notify("test", newest_league_channel)
    ),
}


def too_wide(result: Result) -> list[str]:
    return [line for line in (result.stdout + result.stderr).splitlines() if len(line) > COLUMNS]


def test_every_command_is_run_here() -> None:
    missing = [command for command in COMMANDS if command not in RUNS]
    assert not missing, f"add to RUNS how to run `cafe {missing[0]}` with the longest names"


@pytest.mark.parametrize("command", COMMANDS)
def test_help_fits_80_columns(cafe: Cafe, command: str) -> None:
    shown = cafe.run(*command.split(), "--help", env=NARROW)
    assert shown.exit_code == ExitCode.OK, shown.output
    assert not too_wide(shown), shown.stdout


def test_the_main_help_fits_80_columns(cafe: Cafe) -> None:
    shown = cafe.run("--help", env=NARROW)
    assert not too_wide(shown), shown.stdout


@pytest.mark.parametrize("command", [c for c in COMMANDS if c in RUNS])
def test_output_fits_80_columns(world: World, command: str) -> None:
    runs = RUNS[command](world)
    for player, words, typed in runs:
        result = player.run(*words, input=typed, env=NARROW)
        assert result.exit_code == ExitCode.OK, (words, result.output)
        assert not too_wide(result), f"cafe {' '.join(words)}:\n{result.stdout}{result.stderr}"


def widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_tables_use_a_wider_terminal(world: World) -> None:
    """What is cut at 80 columns comes back at 120: the players' count of `cafe league
    list`, the league's name and organiser; the deadline's moment and more of the names in
    `cafe games`."""
    reader = world.players[1]
    listed = {
        width: reader.run("league", "list", env={"COLUMNS": width}).stdout
        for width in ("80", "120")
    }
    for text in listed.values():
        header, *rows, _ = text.splitlines()
        assert header.split()[-1] == "players", text
        assert all(re.search(r"  \d+$", row) for row in rows), text
    assert widest(listed["80"]) <= 80 < widest(listed["120"]) <= 120
    assert listed["80"].count("…") > listed["120"].count("…")
    for words in (["games"], ["games", "--finished"]):
        narrow, wide = (
            world.players[0].run(*words, env={"COLUMNS": width}).stdout for width in ("80", "120")
        )
        assert widest(narrow) <= 80 < widest(wide) <= 120
        assert narrow.splitlines()[0].split()[-2:] == ["time", "left"], narrow
        assert wide.splitlines()[0].split()[-1] == "deadline", wide
        assert re.search(r"  \w{3} \d+ \w{3} \d\d:\d\d UTC$", wide.splitlines()[1]), wide
