"""The HTTP envelope: health check, JSON errors for every failure, request ids in logs,
and the OpenAPI description matching the app's real routes."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from server_support import TEST_CONFIG, openapi_path

from server.app import create_app
from server.clock.timesource import FakeClock, use


def test_healthz(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json == {"status": "ok", "database": "ok"}


def test_healthz_reports_an_unreachable_database(tmp_path):
    app = create_app({**TEST_CONFIG, "DATABASE_URL": f"sqlite:///{tmp_path}/missing/dir/x.db"})
    response = app.test_client().get("/healthz")
    assert response.status_code == 503
    assert response.json["error"] == "unavailable"
    assert response.headers["Retry-After"] == "1"


def test_every_answer_says_the_services_time_from_its_clock(client):
    """`Server-Time` is the service's `now` (an injected or development clock's), which
    HTTP's `Date` is not: clients compute time left from it."""
    with use(FakeClock(datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC))):
        for response in (client.get("/healthz"), client.get("/api/games"), client.get("/x")):
            assert response.headers["Server-Time"] == "2030-01-02T03:04:05Z"


def test_unknown_route_and_wrong_method_are_json(client):
    missing = client.get("/api/nothing-here")
    assert missing.status_code == 404
    assert missing.json["error"] == "not_found"
    wrong = client.put("/api/players", json={})
    assert wrong.status_code == 405
    assert wrong.json["error"] == "method_not_allowed"
    assert "POST" in wrong.headers["Allow"]


def test_a_bug_is_a_json_500_without_details(app, caplog):
    def boom() -> str:
        raise RuntimeError("secret internals")

    app.add_url_rule("/api/boom", view_func=boom)
    app.add_url_rule("/boom", endpoint="page_boom", view_func=boom)
    response = app.test_client().get("/api/boom")
    assert response.status_code == 500
    assert response.json == {
        "error": "internal_error",
        "message": "the server failed; the error is logged",
    }
    page = app.test_client().get("/boom")
    assert page.status_code == 500 and page.mimetype == "text/html"
    assert "the server failed; the error is logged" in page.text
    assert "secret internals" not in response.text + page.text
    assert "secret internals" in caplog.text


def test_request_id_is_echoed_and_logged_without_secrets(api, caplog):
    token = api.register("ann")
    caplog.set_level(logging.INFO, logger="server.request")
    response = api.call("GET", "/api/me", token, headers={"X-Request-Id": "abc-123"})
    assert response.headers["X-Request-Id"] == "abc-123"
    [line] = [r for r in caplog.records if r.name == "server.request"]
    assert line.request_id == "abc-123"
    assert "GET /api/me 200" in line.getMessage()
    assert token not in caplog.text


def test_a_request_id_is_made_when_none_or_a_bad_one_is_sent(client):
    generated = client.get("/healthz").headers["X-Request-Id"]
    assert len(generated) == 32
    bad = "spaces and ; are not welcome " + "x" * 80
    replaced = client.get("/healthz", headers={"X-Request-Id": bad})
    assert len(replaced.headers["X-Request-Id"]) == 32


def test_openapi_describes_exactly_the_real_routes(app, client):
    spec = client.get("/api/openapi.json").json
    assert spec["openapi"].startswith("3.")
    real = {
        (openapi_path(rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    described = {(path, method) for path, item in spec["paths"].items() for method in item}
    assert real == described
    for item in spec["paths"].values():
        for operation in item.values():
            for response in operation["responses"].values():
                ref = response.get("content", {}).get("application/json", {}).get("schema", {})
                if "$ref" in ref:
                    assert ref["$ref"].rpartition("/")[2] in spec["components"]["schemas"]
