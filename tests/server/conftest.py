"""Fixtures for the service tests: an app on SQLite (and on PostgreSQL when
`CAFE_TEST_DATABASE_URL` is set), a test client, and helpers that register players the way
a person does — reading the sign-in code from the outbox email.

Every response a test receives is checked against `/api/openapi.json`: its status (below
500, which only a server failure causes) must be documented for its route and method, so the
description cannot fall behind the API.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from flask import Flask, Response
from flask import request as flask_request
from flask.testing import FlaskClient
from postgres_support import empty_tables, scratch_postgres
from server_support import TEST_CONFIG, Api, free_port, openapi_path
from smtp_support import Catchers
from sqlmodel import SQLModel

from server import apispec
from server.app import create_app
from server.db import get_engine
from server.devmail import CatchingHandler
from server.mail.receiver import start_receiver

PG_URL = os.environ.get("CAFE_TEST_DATABASE_URL")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "postgres: also run on PostgreSQL when CAFE_TEST_DATABASE_URL is set"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run app tests on SQLite, and those marked `postgres` on PostgreSQL too (if set up)."""
    if "backend" in metafunc.fixturenames:
        on_postgres = PG_URL and metafunc.definition.get_closest_marker("postgres")
        metafunc.parametrize("backend", ["sqlite", "postgresql"] if on_postgres else ["sqlite"])


def documented(app: Flask) -> dict[tuple[str, str], set[str]]:
    """(path, method) -> the statuses the app's OpenAPI description lists."""
    with app.test_request_context():
        paths = apispec.document()["paths"]
    return {
        (path, method.upper()): set(operation["responses"])
        for path, item in paths.items()
        for method, operation in item.items()
    }


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh, uniquely named PostgreSQL database for this test session, migrated."""
    if not PG_URL:
        pytest.skip("set CAFE_TEST_DATABASE_URL to run the PostgreSQL tests")
    with scratch_postgres(PG_URL, "cafe_test", durable=False) as url:
        yield url


@pytest.fixture
def sqlite_url() -> str:
    """The SQLite database of the `app` fixture (modules that need threads use a file)."""
    return "sqlite://"


@pytest.fixture
def dead_port() -> int:
    """A port with no server behind it (a test may start one there)."""
    return free_port()


@pytest.fixture
def smtp_server(smtp_catcher: Catchers) -> tuple[CatchingHandler, int]:
    """A real SMTP server (aiosmtpd) on a free port that keeps what it receives."""
    return smtp_catcher.start()


@pytest.fixture
def app(request: pytest.FixtureRequest, backend: str) -> Iterator[Flask]:
    """The app on an empty database: in-memory SQLite, or the session's PostgreSQL database."""
    if backend == "postgresql":
        url = request.getfixturevalue("postgres_url")
        empty_tables(url)
    else:
        url = request.getfixturevalue("sqlite_url")
    flask_app = create_app({**TEST_CONFIG, "DATABASE_URL": url})
    if backend == "sqlite":
        SQLModel.metadata.create_all(get_engine(flask_app))
    statuses = documented(flask_app)
    undocumented: list[str] = []

    @flask_app.after_request
    def _check_documented(response: Response) -> Response:
        rule = flask_request.url_rule
        if rule is not None:
            key = (openapi_path(rule.rule), flask_request.method)
            status = str(response.status_code)
            if key in statuses and status not in statuses[key] and status < "500":
                undocumented.append(
                    f"{flask_request.method} {flask_request.path} -> {response.status_code}"
                )
        return response

    yield flask_app
    get_engine(flask_app).dispose()
    assert not undocumented, f"statuses missing from the OpenAPI description: {undocumented}"


@pytest.fixture
def postgres_app(postgres_url: str) -> Iterator[Flask]:
    """The app on the session's PostgreSQL database, emptied: for tests of what happens on
    PostgreSQL only (row locks between processes, connections the server ends)."""
    empty_tables(postgres_url)
    flask_app = create_app({**TEST_CONFIG, "DATABASE_URL": postgres_url})
    yield flask_app
    get_engine(flask_app).dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def api(app: Flask, client: FlaskClient) -> Iterator[Api]:
    helper = Api(app, client)
    yield helper
    helper.close()


@pytest.fixture
def receiver(app: Flask) -> Iterator[int]:
    """The app's SMTP receiver of emailed replies (`cafe-server mail-in --listen`) on a free
    port; the port."""
    port = free_port()
    controller = start_receiver(app, host="127.0.0.1", port=port)
    yield port
    controller.stop()
