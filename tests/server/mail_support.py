"""Helpers for the email tests: read the HTML board back, check the text width, deliver the
outbox to a real SMTP server, and write replies the way mail programs do."""

from __future__ import annotations

import functools
import importlib.util
import re
import smtplib
from email.message import EmailMessage
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from cafe.render.common import display_width
from server.config import settings_of
from server.db import get_engine
from server.jobs.worker import Worker
from server.mail import events
from server.models import GameRecord, OutboxMessage, utcnow

#: The widest line of a text part (RFC 5322, 2.1.1, says lines SHOULD be no longer).
TEXT_WIDTH = 78
#: A line that is one link and nothing else: it cannot be broken, so it may be wider.
LONE_LINK = re.compile(r"\s*(https?://\S+|[^\s@]+@\S+)")
#: The list of sample emails, one of every kind the package ships (and checks that it is).
SAMPLES = Path(__file__).resolve().parents[2] / ".ci" / "render_every_email.py"


class Cells(HTMLParser):
    """Every element with a `title`, and its text: how the HTML board names its cells."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[str, str] = {}
        self.text: list[str] = []
        self._open: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "meta", "hr", "img"):
            return
        self._open.append((tag, dict(attrs).get("title")))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            opened, _ = self._open.pop()
            if opened == tag:
                break

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        titled = next((title for _, title in reversed(self._open) if title), None)
        if titled is not None and data.strip():
            self.cells[titled] = self.cells.get(titled, "") + data.strip()


def read_html(html: str) -> Cells:
    """Parse an HTML part with the standard library's parser (which must accept it)."""
    cells = Cells()
    cells.feed(html)
    cells.close()
    return cells


def board_in_html(html: str) -> tuple[dict[str, str], list[str]]:
    """The seated chairs (number -> tile) and the bar (stool order) an HTML part shows."""
    cells = read_html(html).cells
    chairs = {
        title.split()[1]: text
        for title, text in cells.items()
        if title.startswith("chair ") and not text.isdigit()
    }
    stools = sorted(
        (int(title.split()[1]), text)
        for title, text in cells.items()
        if title.startswith("stool ") and not text.lstrip("+-").isdigit()
    )
    return chairs, [tile for _, tile in stools]


def too_wide(text: str) -> list[str]:
    """The lines of a text part wider than `TEXT_WIDTH` columns, but for a lone link."""
    return [
        line
        for line in text.splitlines()
        if display_width(line) > TEXT_WIDTH and not LONE_LINK.fullmatch(line)
    ]


def assert_text_fits(text: str) -> None:
    """Every line of a text part within `TEXT_WIDTH` columns (a lone link aside)."""
    wide = too_wide(text)
    assert not wide, wide


@functools.cache
def sample_emails() -> ModuleType:
    """`.ci/render_every_email.py`, whose `builders()` build one email of every kind: the
    one list of sample emails, for the wheel check and every test that goes over the kinds
    (loaded once)."""
    spec = importlib.util.spec_from_file_location("render_every_email", SAMPLES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def deliver(app: Any, port: int, **config: Any) -> int:
    """Run a worker against the SMTP server on `port` until nothing is due; messages handled."""
    worker = Worker(get_engine(app), settings_of(app).replace(SMTP_PORT=port, **config))
    handled = 0
    while count := worker.run_once():
        handled += count
    return handled


def make_due(app: Any) -> None:
    """Every pending message due now (instead of waiting out the backoff)."""
    with Session(get_engine(app)) as session:
        session.execute(
            update(OutboxMessage)
            .where(OutboxMessage.status == "pending")  # type: ignore[arg-type]
            .values(available_at=utcnow())
        )
        session.commit()


def game_row(app: Any, game_id: int) -> GameRecord:
    with Session(get_engine(app)) as session:
        game = session.get(GameRecord, game_id)
        assert game is not None
        return game


def render_notices(app: Any) -> None:
    """Render the pending notices (`server.mail.notices`) into their rows as the worker
    will when it sends them (`server.mail.events`), leaving them pending: the rows then
    show what will be sent."""
    engine = get_engine(app)
    with Session(engine) as session:
        waiting = session.exec(
            select(OutboxMessage).where(
                col(OutboxMessage.payload).is_not(None),
                col(OutboxMessage.body).is_(None),
                OutboxMessage.status == "pending",
            )
        ).all()
        session.expunge_all()
    if not waiting:
        return
    prepared = events.prepare(engine, settings_of(app), waiting)
    assert not prepared.broken and not prepared.dropped, (prepared.broken, prepared.dropped)
    with Session(engine) as session:
        for row in prepared.ready:
            session.merge(row)
        session.commit()


def outbox_rows(app: Any, kind: str | None = None) -> list[OutboxMessage]:
    """The outbox, oldest first (optionally only the rows of `kind`), the pending notices
    rendered (`render_notices`); the events of game changes as they were queued."""
    render_notices(app)
    with Session(get_engine(app)) as session:
        query = select(OutboxMessage).order_by(OutboxMessage.id)  # type: ignore[arg-type]
        if kind is not None:
            query = query.where(OutboxMessage.kind == kind)
        return list(session.exec(query).all())


def reply_message(
    to: str,
    text: str | None,
    *,
    message_id: str = "<reply-1@mail.example>",
    sender: str = "Player <player@mail.example>",
    html: str | None = None,
    charset: str = "utf-8",
) -> EmailMessage:
    """A reply as a mail program writes it: plain text, HTML-only, or both."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "Re: Café International game: your turn"
    message["Message-ID"] = message_id
    if text is not None:
        message.set_content(text, charset=charset)
        if html is not None:
            message.add_alternative(html, subtype="html")
    elif html is not None:
        message.set_content(html, subtype="html")
    return message


def send(port: int, message: EmailMessage) -> None:
    """Deliver `message` over real SMTP to the receiver on `port`, addressed as its `To`."""
    with smtplib.SMTP("127.0.0.1", port) as smtp:
        assert smtp.send_message(message, "player@mail.example", [message["To"]]) == {}
