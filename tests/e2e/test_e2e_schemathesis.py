"""Schemathesis against `/api/openapi.json`: generated requests for every operation, on
SQLite and on PostgreSQL, must never get a 5xx, every response must match the status
codes and schemas the description promises, and the description must decide validation:
data it calls valid is never refused as malformed (400; a 422 for what no schema can say is
allowed) and data it rules out always is (`positive_data_acceptance`,
`negative_data_rejection`).

The app runs in-process (schemathesis calls it as a WSGI app: far faster than HTTP and the
same code path as under gunicorn) over the e2e fixtures' migrated database. Two players sign
in and three of their games are seeded — active, open and finished, ids 1 to 3 — so the
small ids the generator favours hit real games, not only 404s. Every request carries the
first player's valid token (identity errors have their own tests in tests/server).
Generation is derandomized and bounded (30 examples an operation), so each run sends the
same cases: about a minute per database on a loaded 2-core machine.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import schemathesis
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)
from signin_support import mailed_code
from sqlmodel import Session, select

from server.app import create_app
from server.auth import issue_token
from server.config import settings_of
from server.db import get_engine
from server.models import Player

MAX_EXAMPLES = 30
CHECKS = [
    not_a_server_error,
    positive_data_acceptance,
    negative_data_rejection,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
CONFIG = {
    "SECRET_KEY": "schemathesis-secret-of-at-least-32-bytes",
    "LOG_LEVEL": "WARNING",
    "SIGNIN_CODES_PER_HOUR": 10_000,  # generated registrations and code requests are many
    "SIGNUPS_PER_CLIENT": 100_000,
    "SIGNUPS_PER_HOUR": 100_000,
    "CODE_REQUESTS_PER_CLIENT": 100_000,
    "SIGNIN_GUESSES_PER_CLIENT": 100_000,
    "SIGNIN_GUESSES_PER_ACCOUNT": 100_000,
}


@dataclass
class Caller:
    """The signed-in player the generated requests act as.

    A generated `DELETE /api/tokens/{id}` may revoke the caller's own token; `renew` then
    issues a fresh one straight through the store, so later cases are not all 401s.
    """

    app: Flask
    name: str
    token: str = field(default="", repr=False)

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def renew(self) -> None:
        with self.app.app_context(), Session(get_engine(self.app)) as session:
            player = session.exec(select(Player).where(Player.name == self.name)).one()
            self.token = issue_token(session, player=player, label="schemathesis")[1]
            session.commit()


def sign_in(app: Flask, client: FlaskClient, name: str) -> str:
    """Register `name` and exchange the mailed code for a token, as a person does."""
    email = f"{name}@example.com"
    assert client.post("/api/players", json={"name": name, "email": email}).status_code == 202
    code = mailed_code(get_engine(app), settings_of(app), email)
    response = client.post("/api/tokens", json={"email": email, "code": code})
    assert response.status_code == 201
    return response.json["token"]


def seed_games(client: FlaskClient, tokens: dict[str, str]) -> None:
    """An active, an open and a finished game of `sam` and `tom`."""

    def call(method: str, path: str, who: str, **kwargs: Any) -> Any:
        headers = {"Authorization": f"Bearer {tokens[who]}"}
        response = client.open(path, method=method, headers=headers, **kwargs)
        assert response.status_code < 300, response.json
        return response.json

    active, _, finished = (
        call("POST", "/api/games", "sam", json={"seats": 2})["id"] for _ in range(3)
    )
    for game_id in (active, finished):
        call("POST", f"/api/games/{game_id}/join", "tom")
        call("POST", f"/api/games/{game_id}/start", "sam")
    assert call("POST", f"/api/games/{finished}/resign", "tom")["status"] == "finished"


@pytest.fixture(scope="module")
def caller(database_url: str) -> Iterator[Caller]:
    """The app on the module's fresh database, seeded; `sam` makes the generated calls."""
    app = create_app({**CONFIG, "DATABASE_URL": database_url})
    client = app.test_client()
    tokens = {name: sign_in(app, client, name) for name in ("sam", "tom")}
    seed_games(client, tokens)
    yield Caller(app, "sam", tokens["sam"])
    get_engine(app).dispose()


#: The description as the app serves it, read from a throwaway app on an in-memory database
#: (`schemathesis.pytest.from_fixture` would read it from `caller.app`, but its lazy mode
#: fails on pytest 9.2); each case is then sent to the seeded `caller.app`.
schema = schemathesis.openapi.from_wsgi(
    "/api/openapi.json", create_app({**CONFIG, "DATABASE_URL": "sqlite://"})
)
# every request carries the caller's token (`Caller`), so none is generated, nor left out
schema.config.generation.update(with_security_parameters=False)
# data the description calls valid may be refused for what no schema says (an unknown
# player, an illegal turn, a vacation in the past): 422, never 400
schema.config.checks.positive_data_acceptance.expected_statuses = [
    *schema.config.checks.positive_data_acceptance.expected_statuses,
    "422",
]


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
)
def test_api_conforms_to_its_openapi_description(case: schemathesis.Case, caller: Caller) -> None:
    response = case.call_and_validate(app=caller.app, headers=caller.headers(), checks=CHECKS)
    if case.method == "DELETE" and response.status_code == 204:
        caller.renew()
