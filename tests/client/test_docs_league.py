"""docs/league.md's League section runs: its `cafe` commands, in order, against a fresh
service.

The walk-through builds on the README's Play section's accounts (ann, the default profile, and bob),
so their `register` and `login` lines run first. Only one thing is adapted: a `login`
without `--code` is answered with the code from the email, as a person would type it.
"""

from __future__ import annotations

import re
from pathlib import Path

from client_support import Cafe, LiveServer
from docs_support import section, sh_commands
from typer.testing import Result

README_SERVER = "http://127.0.0.1:5000"


def run(cafe: Cafe, argv: list[str]) -> Result:
    """One README line, which must succeed."""
    assert argv[0] == "cafe", argv
    args = [cafe.server.url if arg == README_SERVER else arg for arg in argv[1:]]
    rest = args[2:] if args[0] == "--profile" else args
    answer = None
    if rest[0] == "login" and "--code" not in rest:
        answer = cafe.server.code_for(rest[1]) + "\n"
    result = cafe.run(*args, input=answer)
    assert result.exit_code == 0, (argv, result.output)
    return result


def test_the_league_walk_through_runs(tmp_path: Path) -> None:
    play = sh_commands(section("README.md", "Play"))
    accounts = [a for a in play if {"register", "login"} & set(a)]
    walk = sh_commands(section("docs/league.md", "League"))
    server = LiveServer.on_file(tmp_path / "readme.db")  # fresh: ann, bob, cid and dan
    try:
        cafe = Cafe(server, tmp_path / "config")
        for argv in accounts:
            run(cafe, argv)
        outputs = {" ".join(argv[1:]): run(cafe, argv).stdout for argv in walk}
    finally:
        server.stop()
    ran = {argv[argv.index("league") + 1] for argv in walk if "league" in argv}
    assert {"create", "open", "join", "start", "show", "list", "standings", "schedule",
            "leave", "invite", "pause", "resume", "log"} <= ran  # fmt: skip
    log = outputs["league log tuesday"]
    assert "paused every clock\n  why: the winter holidays\n" in log and "resumed" in log
    assert any(argv[1:2] == ["rating"] or argv[3:4] == ["rating"] for argv in walk)
    assert "→" in outputs["--profile bob league standings tuesday"]
    schedule = outputs["--profile bob league schedule tuesday"]
    assert schedule.count(" active ") == 6  # 4 players, 3 games each, in pairs
    table = outputs["--profile bob league standings tuesday --division 1"]
    assert re.search(r"^  +-  dan  .*  withdrew$", table, re.M)
    assert "dan" in outputs["--profile bob rating"]
    assert outputs["rating dan"].startswith("dan · rating ")
