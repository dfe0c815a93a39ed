"""The engine depends on the standard library alone (the layers depend one way only): only
inside a function may it import Babel, for what only CLDR knows (country names) and to
compile a checkout's catalogs; importing and playing need neither (`cafe.i18n`)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "cafe"

#: What the engine may import inside a function only, never when it is imported.
LAZY = {"babel"}


def _names(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Import):
        return {alias.name.split(".")[0] for alias in node.names}
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return {node.module.split(".")[0]}
    return set()


def _imported_modules(path: Path) -> tuple[set[str], set[str]]:
    """The modules `path` imports at import time, and those it imports inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside = {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
    }
    eager: set[str] = set()
    lazy: set[str] = set()
    for node in ast.walk(tree):
        (lazy if id(node) in inside else eager).update(_names(node))
    return eager, lazy


def test_cafe_imports_only_the_standard_library_and_itself() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) > 10
    allowed = set(sys.stdlib_module_names) | {"__future__", "cafe"}
    for path in files:
        eager, lazy = _imported_modules(path)
        foreign = (eager - allowed) | (lazy - allowed - LAZY)
        assert not foreign, f"{path.relative_to(ENGINE.parent)} imports {sorted(foreign)}"


def test_importing_the_engine_loads_no_babel() -> None:
    code = "import sys, cafe, cafe.i18n, cafe.render.quantities; print('babel' in sys.modules)"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False"
