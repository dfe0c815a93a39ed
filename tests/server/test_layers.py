"""The layers keep to their jobs: below the routes, refusals are domain errors (HTTP is
decided once, in `server.errors`).

One direction for every import (issue 22 §3): the engine ← models and the database ←
the domain (games, league, clock, accounts…) ← mail ← what runs it (the worker's jobs, the
API, the pages, the command lines). A module may import its own layer and those below it,
never one above; every module of `cafe/`, `server/` and `client/` is read with `ast`, so a
new module is checked without being listed — it only has to fall under a name in `LAYERS`.

The command-line client is a program of its own over HTTP: it and the service never import
each other (both import the engine)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from server import domain, errors
from server.db import get_session
from server.games import store

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("cafe", "server", "client")

ENGINE, MODELS, DOMAIN, MAIL, ENTRY = range(5)
LAYER_NAMES = ("engine", "models/db", "domain", "mail", "jobs/api/web/cli")

#: The layer of each package or module: a module takes the layer of the longest name here
#: that it is, or is inside of.
LAYERS: dict[str, int] = {
    "cafe": ENGINE,
    # The tables, the database and the plumbing every layer may use.
    "server": MODELS,  # the package module itself (it imports nothing)
    "server.models": MODELS,
    "server.db": MODELS,
    "server.migrate": MODELS,
    "server.migrations": MODELS,
    "server.transactions": MODELS,
    "server.names": MODELS,
    "server.mailbox": MODELS,  # a player's address, read strictly (accounts and mail use it)
    "server.domain": MODELS,  # the domain's refusals, raised by every layer above
    "server.config": MODELS,
    "server.logs": MODELS,
    "server.clock.timesource": MODELS,  # what time it is: the models' defaults read it
    # What the outbox holds: the kinds of email, their facts, signed addresses, and recording
    # that one is due (an event, a notice), written by the domain in its own transaction.
    "server.postbox": MODELS,
    # The rules of the service over the tables.
    "server.games": DOMAIN,
    "server.league": DOMAIN,
    "server.clock": DOMAIN,
    "server.accounts": DOMAIN,
    "server.auth": DOMAIN,
    "server.signin": DOMAIN,
    "server.throttle": DOMAIN,
    "server.preferences": DOMAIN,
    "server.idempotency": DOMAIN,
    "server.schemas": DOMAIN,  # the public models the domain's JSON builders fill
    # Email: composing, queueing, reading and sending it.
    "server.mail": MAIL,
    "server.channels": MAIL,  # channels beyond email: the guard, formats, texts, sending
    "server.devmail": MAIL,
    "server.league.joining": MAIL,  # a `join` reply to a season's email, read by mail.replies
    "server.league.messages": MAIL,  # the league's email builders (`mail.notices.BUILDERS`)
    # What runs the rest: the worker's jobs, HTTP (API, pages, the app), the commands.
    "server.jobs": ENTRY,  # what runs in the worker
    "server.app": ENTRY,
    "server.api": ENTRY,
    "server.web": ENTRY,
    "server.apispec": ENTRY,
    "server.errors": ENTRY,
    "server.bodies": ENTRY,
    "server.gunicorn_config": ENTRY,
    "server.cli": ENTRY,
    "server.devserver": ENTRY,
    "client": ENTRY,
}

#: Imports that point up, each with why it stays: (module, imported). None today: the domain
#: records the mail it causes through `server.postbox`, below it, and the mail layer renders it.
EXEMPT: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Import:
    """One import statement's target, as a module of the project, and where it is."""

    module: str
    imported: str
    line: int


def module_name(path: Path) -> str:
    """`server/games/store.py` → `server.games.store`; a package's `__init__` → the package."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    """Every module of the engine, the service and the client, by dotted name."""
    return {
        module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


MODULES = all_modules()


def imports_of(module: str, path: Path) -> Iterator[Import]:
    """The project's modules `module` imports (anywhere in it, `TYPE_CHECKING` included):
    `from server import accounts` names `server.accounts`, `from server.models import Game`
    names `server.models`."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            if target.split(".")[0] in PACKAGES:
                yield Import(module, target, node.lineno)


