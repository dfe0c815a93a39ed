"""The development mail viewer: `/dev/mail` lists and shows what the catcher caught, only
when `CAFE_DEV_MAIL` is on; and the mail settings are read from the environment."""

from __future__ import annotations

import html
import re
from email import message_from_bytes, policy

import pytest
from mail_support import deliver
from page_support import english_kept
from server_support import TEST_CONFIG, Api, free_port
from sqlmodel import SQLModel
from translation_support import MOJIBAKE

from server import config
from server.app import create_app
from server.db import get_engine
from server.devmail import CatchingHandler, start_catcher
from server.web.devmail import form_token

#: What `cafe-server dev` runs with: the viewer on, the development key.
DEV = {"DEV_MAIL": True, "DEVELOPMENT": True, "SECRET_KEY": config.DEV_SECRET_KEY}


def test_the_viewer_is_off_by_default(client):
    assert client.get("/dev/mail").status_code == 404
    assert "/dev/mail" not in client.get("/api/openapi.json").json["paths"]


def test_the_console_gets_one_line_per_email_with_a_sign_in_code(api, tmp_path):
    lines: list[str] = []
    port = free_port()
    controller = start_catcher(
        CatchingHandler(tmp_path, echo=lines.append), host="127.0.0.1", port=port
    )
    try:
        api.started_game("ann", "bob")
        deliver(api.app, port)
    finally:
        controller.stop()
    assert all("\n" not in line for line in lines) and len(lines) == 6
    assert re.fullmatch(
        r"mail 1 to ann@example.com: Your Café International sign-in code — code \d{10}  "
        r"\(/dev/mail/1\)",
        lines[0],
    )
    full = "Café · game 1: the table is full, the game has started"  # ann started it since
    assert lines[2] == f"mail 3 to ann@example.com: {full}  (/dev/mail/3)"
    assert "the game has started  (/dev/mail/" in lines[4]
    assert len(list(tmp_path.glob("*.eml"))) == 6  # the whole emails


def test_the_viewer_lists_and_shows_caught_mail(tmp_path):
    folder = tmp_path / "mail"
    app = create_app(
        {
            **TEST_CONFIG,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'dev.db'}",
            **DEV,
            "DEV_MAIL_DIR": str(folder),
        }
    )
    SQLModel.metadata.create_all(get_engine(app))
    api = Api(app, app.test_client())
    port = free_port()
    controller = start_catcher(CatchingHandler(folder), host="127.0.0.1", port=port)
    try:
        assert "No mail yet" in api.client.get("/dev/mail").text
        api.started_game("ann", "bob")
        deliver(app, port)
    finally:
        controller.stop()
    listing = api.client.get("/dev/mail")
    assert listing.status_code == 200
    assert "Your Café International sign-in code" in listing.text
    assert "game 1 with bob: the game has started" in listing.text
    shown = api.client.get("/dev/mail/1")
    assert shown.status_code == 200
    assert "ann@example.com" in shown.text and "sign-in code is" in shown.text
    assert 'sandbox=""' in shown.text and "srcdoc=" in shown.text  # the HTML part, framed
    assert api.client.get("/dev/mail/999").status_code == 404
    assert "/dev/mail/{number}" in api.client.get("/api/openapi.json").json["paths"]
    caught = sorted(folder.glob("*.eml"))
    restarted = start_catcher(CatchingHandler(folder), host="127.0.0.1", port=port)
    try:  # a restarted catcher goes on numbering: nothing caught before is overwritten
        api.client.post("/api/signin-codes", json={"email": "ann@example.com"})
        deliver(app, port)
    finally:
        restarted.stop()
    assert sorted(folder.glob("*.eml"))[: len(caught)] == caught
    assert len(list(folder.glob("*.eml"))) == len(caught) + 1
    assert api.client.get(f"/dev/mail/{len(caught) + 1}").text.count("sign-in code") >= 1
    get_engine(app).dispose()


