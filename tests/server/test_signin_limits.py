"""Limits on what an attacker repeats — sign-in guesses, registrations, code requests —
counted per client address and overall (`server.throttle`), never per victim."""

from __future__ import annotations

from datetime import timedelta

import pytest
from server_support import TEST_CONFIG, Api
from sqlmodel import Session, SQLModel, select

from server import create_app
from server.db import get_engine
from server.models import ThrottleEvent

ANN = "ann@example.com"


def guess(api, code, remote="203.0.113.5", email=ANN, **headers):
    return api.client.post(
        "/api/tokens",
        json={"email": email, "code": code},
        environ_base={"REMOTE_ADDR": remote},
        headers=headers,
    )


def wrong(code):
    return f"{(int(code) + 1) % 10**10:010d}"


def earlier(api, seconds):
    """Move every counted attempt `seconds` into the past."""
    with Session(get_engine(api.app)) as session:
        for event in session.exec(select(ThrottleEvent)):
            event.created_at -= timedelta(seconds=seconds)
            session.add(event)
        session.commit()


@pytest.fixture
def code(api):
    api.client.post("/api/players", json={"name": "ann", "email": ANN})
    return api.last_code(ANN)


@pytest.mark.postgres
def test_guesses_are_limited_per_client_with_backoff(api, code):
    api.app.config["SIGNIN_GUESSES_PER_CLIENT"] = 6
    for _ in range(3):  # a few mistakes are free
        assert guess(api, wrong(code)).status_code == 401
    backed_off = guess(api, wrong(code))
    assert backed_off.status_code == 429 and backed_off.json["error"] == "too_many_guesses"
    assert backed_off.json["retry_after"] >= 1
    assert backed_off.headers["Retry-After"] == str(backed_off.json["retry_after"])
    for _ in range(3):  # each further mistake doubles the wait
        earlier(api, 60)
        assert guess(api, wrong(code)).status_code == 401
    earlier(api, 60)
    limited = guess(api, code)  # six tries in the hour: not even the right code is tried
    assert limited.status_code == 429 and "from your address" in limited.json["message"]
    assert guess(api, code, remote="192.0.2.1").status_code == 201  # the owner, elsewhere
    earlier(api, 3600)
    assert guess(api, wrong(code)).status_code == 401  # an hour later, the address may again


@pytest.mark.postgres
def test_guesses_are_limited_overall(api, code):
    api.app.config["SIGNIN_GUESSES_PER_HOUR"] = 10
    for number in range(10):
        assert guess(api, wrong(code), remote=f"198.51.100.{number}").status_code == 401
    refused = guess(api, code, remote="192.0.2.1")
    assert refused.status_code == 429 and "from everyone" in refused.json["message"]
    earlier(api, 3600)
    assert guess(api, code, remote="192.0.2.1").status_code == 201


def test_a_right_code_is_not_counted(api, code):
    api.app.config["SIGNIN_GUESSES_PER_CLIENT"] = 1
    assert guess(api, code).status_code == 201
    api.client.post("/api/signin-codes", json={"email": ANN})
    assert guess(api, api.last_code(ANN)).status_code == 201


@pytest.mark.postgres
def test_registrations_are_limited_per_client_and_overall(api):
    api.app.config.update(SIGNUPS_PER_CLIENT=2, SIGNUPS_PER_HOUR=3)

    def register(name, remote):
        return api.client.post(
            "/api/players",
            json={"name": name, "email": f"{name}@example.com"},
            environ_base={"REMOTE_ADDR": remote},
        )

    assert register("ann", "192.0.2.1").status_code == 202
    assert register("bob", "192.0.2.1").status_code == 202
    per_client = register("cid", "192.0.2.1")
    assert per_client.status_code == 429 and per_client.json["error"] == "too_many_signups"
    assert register("cid", "192.0.2.2").status_code == 202
    overall = register("dan", "192.0.2.3")
    assert overall.status_code == 429 and "from everyone" in overall.json["message"]
    assert [mail.to_addr for mail in api.outbox()] == [
        "ann@example.com",
        "bob@example.com",
        "cid@example.com",
    ]


def test_code_requests_are_limited_per_client(api, code):
    api.app.config["CODE_REQUESTS_PER_CLIENT"] = 2
    for expected in (202, 202, 429):
        response = api.client.post(
            "/api/signin-codes", json={"email": "nobody@example.com"}, environ_base={}
        )
        assert response.status_code == expected


def test_forwarded_for_counts_only_behind_a_trusted_proxy(api, code):
    api.app.config["SIGNIN_GUESSES_PER_CLIENT"] = 1
    # untrusted: the header is the attacker's to choose, so the remote address counts
    assert guess(api, wrong(code), **{"X-Forwarded-For": "192.0.2.10"}).status_code == 401
    assert guess(api, wrong(code), **{"X-Forwarded-For": "192.0.2.11"}).status_code == 429


def test_behind_a_trusted_proxy_the_forwarded_client_counts(tmp_path):
    app = create_app({**TEST_CONFIG, "DATABASE_URL": "sqlite://", "TRUSTED_PROXIES": 1})
    SQLModel.metadata.create_all(get_engine(app))
    api = Api(app, app.test_client())
    api.client.post("/api/players", json={"name": "ann", "email": ANN})
    code = api.last_code(ANN)
    app.config["SIGNIN_GUESSES_PER_CLIENT"] = 1
    proxy = "127.0.0.1"  # nginx on this machine
    assert guess(api, wrong(code), proxy, **{"X-Forwarded-For": "192.0.2.10"}).status_code == 401
    assert guess(api, wrong(code), proxy, **{"X-Forwarded-For": "192.0.2.10"}).status_code == 429
    assert guess(api, code, proxy, **{"X-Forwarded-For": "192.0.2.11"}).status_code == 201
    get_engine(app).dispose()
