"""The README's first commands exist and do what it says; the engine example of
docs/formats.md runs."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _make_targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][\w-]*):", makefile, re.MULTILINE))


def _first_shell_block() -> list[str]:
    block = re.search(r"```sh\n(.*?)```", README, re.DOTALL)
    assert block, "the README opens with a sh block of set-up commands"
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_first_commands_are_make_run_and_make_test() -> None:
    assert _first_shell_block() == ["make run", "make test"]
    assert {"setup", "run", "test", "lint"} <= _make_targets()


def test_make_test_installs_then_runs_pytest() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    test_recipe = re.search(r"^test: (.*)\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert test_recipe and "setup" in test_recipe.group(1)
    first, second = test_recipe.group(2).splitlines()  # what the tests need, then the tests
    assert first.endswith("/python tests/prerequisites.py") and "pytest" in second
    assert (ROOT / "tests" / "prerequisites.py").is_file()
    assert "pip install" in makefile and "-e '.[dev]'" in makefile


def test_ci_runs_the_readme_test_command_and_installs_nothing_itself() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line for line in ci.splitlines() if line and not line.startswith("#")]
    assert commands[-3:] == ["make test", "make lint", ".ci/wheel-check"]
    assert "apt-get" not in ci


def test_engine_example_runs() -> None:
    formats = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    block = re.search(r"## The engine.*?```python\n(.*?)```", formats, re.DOTALL)
    assert block, "docs/formats.md shows the engine API in a python block"
    exec(compile(block.group(1), "docs/formats.md", "exec"), {})


def test_make_run_takes_the_port_the_readme_gives() -> None:
    assert "`make run PORT=6100`" in README and "`CAFE_PORT`" in README
    planned = subprocess.run(
        ["make", "-n", "run", "PORT=6100", "MAIL_PORT=8125"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "cafe-server dev --port 6100 --mail-port 8125" in planned
    default = subprocess.run(["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout  # fmt: skip
    assert re.search(r"cafe-server dev *$", default, re.MULTILINE)  # its own 5000, or CAFE_PORT
