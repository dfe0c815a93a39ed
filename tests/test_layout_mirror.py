"""`tests/server/` mirrors `server/`: a test file lives in the folder named for the package
of `server/` whose behaviour it tests (`tests/server/mail/` for `server/mail/`), whichever
layer it drives that behaviour through; at the top level are only the tests of `server/`'s
own modules and the few that span the whole service, each listed here with what it tests.
And every module under `tests/` has a name of its own: pytest imports test files and helpers
by their bare name (its "prepend" mode, no `__init__.py`), so two of one name collide, and
a test file imported from another folder is found only if that folder was collected first:
what tests share lives in a `*_support.py`."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "server"
TESTS = ROOT / "tests" / "server"

#: The tests at the top of `tests/server/` of one of `server/`'s own modules (`server/<name>.py`).
OWN_MODULES = {
    "test_accounts_api.py": "accounts",
    "test_app_factory.py": "app",
    "test_db_pgbouncer.py": "db",
    "test_db_writes.py": "db",
    "test_devserver.py": "devserver",
    "test_gunicorn_config.py": "gunicorn_config",
    "test_migrations.py": "migrate",
    "test_model_rows.py": "models",
    "test_player_names.py": "accounts",
    "test_request_languages.py": "i18n",
    "test_secret_key.py": "config",
    "test_server_cli.py": "cli",
    "test_server_cli_checks.py": "cli",
    "test_server_config.py": "config",
    "test_signin_limits.py": "throttle",
    "test_signin_requests.py": "signin",
    "test_signin_timing.py": "signin",
    "test_statements.py": "statements",
    "test_transactions.py": "transactions",
}
#: The tests at the top of `tests/server/` that span the service, and what they span.
SPANNING = {
    "test_layers.py": "the imports and errors of every module of server/",
    "test_secrets_at_rest.py": "the database, logs and mail folder after a whole sign-in",
}
#: First words of a test file's name (`test_<word>_…`) that name a package other than by its
#: own name; a word that is a package's name (`clock`, `league`, …) names that package.
WORDS = {
    "email": "mail",
    "mailin": "mail",
    "game": "games",
    "turn": "games",
    "turns": "games",
    "http": "api",
}


#: The packages of `server/` below its top, as paths (`mail`, `league`, …).
PACKAGES = sorted(
    init.parent.relative_to(SERVER).as_posix()
    for init in SERVER.rglob("__init__.py")
    if init.parent != SERVER
)


def named_package(name: str) -> str | None:
    """The package a test file's name says it tests, by its first word, if it says one."""
    word = name.removeprefix("test_").split("_")[0].removesuffix(".py")
    package = WORDS.get(word, word)
    return package if package in PACKAGES else None


def test_every_server_test_lives_in_the_folder_of_its_package() -> None:
    folders = ", ".join(f"tests/server/{package}/" for package in PACKAGES)
    misplaced = []
    for path in sorted(TESTS.rglob("test_*.py")):
        where = path.parent.relative_to(TESTS).as_posix()
        named = named_package(path.name)
        if where == ".":
            if named:
                misplaced.append(
                    f"{path.name}: its name says server/{named}/; move it to tests/server/{named}/"
                )
            elif path.name not in OWN_MODULES | SPANNING:
                misplaced.append(
                    f"{path.name}: move it to the folder of the package of "
                    f"server/ it tests ({folders}), or list it in OWN_MODULES "
                    "with the module of server/ it tests"
                )
        elif where not in PACKAGES:
            misplaced.append(
                f"{where}/{path.name}: server/{where}/ is no package; move it "
                f"to the folder of the package it tests ({folders})"
            )
        elif named and named != where:
            misplaced.append(
                f"{where}/{path.name}: its name says server/{named}/; move it "
                f"to tests/server/{named}/"
            )
    assert not misplaced, "tests/server/ mirrors server/:\n" + "\n".join(misplaced)


def test_the_top_level_tests_are_of_top_level_modules() -> None:
    stale = []
    for name in sorted(OWN_MODULES | SPANNING):
        if not (TESTS / name).is_file():
            stale.append(f"{name}: no such file at the top of tests/server/; drop its entry")
    for name, module in sorted(OWN_MODULES.items()):
        if not (SERVER / f"{module}.py").is_file():
            moved = sorted(
                path.parent.relative_to(SERVER).as_posix()
                for path in SERVER.rglob(f"{module}.py")
                if path.parent.relative_to(SERVER).as_posix() in PACKAGES
            )
            goes = f"tests/server/{moved[0]}/" if moved else "the folder of its package"
            stale.append(f"{name}: server/{module}.py is gone; move it to {goes}")
    assert not stale, "\n".join(stale)


def test_every_module_of_the_tests_has_a_name_of_its_own() -> None:
    found: defaultdict[str, list[str]] = defaultdict(list)
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name not in ("conftest.py", "__init__.py"):
            found[path.name].append(path.relative_to(ROOT).as_posix())
    shared = [" and ".join(paths) for paths in found.values() if len(paths) > 1]
    assert not shared, "pytest imports these by their bare name; rename one of\n" + "\n".join(
        shared
    )


def test_no_test_imports_a_test_file_of_another_folder() -> None:
    folders = {path.stem: path.parent for path in (ROOT / "tests").rglob("test_*.py")}
    crossing = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name in folders and folders[name] != path.parent:
                    crossing.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not crossing, "move what they share into a *_support.py:\n" + "\n".join(crossing)
