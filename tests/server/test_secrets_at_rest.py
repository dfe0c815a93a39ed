"""Nothing secret at rest: after a sign-in (the code mailed, delivered and exchanged for a
token) and the retention pass the worker runs, neither the code nor the token is in the
database file, the logs or the mail folder — nor in any row, on PostgreSQL too."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from mail_support import deliver
from sqlalchemy import text
from sqlmodel import Session, SQLModel

from server.config import settings_of
from server.db import get_engine
from server.jobs import retention
from server.models import utcnow
from server.postbox.addresses import unsubscribe_token


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"


def sign_in(api, port: int) -> tuple[str, str]:
    """Register ann, deliver her code, exchange it; the code and the token."""
    api.client.post("/api/players", json={"name": "ann", "email": "ann@example.com"})
    code = api.last_code("ann@example.com")
    deliver(api.app, port)
    response = api.client.post("/api/tokens", json={"email": "ann@example.com", "code": code})
    assert response.status_code == 201
    with api.app.app_context(), Session(get_engine(api.app)) as session:
        retention.purge(session, settings_of(api.app), utcnow())  # the worker's scheduled pass
    return code, response.json["token"]


def every_row(app) -> str:
    """Every value of every table, as text."""
    found = []
    with get_engine(app).connect() as connection:
        for table in SQLModel.metadata.sorted_tables:
            found += [repr(tuple(row)) for row in connection.execute(table.select())]
    return "\n".join(found)


@pytest.mark.postgres
def test_no_row_holds_the_code_or_the_token(api, smtp_server, caplog):
    with caplog.at_level(logging.INFO):
        code, token = sign_in(api, smtp_server[1])
    stored = every_row(api.app)
    assert "ann@example.com" in stored  # the scan does see the rows
    assert code not in stored and token not in stored
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "POST /api/tokens 201" in logged  # the scan does see the log
    assert code not in logged and token not in logged
    delivered = smtp_server[0].messages[0].get_body().get_content()
    assert code in delivered  # the mail itself did carry it


def test_no_file_holds_the_code_or_the_token(api, smtp_server, tmp_path):
    code, token = sign_in(api, smtp_server[1])
    with get_engine(api.app).connect() as connection:  # the file is in use, as in a backup
        assert connection.execute(text("SELECT count(*) FROM players")).scalar() == 1
    files = [p for p in Path(tmp_path).rglob("*") if p.is_file()]
    assert any(p.name == "cafe.db" for p in files)
    mail_folder = Path(settings_of(api.app).dev_mail_dir)
    files += [p for p in mail_folder.rglob("*") if p.is_file()] if mail_folder.exists() else []
    for path in files:
        content = path.read_bytes()
        assert code.encode() not in content, path
        assert token.encode() not in content, path


def _database_files(tmp_path: Path) -> dict[str, bytes]:
    """The SQLite database's files as they are now: the database, its write-ahead log and
    the log's index (a copy of the folder, as a backup would take)."""
    found = {p.name: p.read_bytes() for p in Path(tmp_path).glob("cafe.db*") if p.is_file()}
    assert {"cafe.db", "cafe.db-wal"} <= set(found)  # the scan does see the log
    return found


def test_no_database_file_ever_holds_a_usable_code(api, smtp_server, tmp_path):
    """Without the retention pass: the write-ahead log keeps every page the service wrote,
    so a code written anywhere, even for a moment, would be there."""
    api.client.post("/api/players", json={"name": "ann", "email": "ann@example.com"})
    waiting = _database_files(tmp_path)  # the email asked for, not yet rendered
    deliver(api.app, smtp_server[1])
    [mail] = smtp_server[0].messages
    text = str(mail.get_body(preferencelist=("plain",)).get_content()).replace("\r\n", "\n")
    code = re.search(r"^\s+(\d{10})$", text, re.MULTILINE).group(1)  # type: ignore[union-attr]
    link = re.search(r"/signin/link/([\w-]+)", text).group(1)  # type: ignore[union-attr]
    sent = _database_files(tmp_path)
    used = api.client.post("/api/tokens", json={"email": "ann@example.com", "code": code})
    assert used.status_code == 201
    for files in (waiting, sent, _database_files(tmp_path)):
        for name, content in files.items():
            assert code.encode() not in content, name
            assert link.encode() not in content and link[22:].encode() not in content, name


def test_the_request_log_shows_no_unsubscribe_token(api, caplog):
    api.register("ann")
    token = unsubscribe_token(settings_of(api.app).secret_key, 1)
    with caplog.at_level(logging.INFO, logger="server.request"):
        assert api.client.get(f"/unsubscribe/{token}").status_code == 200
    [line] = [r.getMessage() for r in caplog.records if r.name == "server.request"]
    assert line.startswith("GET /unsubscribe/<token> 200") and token not in line