def test_a_caught_game_email_can_be_answered_from_its_page(tmp_path):
    folder = tmp_path / "mail"
    app = create_app(
        {
            **TEST_CONFIG,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'dev.db'}",
            **DEV,
            "DEV_MAIL_DIR": str(folder),
        }
    )
    SQLModel.metadata.create_all(get_engine(app))
    api = Api(app, app.test_client())
    port = free_port()
    controller = start_catcher(CatchingHandler(folder), host="127.0.0.1", port=port)
    try:
        game_id, tokens = api.started_game("ann", "bob")
        deliver(app, port)
        listing = api.client.get("/dev/mail").text
        number = max(
            int(path.stem)
            for path in folder.glob("*.eml")
            if message_from_bytes(path.read_bytes(), policy=policy.default)["Subject"].endswith(
                "your turn"
            )
        )
        page = api.client.get(f"/dev/mail/{number}").text
        assert "Answer it" in page and 'name="text"' in page
        token = re.search(r'name="token" value="([^"]+)"', page).group(1)
        forged = api.client.post(f"/dev/mail/{number}/reply", data={"text": "1"})
        assert forged.status_code == 400 and "not answered" in forged.text  # no token: nothing
        other = api.client.post("/dev/mail/1/reply", data={"text": "1", "token": token})
        assert other.status_code == 400 and "not answered" in other.text  # another page's
        assert api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["turns"] == 0
        answered = api.client.post(f"/dev/mail/{number}/reply", data={"text": "1", "token": token})
        assert answered.status_code == 200 and "applied" in answered.text
        state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
        assert state["turns"] == 1
        signin_token = re.search(
            r'name="token" value="([^"]+)"', api.client.get("/dev/mail/1").text
        )
        assert signin_token is None  # a sign-in email has no reply form
        with app.app_context():
            signin_form = {"text": "1", "token": form_token(1)}
        signin = api.client.post("/dev/mail/1/reply", data=signin_form)
        assert signin.status_code == 400 and "no reply address" in signin.text
        assert "your turn" in listing
    finally:
        controller.stop()
    get_engine(app).dispose()


def test_mail_settings_from_the_environment(tmp_path):
    settings = config.load(
        tmp_path,
        environ={"CAFE_DEV_MAIL": "1", "CAFE_MAIL_PER_MINUTE": "3", "CAFE_MAIL_DOMAIN": "x.test"},
        overrides={"DEVELOPMENT": True},
    )
    assert settings.dev_mail is True and settings.mail_per_minute == 3
    assert settings.mail_domain == "x.test"
    defaults = config.load(
        tmp_path,
        environ={"CAFE_MAIL_FROM": "Cafe <cafe@mail.example>"},
        overrides={"DEVELOPMENT": True},
    )
    assert defaults.dev_mail is False
    assert defaults.mail_domain == "mail.example"  # MAIL_FROM's domain
    assert defaults.dev_mail_dir == str(tmp_path / "mail")
    with pytest.raises(config.ConfigError, match="CAFE_DEV_MAIL"):
        config.load(tmp_path, environ={"CAFE_DEV_MAIL": "maybe"}, overrides={"DEVELOPMENT": True})


@pytest.fixture
def dev_app(tmp_path):
    """The app as `cafe-server dev` makes it, with one caught message."""
    folder = tmp_path / "mail"
    folder.mkdir()
    (folder / "00001.eml").write_bytes(b"To: ann@example.com\r\nSubject: code 1234\r\n\r\nhi\r\n")
    return create_app(
        {**TEST_CONFIG, **DEV, "DEV_MAIL_DIR": str(folder), "DATABASE_URL": "sqlite://"}
    )


def test_the_viewer_answers_only_this_machine(dev_app):
    client = dev_app.test_client()
    assert client.get("/dev/mail/1").status_code == 200
    for remote in ("192.0.2.7", "10.0.0.1", "::ffff:203.0.113.9"):
        away = client.get("/dev/mail/1", environ_base={"REMOTE_ADDR": remote})
        assert away.status_code == 404, remote
        posted = client.post("/dev/mail/1/reply", environ_base={"REMOTE_ADDR": remote})
        assert posted.status_code == 404, remote
    # a proxy on this machine forwards requests from anywhere
    proxied = client.get("/dev/mail", headers={"X-Forwarded-For": "198.51.100.4"})
    assert proxied.status_code == 404
    assert client.get("/dev/mail", environ_base={"REMOTE_ADDR": "::1"}).status_code == 200


