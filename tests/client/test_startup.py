"""Start-up: `cafe --help` and `cafe show` import, beyond Typer, only what they need.

Each command runs in a fresh interpreter (as the console script does) that imports Typer
first and then lists the modules the command added to `sys.modules`, so that whatever
Typer itself loads does not count against the client.
"""

from __future__ import annotations

import os
import subprocess
import sys

from client_support import CLEAN_ENV, Player

PROBE = """\
import sys
import typer
floor = set(sys.modules)
sys.argv = ["cafe", *sys.argv[1:]]
from client.cli import main
try:
    main()
except SystemExit as done:
    assert not done.code, done.code
print("modules added:", *sorted(set(sys.modules) - floor))
"""

#: What only running a command needs: the profile and its JSON files, time zones, the HTTP
#: client, the engine and the board's pictures.
RUN_ONLY = {
    "client.session", "json", "zoneinfo", "socket", "client.api", "requests", "client.localgame",
    "cafe.game", "cafe.render", "cafe.render.board_text",
}  # fmt: skip
#: What `cafe --help` may load of the engine's package: its words, not the engine.
WORDS_ONLY = {"cafe", "cafe.i18n"}


def modules_added(*args: str, config_dir: str = "") -> set[str]:
    """The modules `cafe ARGS…` imports beyond those `import typer` loads."""
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    env.update({k: v for k, v in CLEAN_ENV.items() if v is not None})
    if config_dir:
        env["CAFE_CONFIG_DIR"] = config_dir
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, check=True
    )
    last = result.stdout.splitlines()[-1]
    assert last.startswith("modules added:"), result.stdout
    return set(last.split()[2:])


def test_help_imports_nothing_that_only_running_a_command_needs() -> None:
    added = modules_added("--help")
    assert "client.commands.board" in added  # every command is registered
    assert not added & RUN_ONLY
    assert {name for name in added if name.split(".")[0] == "cafe"} == WORDS_ONLY


def test_show_imports_the_text_picture_but_not_the_svg_one(
    players: list[Player], game: int
) -> None:
    ann = players[0]
    added = modules_added(
        "--profile", ann.name, "show", str(game), config_dir=str(ann.cafe.config_dir)
    )
    assert not RUN_ONLY - added  # it drew the board for the signed-in player
    assert "cafe.render.board_svg" not in added
