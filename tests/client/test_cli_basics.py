"""The command line itself: help with the exit codes, usage errors, shell completion, and
the start-up rule that `cafe --help` imports neither requests nor the engine."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import typer
from client_support import Cafe

from client.app import app as cafe_app
from client.errors import EXIT_CODE_MEANINGS, ExitCode

COMMANDS = [
    "register", "login", "logout", "whoami", "games", "new", "join", "start", "show", "move",
    "hint", "watch", "history", "record", "verify", "resign", "say", "talk", "mute", "unmute",
    "vacation", "rating", "prefs", "rules", "league",
]  # fmt: skip


def test_help_lists_every_command_and_the_exit_codes(cafe: Cafe) -> None:
    result = cafe.run("--help")
    assert result.exit_code == ExitCode.OK
    commands = result.stdout.split("Commands:\n")[1].splitlines()[: len(COMMANDS)]
    assert [line.split()[0] for line in commands] == COMMANDS
    footer = " ".join(result.stdout.split("Exit codes: ")[1].split())
    assert footer.startswith(
        "0 ok · 1 error · 2 usage · 3 server unreachable · 4 turn refused · 5 not signed in"
    )  # in lines that fit 80 columns: test_cli_widths
    assert list(EXIT_CODE_MEANINGS) == list(ExitCode)


def test_every_command_has_help(cafe: Cafe) -> None:
    for command in COMMANDS:
        result = cafe.run(command, "--help")
        assert result.exit_code == ExitCode.OK, command
        assert result.stdout.startswith(f"Usage: cafe {command} "), command


def _leaf_commands(group: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The path of every command that runs (not a group), subcommands included."""
    found = []
    for name, command in group.commands.items():
        if hasattr(command, "commands"):  # a group (Typer's own Click, or Click's)
            found += _leaf_commands(command, (*path, name))
        else:
            found.append((*path, name))
    return found


def test_every_value_a_command_takes_is_named_in_capitals(cafe: Cafe) -> None:
    """`EMAIL`, `--code CODE`, `--server URL`: never Typer's own `<str>` or a parameter's
    lower-case Python name."""
    leaves = _leaf_commands(typer.main.get_command(cafe_app))
    assert ("league", "notify", "add") in leaves
    for path in leaves:
        usage, _, rest = cafe.run(*path, "--help").stdout.partition("\n\n")
        placeholders = re.findall(r"[{\[]([^\]}]+)[}\]]", usage.split("[OPTIONS]", 1)[-1])
        assert all(p.rstrip("…").isupper() for p in placeholders), (path, usage)
        options = rest.split("Options:", 1)[-1]
        assert not re.search(r"<\w+>", options), (path, options)


def test_usage_errors_exit_2(cafe: Cafe) -> None:
    assert cafe.run().exit_code == ExitCode.USAGE  # the help, as nothing was asked
    unknown = cafe.run("shwo")
    assert unknown.exit_code == ExitCode.USAGE
    assert "No such command 'shwo'" in unknown.stderr
    assert cafe.run("hint", "--n", "3").exit_code == ExitCode.USAGE
    assert cafe.run("show", "twelve").exit_code == ExitCode.USAGE


def test_shell_completion_script(cafe: Cafe) -> None:
    result = cafe.run("--show-completion", "bash")
    assert result.exit_code == ExitCode.OK
    assert "_CAFE_COMPLETE=complete_bash" in result.stdout
    assert "complete -o default -F _cafe_completion cafe" in result.stdout


def test_help_imports_neither_requests_nor_the_engine() -> None:
    probe = (
        "import sys; sys.argv = ['cafe', '--help']\n"
        "from client.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = {'requests', 'urllib3', 'cafe.game', 'flask', 'pydantic', 'rich', 'server'}\n"
        "print(sorted(({m.split('.')[0] for m in sys.modules} | set(sys.modules)) & heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines()[-1] == "[]"
