"""The layers keep to their jobs: below the views, refusals are domain errors (HTTP is
decided once, in `server.errors`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from server import domain, errors
from server.db import get_session
from server.games import store

SERVER = Path(__file__).resolve().parents[2] / "server"
BELOW_THE_VIEWS = [
    "accounts.py",
    "preferences.py",
    "idempotency.py",
    "games/store.py",
    "games/turns.py",
    "mail/replies.py",
]


@pytest.mark.parametrize("module", BELOW_THE_VIEWS)
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
