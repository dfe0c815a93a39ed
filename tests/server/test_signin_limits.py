"""Limits on what an attacker repeats — sign-in guesses, registrations, code requests —
counted per client address and overall (`server.throttle`), never per victim."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from server_support import TEST_CONFIG, Api, reconfigure
from sqlmodel import Session, SQLModel, select

from server.app import create_app
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
    reconfigure(api.app, SIGNIN_GUESSES_PER_CLIENT=6)
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
def test_guesses_are_limited_per_account_and_the_link_stays_open(api, code):
    reconfigure(api.app, SIGNIN_GUESSES_PER_ACCOUNT=4)
    for number in range(4):  # strangers, each from an address of their own
        assert guess(api, wrong(code), remote=f"198.51.100.{number}").status_code == 401
    refused = guess(api, code, remote="192.0.2.1")  # the owner's short code: closed today
    assert refused.status_code == 429 and refused.json["error"] == "too_many_account_guesses"
    assert "sign-in link" in refused.json["message"]
    assert guess(api, api.last_code(ANN, link=True), remote="192.0.2.1").status_code == 201
    earlier(api, 24 * 3600)
    api.client.post("/api/signin-codes", json={"email": ANN})
    assert guess(api, api.last_code(ANN), remote="192.0.2.1").status_code == 201  # a day later


def test_after_a_guessing_attack_everyone_signs_in_at_once():
    """The attack of issue 21 through a proxy: 1,000 wrong guesses from 334 addresses
    (X-Forwarded-For, CAFE_TRUSTED_PROXIES=1), some at the owner's account, most at
    others'; the default limits. It stops nobody's sign-in: another player signs in with
    the short code, and the owner, whose short code the attack closed, with the link."""
    app = create_app(
        {
            "SECRET_KEY": TEST_CONFIG["SECRET_KEY"],
            "BASE_URL": TEST_CONFIG["BASE_URL"],
            "LOG_LEVEL": "WARNING",
            "DATABASE_URL": "sqlite://",
            "TRUSTED_PROXIES": 1,
            "SIGNUPS_PER_CLIENT": 100,
        }
    )
    SQLModel.metadata.create_all(get_engine(app))
    api = Api(app, app.test_client())
    for name in ("ann", "bob"):
        api.client.post("/api/players", json={"name": name, "email": f"{name}@example.com"})
    code = api.last_code(ANN)
    answers: dict[int, int] = {}
    for number in range(1000):
        remote = f"10.{number % 334 // 250}.{number % 334 % 250}.1"
        target = ANN if number % 10 == 0 else f"victim{number}@example.com"
        response = guess(api, wrong(code), "127.0.0.1", target, **{"X-Forwarded-For": remote})
        answers[response.status_code] = answers.get(response.status_code, 0) + 1
    assert answers[401] >= 900 and set(answers) <= {401, 429}  # every guess was tried
    started = time.monotonic()
    bob = guess(api, api.last_code("bob@example.com"), "127.0.0.1", "bob@example.com")
    assert bob.status_code == 201  # another player's short code works
    closed = guess(api, code, "127.0.0.1", ANN, **{"X-Forwarded-For": "192.0.2.7"})
    assert closed.status_code == 429  # the owner's was guessed at too often today ...
    link = api.last_code(ANN, link=True)
    owner = guess(api, link, "127.0.0.1", ANN, **{"X-Forwarded-For": "192.0.2.7"})
    assert owner.status_code == 201  # ... the link lets her in all the same
    assert time.monotonic() - started < 60
    get_engine(app).dispose()


def test_a_right_code_is_not_counted(api, code):
    reconfigure(api.app, SIGNIN_GUESSES_PER_CLIENT=1)
    assert guess(api, code).status_code == 201
    api.client.post("/api/signin-codes", json={"email": ANN})
    assert guess(api, api.last_code(ANN)).status_code == 201


@pytest.mark.postgres
def test_registrations_are_limited_per_client_and_overall(api):
    reconfigure(api.app, SIGNUPS_PER_CLIENT=2, SIGNUPS_PER_HOUR=3)

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
    reconfigure(api.app, CODE_REQUESTS_PER_CLIENT=2)
    for expected in (202, 202, 429):
        response = api.client.post(
            "/api/signin-codes", json={"email": "nobody@example.com"}, environ_base={}
        )
        assert response.status_code == expected


def test_forwarded_for_counts_only_behind_a_trusted_proxy(api, code):
    reconfigure(api.app, SIGNIN_GUESSES_PER_CLIENT=1)
    # untrusted: the header is the attacker's to choose, so the remote address counts
    assert guess(api, wrong(code), **{"X-Forwarded-For": "192.0.2.10"}).status_code == 401
    assert guess(api, wrong(code), **{"X-Forwarded-For": "192.0.2.11"}).status_code == 429


def test_behind_a_trusted_proxy_the_forwarded_client_counts(tmp_path):
    app = create_app({**TEST_CONFIG, "DATABASE_URL": "sqlite://", "TRUSTED_PROXIES": 1})
    SQLModel.metadata.create_all(get_engine(app))
    api = Api(app, app.test_client())
    api.client.post("/api/players", json={"name": "ann", "email": ANN})
    code = api.last_code(ANN)
    reconfigure(app, SIGNIN_GUESSES_PER_CLIENT=1)
    proxy = "127.0.0.1"  # nginx on this machine
    assert guess(api, wrong(code), proxy, **{"X-Forwarded-For": "192.0.2.10"}).status_code == 401
    assert guess(api, wrong(code), proxy, **{"X-Forwarded-For": "192.0.2.10"}).status_code == 429
    assert guess(api, code, proxy, **{"X-Forwarded-For": "192.0.2.11"}).status_code == 201
    get_engine(app).dispose()
