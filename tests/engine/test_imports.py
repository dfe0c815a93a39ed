"""The engine depends on the standard library alone (the layers depend one way only), but for
Babel in `cafe.i18n`, imported inside the functions that need it (CLDR's country names, and
compiling a checkout's catalogs): importing any of the engine never needs it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "cafe"


#: The modules that may import a package beyond the standard library, inside a function only.
LAZY = {"i18n.py": {"babel"}}


def _imported_modules(path: Path, *, top_level_only: bool = False) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body if top_level_only else ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_cafe_imports_only_the_standard_library_and_itself() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) > 10
    allowed = set(sys.stdlib_module_names) | {"__future__", "cafe"}
    for path in files:
        lazy = LAZY.get(path.relative_to(ENGINE).as_posix(), set())
        foreign = _imported_modules(path) - allowed - lazy
        assert not foreign, f"{path.relative_to(ENGINE.parent)} imports {sorted(foreign)}"
        at_import = _imported_modules(path, top_level_only=True) & lazy
        assert not at_import, f"{path.relative_to(ENGINE.parent)} imports {at_import} at once"


def test_the_packages_names_load_when_first_used() -> None:
    """`import cafe.i18n` costs no engine (`cafe --help` reads its words), yet every name
    the package exports is there: `from cafe import Game` imports `cafe.game` then."""
    probe = (
        "import sys, cafe.i18n\n"
        "alone = sorted(m for m in sys.modules if m.startswith('cafe'))\n"
        "import cafe\n"
        "names = [getattr(cafe, name).__name__ for name in cafe.__all__]\n"
        "from cafe import *\n"
        "print(alone, names == cafe.__all__, 'cafe.game' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["['cafe',", "'cafe.i18n']", "True", "True"]
