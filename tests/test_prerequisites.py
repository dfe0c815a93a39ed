"""`make test` on a fresh machine: what the tests need beyond Python (Chromium, npm,
nginx, PgBouncer; a PostgreSQL that answers when one is named) is installed with apt-get as root, or
else the run stops at once with one line saying what to install (`tests/prerequisites.py`)."""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
import sys
from pathlib import Path

from prerequisites import NEEDS, Need, check_database, ensure

ROOT = Path(__file__).resolve().parents[1]


def needs(tmp_path: Path) -> list[Need]:
    return [
        Need("a browser for the browser tests", "browser", paths=(str(tmp_path / "browser"),)),
        Need("a proxy for the serving test", "proxy", paths=(str(tmp_path / "proxy"),)),
    ]


def fake_apt_get(tmp_path: Path, *, works: bool = True) -> str:
    """An `apt-get` that logs its arguments and 'installs' a package as a file in tmp_path."""
    script = tmp_path / "apt-get"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {tmp_path / "apt.log"}\n'
        + ('[ "$1" = install ] && for p in "$@"; do case $p in -*|install) ;; '
           f'*) touch {tmp_path}/$p;; esac; done\nexit 0\n' if works
           else 'echo "E: Unable to locate package browser" >&2\nexit 100\n')
    )  # fmt: skip
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_nothing_to_do_when_everything_is_there(tmp_path: Path) -> None:
    for name in ("browser", "proxy"):
        (tmp_path / name).touch()
    said: list[str] = []
    assert ensure(needs(tmp_path), root=False, apt_get=None, say=said.append) == 0
    assert said == []


def test_without_root_one_line_says_what_to_install(tmp_path: Path) -> None:
    (tmp_path / "proxy").touch()
    said: list[str] = []
    apt_get = fake_apt_get(tmp_path)
    assert ensure(needs(tmp_path), root=False, apt_get=apt_get, say=said.append) == 1
    assert said == [
        "make test needs a browser for the browser tests: install it "
        "(as root: apt-get install -y browser) and run make test again"
    ]
    assert not (tmp_path / "apt.log").exists()  # nothing was run


def test_as_root_apt_get_installs_what_is_missing(tmp_path: Path) -> None:
    said: list[str] = []
    found = ensure(needs(tmp_path), root=True, apt_get=fake_apt_get(tmp_path), say=said.append)
    assert found == 0
    assert said == ["make test: installing browser proxy with apt-get"]
    assert (tmp_path / "apt.log").read_text().splitlines() == [
        "update -qq",
        "install -y -qq browser proxy",
    ]


def test_a_failed_install_is_one_line_with_apt_gets_reason(tmp_path: Path) -> None:
    said: list[str] = []
    apt_get = fake_apt_get(tmp_path, works=False)
    assert ensure(needs(tmp_path), root=True, apt_get=apt_get, say=said.append) == 1
    assert said[1:] == [
        "make test: apt-get could not install browser proxy (E: Unable to locate package "
        "browser); install them and run make test again"
    ]


def test_no_package_manager_is_one_line_too(tmp_path: Path) -> None:
    said: list[str] = []
    assert ensure(needs(tmp_path), root=True, apt_get=None, say=said.append) == 1
    (line,) = said
    assert line.startswith("make test needs a browser for the browser tests and a proxy")
    assert "apt-get install -y browser proxy" in line


def test_a_named_database_must_answer(tmp_path: Path) -> None:
    said: list[str] = []
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        port = listening.getsockname()[1]
        url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/test"
        assert check_database({"CAFE_TEST_DATABASE_URL": url}, said.append) == 0
    assert check_database({"CAFE_TEST_DATABASE_URL": url}, said.append) == 1
    assert said == [
        f"make test: CAFE_TEST_DATABASE_URL names PostgreSQL at 127.0.0.1:{port}, which does "
        "not answer: start it, or unset the variable to test on SQLite only"
    ]
    assert check_database({}, said.append) == 0


def test_the_needs_are_where_the_tests_look() -> None:
    browser = (ROOT / "tests" / "e2e" / "test_browser.py").read_text()
    serving = (ROOT / "tests" / "deploy_support.py").read_text()  # test_serving's nginx
    pooled = (ROOT / "tests" / "server" / "test_db_pgbouncer.py").read_text()
    chromium, npm, nginx, pgbouncer = NEEDS
    assert re.search(rf'^CHROMIUM = "{chromium.paths[0]}"$', browser, re.MULTILINE)
    assert '["npm", "install"' in browser and npm.commands == ("npm",)
    assert 'shutil.which("nginx")' in serving
    assert all(f'"{path}"' in serving for path in nginx.paths)
    assert f'shutil.which("pgbouncer") or "{pgbouncer.paths[0]}"' in pooled


def test_on_this_machine_it_passes_quietly() -> None:
    """The development machines and CI have everything (the script's own `main`)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "prerequisites.py")],
        capture_output=True, text=True, check=False,
        env={key: v for key, v in os.environ.items() if key != "CAFE_TEST_DATABASE_URL"},
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
