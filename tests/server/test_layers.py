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
