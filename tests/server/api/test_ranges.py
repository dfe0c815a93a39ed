"""Numbers past what the database holds, and connections that break as a request ends:
neither is ever a 500. Every integer of a path is checked once, by the route converter
(`server.schemas.fields.StoredInt`), every integer of a body by its model's bounds; a
connection lost at the end of a request is discarded and the answer stays the JSON one."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from flask import Flask, Response
from league import league_support
from server_support import TEST_CONFIG, csrf_of, web_sign_in
from sqlalchemy import create_engine, text
from werkzeug.routing import IntegerConverter

from server.app import create_app
from server.config import settings_of
from server.db import get_engine, get_session
from server.schemas.fields import MAX_INT

#: Past PostgreSQL's `integer`, past `bigint`, past any machine word.
TOO_LARGE = (MAX_INT + 1, 2**63, 10**30)
#: A body every route that reads one would take (a turn; the others ignore it).
BODY = {"turn": "bar USm", "version": 1}


@pytest.mark.postgres
def test_a_path_number_past_the_database_range_is_a_missing_thing(api):
    tokens = league_support.opened(api, ["ann", "bob", "cid", "dan"], game_size=2, division_size=4)
    league_support.start(api, tokens, 1)
    web_sign_in(api, "ann")
    csrf = csrf_of(api.client.get("/").text)
    requests = oversized(api.app)
    assert len(requests) >= 20 * len(TOO_LARGE)  # games, tokens, seasons, divisions
    for method, path in requests:
        if path.startswith("/api/"):
            response = api.call(method, path, tokens["ann"], json=BODY)
            assert response.is_json and "error" in response.json, (method, path)
        else:
            response = api.client.open(path, method=method, data={"csrf": csrf, **BODY})
        assert response.status_code < 500, (method, path)
        assert response.status_code == 404, (method, path, response.status_code)


def oversized(app: Flask) -> list[tuple[str, str]]:
    """Each method of each route with an `<int:…>` (games, tokens, seasons, divisions: the
    API's and the pages'), every integer of its path one of `TOO_LARGE`, the others those
    of league 1's season 1 (`benchmarks/attack.py` sends them to a deployment too)."""
    found = []
    for rule in app.url_map.iter_rules():
        if not any(isinstance(c, IntegerConverter) for c in rule._converters.values()):
            continue
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            for number in TOO_LARGE:
                values = {"slug": "tuesday", "number": 1, "division": 1, "game_id": 1}
                values |= {name: number for name in rule._converters if name != "slug"}
                found.append((method, rule.build(values, append_unknown=False)[1]))
    return found


@pytest.fixture
def postgres_app(postgres_url: str) -> Iterator[Flask]:
    """The app on the session's PostgreSQL database."""
    app = create_app({**TEST_CONFIG, "DATABASE_URL": postgres_url})
    yield app
    get_engine(app).dispose()


def _terminate(app: Flask) -> None:
    """End the server process behind the request's database connection, as a restart or
    a network fault would."""
    connection = get_session().connection().connection.dbapi_connection
    pid = connection.info.backend_pid  # type: ignore[union-attr]
    killer = create_engine(settings_of(app).database_url)
    with killer.begin() as other:
        other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    killer.dispose()


def test_a_connection_killed_as_the_request_ends_keeps_the_json_answer(postgres_app, caplog):
    @postgres_app.after_request
    def _kill(response: Response) -> Response:
        _terminate(postgres_app)
        return response

    client = postgres_app.test_client()
    with caplog.at_level(logging.WARNING, logger="server.db"):
        response = client.get("/api/ratings")
    assert response.status_code == 200 and "ratings" in response.json
    assert "broke as the request ended" in caplog.text
    assert client.get("/api/ratings").status_code == 200  # the next request finds a new one


def test_a_connection_killed_during_the_request_is_a_503(postgres_app, caplog):
    @postgres_app.before_request
    def _kill() -> None:
        get_session().execute(text("SELECT 1"))
        _terminate(postgres_app)

    response = postgres_app.test_client().get("/api/ratings")
    assert response.status_code == 503 and response.json["error"] == "unavailable"
