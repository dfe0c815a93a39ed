"""Helpers shared by the service tests (imported by `conftest.py` and test modules)."""

from __future__ import annotations

import re
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from signin_support import mailed_code
from smtp_support import Catchers
from sqlalchemy import event, func
from sqlmodel import Session, col, select

from server import config
from server.config import settings_of
from server.db import get_engine
from server.devmail import CatchingHandler
from server.jobs.worker import Worker
from server.models import OutboxMessage

TEST_CONFIG = {
    "SECRET_KEY": "test-secret-of-at-least-thirty-two-bytes",
    # every test client is 127.0.0.1: the per-client limits are tested on their own
    "SIGNUPS_PER_CLIENT": 10_000,
    "CODE_REQUESTS_PER_CLIENT": 10_000,
    "SIGNIN_GUESSES_PER_CLIENT": 10_000,
    "BASE_URL": "http://cafe.test",
    "MAIL_FROM": "Cafe <cafe@cafe.test>",
    "LOG_LEVEL": "WARNING",
}


def reconfigure(app: Flask, **changes: Any) -> None:
    """Change some of `app`'s settings (keyed `SMTP_PORT=…`), as a restart with them would."""
    config.attach(app, settings_of(app).replace(**changes))


def in_transaction(dbapi_connection: Any) -> bool:
    """Whether a driver connection (psycopg or sqlite3) is inside a transaction."""
    info = getattr(dbapi_connection, "info", None)  # psycopg's; sqlite3 has none
    if info is not None and hasattr(info, "transaction_status"):
        return info.transaction_status.name != "IDLE"
    return dbapi_connection.in_transaction