def test_the_viewer_needs_the_development_key(tmp_path):
    # CAFE_DEV_MAIL=yes under gunicorn: the production key keeps the pages away
    app = create_app({**TEST_CONFIG, "DEV_MAIL": True, "DEV_MAIL_DIR": str(tmp_path)})
    assert app.test_client().get("/dev/mail").status_code == 404
    # and the development key is refused outside `cafe-server dev`
    with pytest.raises(config.ConfigError, match="CAFE_SECRET_KEY"):
        create_app({**TEST_CONFIG, "DEV_MAIL": True, "SECRET_KEY": config.DEV_SECRET_KEY})


#: Two caught messages: a sign-in email (no reply address) and a game email one answers.
CAUGHT = {
    1: b"From: cafe@localhost\r\nTo: ann@example.com\r\nSubject: Your sign-in code\r\n"
    b"Date: Thu, 05 Mar 2026 10:00:00 +0000\r\n\r\nYour code is here.\r\n",
    2: b"From: cafe@localhost\r\nTo: bob@example.com\r\nSubject: Game 7: your turn\r\n"
    b"Reply-To: nobody-at-all@localhost\r\nMessage-ID: <2@localhost>\r\n"
    b"Date: Thu, 05 Mar 2026 10:00:00 +0000\r\n\r\nIt is your turn in game 7.\r\n",
}
#: The caught messages' own words (the language they were sent in), and the email format's.
MAIL_WORDS = ("Your sign-in code", "Your code is here.", "Game 7: your turn",
              "It is your turn in game 7.", "Thu, 05 Mar 2026 10:00:00 +0000")  # fmt: skip
HEADERS = ("From", "To", "Subject", "Date", "Reply-To", "Message-ID")


def viewer_pages(app, language: str) -> dict[str, str]:
    """Every page of the viewer, and each answer to a reply, in `language`."""
    client = app.test_client()
    said = {"Accept-Language": language}
    with app.app_context():
        token = form_token(1)
    stale = {"text": "1", "token": token}  # mail 1's token, sent to mail 2's form
    with app.app_context():
        answer = {"text": "1", "token": form_token(2)}
    pages = {
        "list": client.get("/dev/mail", headers=said),
        "sign-in mail": client.get("/dev/mail/1", headers=said),
        "game mail": client.get("/dev/mail/2", headers=said),
        "stale form": client.post("/dev/mail/2/reply", data=stale, headers=said),
        "no reply address": client.post("/dev/mail/1/reply", data=stale, headers=said),
        "answered": client.post("/dev/mail/2/reply", data=answer, headers=said),
    }
    assert [p.status_code for p in pages.values()] == [200, 200, 200, 400, 400, 200]
    return {name: page.text for name, page in pages.items()}


@pytest.mark.parametrize("language", ["cs", "de", "ru"])
def test_the_viewer_speaks_the_readers_language(tmp_path, language):
    """The viewer's own words in the reader's language: none of the English is left but the
    caught messages' (written in their recipient's language), the header names of the email
    format and the note the mail-in log keeps."""
    folder = tmp_path / "mail"
    folder.mkdir()
    for number, raw in CAUGHT.items():
        (folder / f"{number:05d}.eml").write_bytes(raw)
    app = create_app(
        {
            **TEST_CONFIG,
            **DEV,
            "DEV_MAIL_DIR": str(folder),
            "DATABASE_URL": f"sqlite:///{tmp_path / 'dev.db'}",
        }
    )
    SQLModel.metadata.create_all(get_engine(app))
    english, translated = viewer_pages(app, "en"), viewer_pages(app, language)
    note = re.search(r"<p>In the log: (.*?)</p>", english["answered"])
    assert note, english["answered"]
    for name, page in translated.items():
        assert f'<html lang="{language}">' in page
        not_ours = (*MAIL_WORDS, html.unescape(note.group(1)))
        left = english_kept(english[name], page, not_ours, HEADERS)
        assert not left, (name, left)
        assert not MOJIBAKE.search(page), name
    missing = app.test_client().get("/dev/mail/999", headers={"Accept-Language": language})
    assert missing.status_code == 404 and "/dev/mail" in missing.text
    assert "no caught message 999" not in missing.text
    get_engine(app).dispose()
