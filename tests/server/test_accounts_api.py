"""Players, sign-in codes, tokens and `me`: every success and every refusal."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session, select

from server.config import settings_of
from server.db import get_engine
from server.models import ApiToken, Player, SignInCode, utcnow


def register(api, name="ann", email="ann@example.com"):
    return api.client.post("/api/players", json={"name": name, "email": email})


def test_register_creates_player_and_mails_a_code(api):
    response = register(api, "Ann", "Ann@Example.com")
    assert response.status_code == 202
    assert response.json["name"] == "Ann"
    assert response.json["email"] == "ann@example.com"
    assert "a sign-in code is on its way" in response.json["message"]
    [mail] = api.outbox()
    assert mail.to_addr == "ann@example.com"
    assert mail.kind == "signin_code"
    code = api.last_code("ann@example.com")
    assert len(code) == 10
    assert code not in mail.subject and mail.subject == "Your Café International sign-in code"
    [(text, html)] = api.delivered("ann@example.com")
    assert f'"code": "{code}"' in text and code in html
    assert "http://cafe.test/api/tokens" in text
    link = f"http://cafe.test/signin/link/{api.last_code('ann@example.com', link=True)}"
    assert link in text and f'href="{link}"' in html


@pytest.mark.parametrize(
    "body",
    [
        {"email": "ann@example.com"},
        {"name": "ann"},
        {"name": 7, "email": "ann@example.com"},
        {"name": "", "email": "ann@example.com"},
        {"name": "has space", "email": "ann@example.com"},
        {"name": "9lives", "email": "ann@example.com"},
        {"name": "x" * 25, "email": "ann@example.com"},
        {"name": "ann\x00", "email": "ann@example.com"},
        {"name": "ann", "email": "not-an-email"},
        {"name": "ann", "email": ["ann@example.com"]},
    ],
)
def test_register_refuses_bad_fields(api, body):
    response = api.client.post("/api/players", json=body)
    assert response.status_code == 400
    assert response.json["error"] == "invalid_request"
    assert "`name`" in response.json["message"] or "`email`" in response.json["message"]
    assert api.outbox() == []


@pytest.mark.parametrize("data", [b"{", b"[1, 2]", b"\xff\xfe", b"null", b""])
def test_register_refuses_unreadable_bodies(api, data):
    response = api.client.post("/api/players", data=data, content_type="application/json")
    assert response.status_code == 400
    assert response.json["error"] in ("invalid_json", "invalid_request")


@pytest.mark.postgres
def test_register_refuses_a_taken_name_but_does_not_tell_a_taken_email(api):
    first = register(api)
    assert first.status_code == 202
    response = register(api, "ANN", "other@example.com")
    assert response.status_code == 409
    assert response.json["error"] == "name_taken"
    # an email that has an account: the same answer as for a new one, and a mail that says so
    again = register(api, "zoe", "ANN@example.com")
    new = register(api, "cid", "cid@example.com")
    assert again.status_code == new.status_code == 202
    assert again.json["message"].replace("ann@", "X@") == new.json["message"].replace("cid@", "X@")
    text, _ = api.delivered("ann@example.com")[-1]
    assert "already has an account" in text and "zoe" not in text
    code = api.last_code("ann@example.com")
    signed_in = api.client.post("/api/tokens", json={"email": "ann@example.com", "code": code})
    me = api.call("GET", "/api/me", signed_in.json["token"]).json
    assert me["name"] == "ann"  # no account was made or renamed
    # a taken name is refused whatever the email, so the answer never tells of the email
    assert register(api, "ann", "ann@example.com").json["error"] == "name_taken"
    assert register(api, "ann", "nobody@example.com").json["error"] == "name_taken"


def test_the_greeting_does_not_print_the_chosen_name(api):
    register(api, "www.evil.example", "ann@example.com")
    [(text, html)] = api.delivered("ann@example.com")
    assert "evil" not in text and "evil" not in html
    assert text.lstrip().startswith("Hello,")


@pytest.mark.postgres
def test_token_from_code_then_me(api):
    register(api)
    code = api.last_code("ann@example.com")
    response = api.client.post(
        "/api/tokens", json={"email": "ANN@example.com", "code": code, "label": "laptop"}
    )
    assert response.status_code == 201
    token = response.json["token"]
    assert token.startswith("cafe_")
    assert response.json["label"] == "laptop"
    me = api.call("GET", "/api/me", token)
    assert me.status_code == 200
    assert me.json["name"] == "ann"
    with Session(get_engine(api.app)) as session:
        stored = session.exec(select(ApiToken)).one()
    assert token not in stored.token_hash  # only the hash is kept
    assert len(stored.token_hash) == 64


def test_code_is_single_use(api):
    register(api)
    code = api.last_code("ann@example.com")
    body = {"email": "ann@example.com", "code": code}
    assert api.client.post("/api/tokens", json=body).status_code == 201
    response = api.client.post("/api/tokens", json=body)
    assert response.status_code == 401
    assert response.json["error"] == "invalid_code"


@pytest.mark.postgres
def test_wrong_guesses_by_others_do_not_lock_the_owner_out(api):
    register(api)
    code = api.last_code("ann@example.com")
    wrong = f"{(int(code) + 1) % 10**10:010d}"
    per_account = settings_of(api.app).signin_guesses_per_account
    for number in range(per_account + 5):  # from many addresses, as a botnet would
        for email in ("ann@example.com", "nobody@example.com"):  # the limit tells nothing
            response = api.client.post(
                "/api/tokens",
                json={"email": email, "code": wrong},
                environ_base={"REMOTE_ADDR": f"198.51.100.{number}"},
            )
            if number < per_account:
                assert response.json["error"] == "invalid_code"
            else:  # the short code of this address is closed for the day ...
                assert response.status_code == 429
                assert response.json["error"] == "too_many_account_guesses"
                assert "sign-in link" in response.json["message"]
    # ... but its link is not: no wrong guess can block it
    link = api.last_code("ann@example.com", link=True)
    response = api.client.post("/api/tokens", json={"email": "ann@example.com", "code": link})
    assert response.status_code == 201


def test_expired_code_is_refused(api):
    register(api)
    code = api.last_code("ann@example.com")
    with Session(get_engine(api.app)) as session:
        row = session.exec(select(SignInCode)).one()
        row.expires_at = utcnow() - timedelta(seconds=1)
        session.add(row)
        session.commit()
    response = api.client.post("/api/tokens", json={"email": "ann@example.com", "code": code})
    assert response.status_code == 401
    assert response.json["error"] == "invalid_code"


@pytest.mark.parametrize(
    "body",
    [
        {"email": "ann@example.com"},
        {"email": "ann@example.com", "code": "123456"},
        {"email": "ann@example.com", "code": "12345678901"},
        {"code": "1234567890"},
    ],
)
def test_token_request_needs_email_and_ten_digits(api, body):
    response = api.client.post("/api/tokens", json=body)
    assert response.status_code == 400


def test_token_for_unknown_email_is_refused_like_a_wrong_code(api):
    register(api)
    code = api.last_code("ann@example.com")
    wrong = f"{(int(code) + 1) % 10**10:010d}"
    unknown = api.client.post("/api/tokens", json={"email": "nobody@example.com", "code": code})
    mistaken = api.client.post("/api/tokens", json={"email": "ann@example.com", "code": wrong})
    assert unknown.status_code == mistaken.status_code == 401
    assert unknown.json == mistaken.json


@pytest.mark.postgres
def test_a_new_code_does_not_void_the_one_already_sent(api):
    register(api)
    old = api.last_code("ann@example.com")
    response = api.client.post("/api/signin-codes", json={"email": "ann@example.com"})
    assert response.status_code == 202
    assert response.json["sent_to"] == "ann@example.com"
    new = api.last_code("ann@example.com")
    for code in (old, new):
        accepted = api.client.post("/api/tokens", json={"email": "ann@example.com", "code": code})
        assert accepted.status_code == 201


def test_code_requests_for_one_player_neither_lock_out_nor_tell(api):
    register(api)  # the first code
    for number in range(8):  # someone else asks again and again, from many addresses
        response = api.client.post(
            "/api/signin-codes",
            json={"email": "ann@example.com"},
            environ_base={"REMOTE_ADDR": f"198.51.100.{number}"},
        )
        assert response.status_code == 202
    sent = [mail for mail in api.outbox() if mail.status == "sent"]
    assert len(sent) == settings_of(api.app).signin_codes_per_hour  # no more mail
    assert len(api.delivered("ann@example.com")) == len(sent)
    # every code in the owner's mailbox still works
    assert (
        api.client.post(
            "/api/tokens",
            json={"email": "ann@example.com", "code": api.last_code("ann@example.com")},
        ).status_code
        == 201
    )


def test_code_request_for_unknown_email_is_answered_alike(api):
    register(api)
    known = api.client.post("/api/signin-codes", json={"email": "ann@example.com"})
    unknown = api.client.post("/api/signin-codes", json={"email": "nobody@example.com"})
    assert unknown.status_code == known.status_code == 202
    assert unknown.json["message"].replace("nobody@", "X@") == known.json["message"].replace(
        "ann@", "X@"
    )
    assert api.outbox("nobody@example.com") == []
    bad = api.client.post("/api/signin-codes", json={"email": 3})
    assert bad.status_code == 400


@pytest.mark.postgres
def test_list_and_revoke_tokens(api):
    first = api.register("ann")
    api.client.post("/api/signin-codes", json={"email": "ann@example.com"})
    second = api.client.post(
        "/api/tokens", json={"email": "ann@example.com", "code": api.last_code("ann@example.com")}
    ).json
    listing = api.call("GET", "/api/tokens", first)
    assert listing.status_code == 200
    tokens = listing.json["tokens"]
    assert [t["id"] for t in tokens] == [second["id"], second["id"] - 1]
    assert [t["current"] for t in tokens] == [False, True]
    assert all("token" not in t for t in tokens)
    assert api.call("DELETE", f"/api/tokens/{second['id']}", first).status_code == 204
    assert api.call("DELETE", f"/api/tokens/{second['id']}", first).status_code == 204
    revoked = api.call("GET", "/api/me", second["token"])
    assert revoked.status_code == 401
    assert revoked.json["error"] == "invalid_token"
    assert api.call("GET", "/api/tokens", first).json["tokens"][0]["revoked"] is True


@pytest.mark.postgres
def test_revoking_someone_elses_or_unknown_token(api):
    ann = api.register("ann")
    bob = api.register("bob")
    bobs_id = api.call("GET", "/api/tokens", bob).json["tokens"][0]["id"]
    for token_id, code in (
        (bobs_id, "token_not_found"),
        (999, "token_not_found"),
        (2**40, "not_found"),
    ):
        response = api.call("DELETE", f"/api/tokens/{token_id}", ann)
        assert response.status_code == 404
        assert response.json["error"] == code  # past the database's range: no route's number
    assert api.call("GET", "/api/me", bob).status_code == 200


@pytest.mark.parametrize(
    "header", [None, "", "Bearer", "Bearer ", "Basic abc", "Bearer cafe_unknown", "cafe_x"]
)
def test_identity_is_required(api, header):
    headers = {} if header is None else {"Authorization": header}
    response = api.client.get("/api/me", headers=headers)
    assert response.status_code == 401
    assert response.json["error"] in ("missing_token", "invalid_token")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "email",
    ["<ann@s.example>", '"x"<ann@s.example>', "a,evil@b.cc", "müller@example.com"],
)
def test_only_one_bare_deliverable_address_registers(api, email):
    response = api.client.post("/api/players", json={"name": "ann", "email": email})
    assert response.status_code == 422, response.json  # well formed, not deliverable
    assert response.json["error"] == "invalid_email"
    assert response.json["message"].startswith("`email`")
    assert api.outbox() == []


def test_one_mailbox_is_one_player_however_it_is_typed(api):
    api.register("ann")
    again = api.client.post("/api/players", json={"name": "ann2", "email": "ANN@Example.COM"})
    assert again.status_code == 202  # answered alike; the mailbox's owner is told instead
    with Session(get_engine(api.app)) as session:
        assert [p.name for p in session.exec(select(Player)).all()] == ["ann"]
    before = len(api.outbox("ann@example.com"))
    code = api.client.post("/api/signin-codes", json={"email": " Ann@EXAMPLE.com "})
    assert code.status_code == 202
    assert len(api.outbox("ann@example.com")) == before + 1


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("first", "second"), [("Iris", "lris"), ("OO", "O0"), ("mary", "rnary"), ("Bill", "BiII")]
)
def test_a_name_that_looks_like_a_players_is_taken(api, first, second):
    assert register(api, first, "one@example.com").status_code == 202
    refused = register(api, second, "two@example.com")
    assert refused.status_code == 409 and refused.json["error"] == "name_taken"
    assert refused.json["message"] == (
        f"the name {second!r} looks too much like {first!r}, a player's name; choose another"
    )
    assert [mail.to_addr for mail in api.outbox()] == ["one@example.com"]
    assert register(api, "Iriss", "three@example.com").status_code == 202  # not alike