@contextmanager
def transaction_states(
    app: Flask, only: Callable[[str], bool] = lambda _statement: True
) -> Iterator[list[bool]]:
    """For each SQL statement the app runs inside the block (those `only` selects), whether
    it ran inside a transaction."""
    states: list[bool] = []

    def record(conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if only(statement):
            states.append(in_transaction(conn.connection.dbapi_connection))

    engine = get_engine(app)
    event.listen(engine, "after_cursor_execute", record)
    try:
        yield states
    finally:
        event.remove(engine, "after_cursor_execute", record)


def openapi_path(rule: str) -> str:
    """`/api/games/<int:game_id>` as OpenAPI writes it: `/api/games/{game_id}`."""
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule)


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Api:
    """Shortcuts for the steps most tests need before the one they test."""

    def __init__(self, app: Flask, client: FlaskClient) -> None:
        self.app = app
        self.client = client
        self._catchers = Catchers()
        self._port: int | None = None
        self.sink = CatchingHandler()

    def close(self) -> None:
        """Stop the SMTP sink, if one was started."""
        self._catchers.stop_all()
        self._port = None

    def send_events(self) -> None:
        """Render and send the pending events of game changes as the worker does (to a local
        SMTP sink, without the recipient limit), so that their rows show what was sent."""
        engine = get_engine(self.app)
        with Session(engine) as session:
            waiting = session.exec(
                select(func.count()).where(
                    col(OutboxMessage.body).is_(None), OutboxMessage.status == "pending"
                )
            ).one()
        if not waiting:
            return
        if self._port is None:
            _, self._port = self._catchers.start(self.sink)
        config = settings_of(self.app).replace(SMTP_PORT=self._port, MAIL_PER_MINUTE=0)
        worker = Worker(engine, config)
        while worker.run_once():
            pass

    def outbox(self, to: str | None = None) -> list[OutboxMessage]:
        """The emails, oldest first (optionally only those to `to`: not the events dropped
        unsent), once the pending events are sent (`send_events`)."""
        self.send_events()
        with Session(get_engine(self.app)) as session:
            query = select(OutboxMessage).order_by(col(OutboxMessage.id))
            if to is not None:
                query = query.where(
                    OutboxMessage.to_addr == to,
                    col(OutboxMessage.status).not_in(("superseded", "skipped")),
                )
            return list(session.exec(query).all())

    def delivered(self, to: str) -> list[tuple[str, str]]:
        """The plain text and the HTML of each email delivered to `to`, oldest first (once
        the pending mail is sent, `send_events`): what a reader sees, which the outbox does
        not keep of a sign-in email."""
        self.send_events()
        return [
            (
                str(mail.get_body(preferencelist=("plain",)).get_content()),  # type: ignore[union-attr]
                str(mail.get_body(preferencelist=("html",)).get_content()),  # type: ignore[union-attr]
            )
            for mail in self.sink.messages
            if mail["To"] == to
        ]

    def last_code(self, email: str, *, link: bool = False) -> str:
        """The sign-in code (`link`: the sign-in link's code) of the newest sign-in email to
        `email`, as the email shows it (`signin_support`)."""
        return mailed_code(get_engine(self.app), settings_of(self.app), email, link=link)

    def register(self, name: str) -> str:
        """Register `name` (email `name@example.com`) and sign in; the bearer token."""
        email = f"{name}@example.com"
        response = self.client.post("/api/players", json={"name": name, "email": email})
        assert response.status_code == 202, response.json
        response = self.client.post(
            "/api/tokens", json={"email": email, "code": self.last_code(email)}
        )
        assert response.status_code == 201, response.json
        return response.json["token"]

    def call(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
        """A request with `token` as bearer."""
        headers = dict(kwargs.pop("headers", {}))
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return self.client.open(path, method=method, headers=headers, **kwargs)

    def started_game(self, *names: str, **create: Any) -> tuple[int, dict[str, str]]:
        """A started game of `names` (the first creates it); its id and everyone's token."""
        tokens = {name: self.register(name) for name in names}
        body = {"seats": len(names), **create}
        game = self.call("POST", "/api/games", tokens[names[0]], json=body).json
        for name in names[1:]:
            assert (
                self.call("POST", f"/api/games/{game['id']}/join", tokens[name]).status_code == 200
            )
        assert (
            self.call("POST", f"/api/games/{game['id']}/start", tokens[names[0]]).status_code == 200
        )
        return game["id"], tokens

    def play_best(self, game_id: int, tokens: dict[str, str]) -> dict[str, Any]:
        """The player to move plays their best turn (the first hint); the 201's body."""
        viewer = next(iter(tokens.values()))
        state = self.call("GET", f"/api/games/{game_id}", viewer).json
        token = tokens[state["to_move"]]
        hint = self.call("GET", f"/api/games/{game_id}/hints?n=1", token).json["hints"][0]
        body = {"turn": hint["turn"], "version": state["version"]}
        played = self.call("POST", f"/api/games/{game_id}/turns", token, json=body)
        assert played.status_code == 201, played.json
        result: dict[str, Any] = played.json
        return result


def csrf_of(html: str) -> str:
    """The CSRF token of a page's form."""
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html
    return found.group(1)


def web_sign_in(api: Api, name: str) -> None:
    """Sign `name` in on the test client's cookie jar, as the sign-in page does."""
    form = api.client.get("/signin").text
    email = f"{name}@example.com"
    sent = api.client.post("/signin", data={"csrf": csrf_of(form), "email": email, "next": "/"})
    assert sent.status_code == 200 and "The code from the email" in sent.text
    done = api.client.post(
        "/signin/code",
        data={"csrf": csrf_of(sent.text), "email": email, "code": api.last_code(email)},
    )
    assert done.status_code == 303 and done.headers["Location"] == "/"


def signed_in(api: Api, name: str) -> FlaskClient:
    """A test client of its own with `name` signed in through the sign-in page."""
    client = api.app.test_client()
    shared, api.client = api.client, client
    try:
        web_sign_in(api, name)
    finally:
        api.client = shared
    return client


def walk(viewers: dict[str, FlaskClient], paths: list[str], state: str) -> None:
    """Every page for every viewer: 200, HTML, no error page."""
    for who, client in viewers.items():
        for path in paths:
            page = client.get(path)
            assert page.status_code == 200, f"{path} as {who} ({state}): {page.status_code}"
            assert page.mimetype == "text/html" and "<h1>" in page.text, (path, who, state)