def layer_of(module: str) -> int:
    """The layer of the longest name in `LAYERS` that `module` is or is inside of."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if name in LAYERS:
            return LAYERS[name]
    raise LookupError(f"{module} has no layer: add it (or its package) to LAYERS")


def upward(found: Import) -> str | None:
    """Why this import breaks the direction, or None if it keeps it."""
    own, theirs = found.module.split(".")[0], found.imported.split(".")[0]
    if {own, theirs} == {"server", "client"}:
        return "the client and the service never import each other"
    below, above = layer_of(found.module), layer_of(found.imported)
    if above > below:
        return f"{LAYER_NAMES[below]} imports {LAYER_NAMES[above]}"
    return None


def breaches() -> list[str]:
    """Every import of the project that points up the layers and is not exempt."""
    found = set()
    for module, path in MODULES.items():
        for one in imports_of(module, path):
            why = upward(one)
            if why and (one.module, one.imported) not in EXEMPT:
                where = f"{path.relative_to(ROOT)}:{one.line}"
                found.add(f"{where}: {one.module} imports {one.imported} ({why})")
    return sorted(found)


def test_every_module_has_a_layer():
    assert len(MODULES) > 150
    for module in MODULES:
        layer_of(module)


def test_no_import_points_up_the_layers():
    found = breaches()
    assert not found, "imports against the layers:\n" + "\n".join(found)


def test_every_exemption_is_still_needed():
    used = {
        (one.module, one.imported)
        for module, path in MODULES.items()
        for one in imports_of(module, path)
        if upward(one)
    }
    assert set(EXEMPT) <= used, f"no longer needed: {sorted(set(EXEMPT) - used)}"


@pytest.mark.parametrize(
    ("module", "source", "breach"),
    [
        ("server.models", "from server.games import store", "models/db imports domain"),
        ("server.games.store", "import server.web.game_view", "domain imports jobs/api/web/cli"),
        ("server.league.start", "from server.mail.outgoing import fill", "domain imports mail"),
        ("server.postbox.notices", "from server.mail import notices", "models/db imports mail"),
        ("server.league.emails", "from server.postbox import notices", None),
        ("cafe.game", "from server import models", "engine imports models/db"),
        ("client.api", "import server.models", "never import each other"),
        ("server.api.games", "from ..clock import store", None),
        ("server.mail.replies", "from server.games import turns", None),
    ],
)
def test_the_rule_reads_imports_as_written(tmp_path, module, source, breach):
    path = tmp_path / "probe.py"
    path.write_text(source + "\n", encoding="utf-8")
    (found,) = imports_of(module, path)
    why = upward(found)
    assert (why is None) if breach is None else (breach in (why or ""))


SERVER = ROOT / "server"
BELOW_THE_ROUTES = [
    "accounts.py",
    "preferences.py",
    "idempotency.py",
    "games/store.py",
    "games/turns.py",
    "mail/replies.py",
]


@pytest.mark.parametrize("module", BELOW_THE_ROUTES)
def test_the_store_and_account_layers_know_nothing_of_http(module):
    tree = ast.parse((SERVER / module).read_text(encoding="utf-8"))
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert "server.errors" not in imported
    assert "werkzeug.exceptions" not in imported


def test_every_kind_of_refusal_has_one_status():
    kinds = [value for value in vars(domain).values() if isinstance(value, type)]
    refusals = [kind for kind in kinds if issubclass(kind, domain.DomainError)]
    assert set(errors.DOMAIN_STATUSES) == set(refusals) - {domain.DomainError}


def test_a_missing_game_is_a_domain_error(app):
    with app.test_request_context(), pytest.raises(domain.NotFound) as raised:
        store.load_game(get_session(), 99)
    assert raised.value.code == "game_not_found"


#: The views: they read the app's settings (`config.current_settings()`) and pass them down.
VIEWS = ("api", "web")


def _reads_the_apps_settings(tree: ast.AST) -> bool:
    """Whether a module calls `current_settings()` or reads `current_app.config`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "current_settings":
            return True
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "config"
            and getattr(node.value, "id", None) == "current_app"
        ):
            return True
    return False


def test_below_the_views_settings_are_passed_not_read_from_the_app():
    below = [
        path
        for path in sorted(SERVER.rglob("*.py"))
        if path.relative_to(SERVER).parts[0] not in VIEWS and path.name != "config.py"
    ]
    assert len(below) > 50
    readers = [
        str(path.relative_to(SERVER))
        for path in below
        if _reads_the_apps_settings(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert readers == []
