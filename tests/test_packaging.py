"""The wheel carries the templates, the migrations and the rulebook: the package sees the
top-level source folders through links, and `pyproject.toml`'s package data names every
file in them and every file of the engine that is not Python (`cafe/rulebook.md`).

(`.ci/wheel-check` builds and installs the real wheel; this catches the same mistakes —
a new kind of file, a broken link — in a second, before anything is built.)
"""

from __future__ import annotations

import glob
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ALL_PACKAGE_DATA = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "setuptools"
]["package-data"]
PACKAGE_DATA = ALL_PACKAGE_DATA["server"]


def _source_files(folder: str) -> set[str]:
    """Every file under the top-level `folder` (as `folder/...`), caches left out."""
    return {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def _packaged_files() -> set[str]:
    """What setuptools' globs (recursive, as it runs them) match under `server/`, as
    `folder/...`: the links make both lists comparable."""
    server = ROOT / "server"
    return {
        Path(match).relative_to(server).as_posix()
        for pattern in PACKAGE_DATA
        for match in glob.glob(str(server / pattern), recursive=True)
    }


@pytest.mark.parametrize("folder", ["templates", "migrations"])
def test_the_package_sees_the_source_folder(folder):
    link = ROOT / "server" / folder
    assert link.is_symlink() and link.readlink() == Path("..") / folder
    assert link.resolve() == ROOT / folder


@pytest.mark.parametrize("folder", ["templates", "migrations"])
def test_package_data_names_every_source_file(folder):
    missing = _source_files(folder) - _packaged_files()
    assert not missing, f"not in [tool.setuptools.package-data]: {sorted(missing)}"


def test_package_data_names_every_data_file_of_the_engine():
    engine = ROOT / "cafe"
    data = {
        path.relative_to(engine).as_posix()
        for path in engine.rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc")
    }
    packaged = {
        Path(match).relative_to(engine).as_posix()
        for pattern in ALL_PACKAGE_DATA["cafe"]
        for match in glob.glob(str(engine / pattern), recursive=True)
    }
    assert "rulebook.md" in data
    assert data <= packaged, (
        f"not in [tool.setuptools.package-data] cafe: {sorted(data - packaged)}"
    )
