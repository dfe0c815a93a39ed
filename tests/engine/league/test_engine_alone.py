"""Anyone can recompute a season's schedule with the engine alone (README: League,
"Schedule"): `cafe.league` imports and draws a schedule in a Python whose path holds only
the repository's engine and where importing the service, Flask or SQLModel fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[3]

# Run with -I (no user site, no PYTHON* variables, no script folder on the path): the path is
# the standard library and a folder holding only `cafe`, and a finder refuses the service.
SCRIPT = """
import sys
from importlib.abc import MetaPathFinder

BLOCKED = {"server", "client", "flask", "sqlmodel", "sqlalchemy", "pydantic"}

class Refuse(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"the engine imported {name}")
        return None

sys.meta_path.insert(0, Refuse())
sys.path = [p for p in sys.path if "site-packages" not in p and "dist-packages" not in p]
sys.path.insert(0, ENGINE_PARENT)

import cafe.league
import cafe.league.scheduling
import cafe.league.table

games = cafe.league.schedule(
    ["ann", "bob", "cid", "dee"], 2, seed=cafe.league.division_seed(b"published", 1)
)
assert len(games) == 6, games
print(cafe.league.__file__)
"""


def _run_alone(tmp_path: Path, tail: str = "") -> subprocess.CompletedProcess[str]:
    """SCRIPT (then `tail`) in an isolated Python that sees only a link to the engine."""
    (tmp_path / "cafe").symlink_to(REPOSITORY / "cafe", target_is_directory=True)
    script = f"ENGINE_PARENT = {str(tmp_path)!r}\n" + SCRIPT + tail
    return subprocess.run(
        [sys.executable, "-I", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_cafe_league_imports_and_schedules_with_the_engine_alone(tmp_path: Path) -> None:
    done = _run_alone(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "cafe" / "league" / "__init__.py")


def test_the_refusing_finder_does_refuse_the_service(tmp_path: Path) -> None:
    done = _run_alone(tmp_path, "\nimport server.models\n")
    assert done.returncode != 0
    assert "the engine imported server" in done.stderr


def test_the_engine_alone_speaks_english_without_babel(tmp_path: Path) -> None:
    """Babel is beyond the engine alone: its words are English there, and imports never
    need Babel (`cafe.i18n` imports it only to compile a catalog or name a country)."""
    tail = """
from datetime import timedelta
from cafe.render import quantities
assert quantities.time_left(timedelta(hours=36)) == "1 day 12 hours left"
assert quantities.points(-1) == "-1 point"
try:
    import babel
except ImportError:
    print("no babel")
"""
    done = _run_alone(tmp_path, tail)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("no babel")
