"""Replies written by real mail clients (`tests/data/reply-corpus`, whose README says where
each comes from, under which licence, and how they are annotated), replayed against a live
game over real SMTP: the player's answer goes where the author's own text was, the "your
turn" email where the quote was. Every answer is applied exactly once and confirmed; every
reply without an answer ("Thanks!" above the quote) is refused with the best turns offered
again."""

from __future__ import annotations

import email
import quopri
import re
import smtplib
from dataclasses import dataclass, field
from email import policy
from pathlib import Path

import pytest
from mail_support import game_row, outbox_rows
from sqlmodel import Session, select

from server.db import get_engine
from server.models import OfferedHints, TurnRecord

#: The corpus, in the repository: a clone has all it needs.
CORPUS = Path(__file__).resolve().parents[2] / "data" / "reply-corpus"
ANSWERS = ("turn_confirmed", "turn_refused", "reply_unrecognised")
#: The version of a two-player game when it starts (created 0, joined 1, started 2).
START = 2
_ESCAPE = re.compile(r"\\(n|r|t|u[0-9a-fA-F]{4})")


def unescape(text: str) -> str:
    """The annotations' `\\n`, `\\r`, `\\t` and `\\uXXXX`, as characters."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        return {"n": "\n", "r": "\r", "t": "\t"}.get(code) or chr(int(code[1:], 16))

    return _ESCAPE.sub(one, text)


@dataclass
class Fixture:
    """One corpus file: its annotations and its bytes after the header."""

    path: Path
    form: str
    body: bytes
    wrap: str | None = None
    header: str | None = None
    own: list[tuple[str, str]] = field(default_factory=list)  # (plain|html, spec)
    quote: list[tuple[str, str]] = field(default_factory=list)
    cases: list[tuple[str, str]] = field(default_factory=list)  # (name, answer)


def load(path: Path) -> Fixture:
    raw = path.read_bytes()
    head, _, body = raw.partition(b"#:end\n")
    fixture = Fixture(path, "", body)
    for line in head.decode("utf-8").splitlines():
        key, _, value = line.removeprefix("#: ").partition(": ")
        if key in ("own", "quote"):
            part, _, spec = value.partition(" :: ")
            getattr(fixture, key).append((part, spec))
        elif key == "case":
            name, _, answer = value.partition(" :: ")
            fixture.cases.append((name, answer))
        elif key == "form":
            fixture.form = value
        elif key == "wrap":
            fixture.wrap = value
        elif key == "header":
            fixture.header = value
        elif key == "lstrip":
            fixture.body = body.lstrip()
    return fixture


FIXTURES = [load(path) for path in sorted(CORPUS.glob("*/*")) if path.name != "README.md"]
CASES = [(fixture, name, answer) for fixture in FIXTURES for name, answer in fixture.cases]


def substitute(text: str, specs: list[tuple[str, str]], part: str, values: dict[str, str]) -> str:
    """Apply the `own`/`quote` annotations for `part` (plain or html) to `text`: the matched
    text (a literal, or `re:` a pattern) becomes the replacement (`{A}` alone if none), in
    which `{A}`, `{Q}`, `{QH}` are the answer, the quoted text and the quoted HTML; a quote
    keeps its line's prefix (`> `) on every line."""
    for spec_part, spec in specs:
        if spec_part != part:
            continue
        found, arrow, replacement = spec.partition(" => ")
        replacement = unescape(replacement) if arrow else "{A}"
        if found.startswith("re:"):
            match = re.search(found[3:], text, re.DOTALL | re.MULTILINE)
        else:
            match = re.compile(re.escape(unescape(found))).search(text)
        assert match is not None, f"{spec!r} not found"
        filled = fill(replacement, values)
        text = text[: match.start()] + filled + text[match.end() :]
    return text


def fill(replacement: str, values: dict[str, str]) -> str:
    """The replacement with its markers filled in; `{Q}`/`{QH}` keep their line's prefix."""
    out = []
    for line in replacement.split("\n"):
        filled = line
        for key in ("QH", "Q"):
            prefix, marker, rest = line.partition("{" + key + "}")
            if marker:
                again = prefix if prefix.strip() else ""  # `> ` quotes every line
                quoted = values[key].split("\n")
                filled = "\n".join([prefix + quoted[0], *(again + q for q in quoted[1:])]) + rest
                break
        out.append(filled.replace("{A}", values["A"]))
    return "\n".join(out)


def answer_text(answer: str, hints: list[str], game_id: int) -> tuple[str, str | None]:
    """What the player types for `answer`, and the turn it must play (None: no answer)."""
    word, _, rest = answer.partition(" ")
    if word == "none":
        return rest, None
    if not rest:  # `1`, `2.`, `#2`
        return answer, hints[int(answer.strip("#."))  - 1]  # fmt: skip
    turn = hints[int(rest) - 1]
    typed = {
        "turn": turn,
        "lower": turn.lower(),
        "comma": ", ".join(turn.split()),
        "command": f'cafe move {game_id} "{turn}"',
        "pad": f"   {rest}   ",
        "spaced": f" {rest} ",
    }[word]
    return typed, turn


def body_of(html: str) -> str:
    """The content of an HTML document's body."""
    match = re.search(r"<body[^>]*>(.*)</body>", html, re.DOTALL)
    return match.group(1) if match else html


def encode(text: str, wrap: str) -> tuple[str, bytes]:
    """A body part's headers and bytes as `wrap` (`text/plain; charset=X | encoding`) says."""
    content_type, _, encoding = (item.strip() for item in wrap.partition("|"))
    charset = re.search(r"charset=([\w-]+)", content_type).group(1)
    data = text.encode(charset, errors="replace")
    if encoding in ("7bit", "8bit") and max(map(len, data.splitlines() or [b""])) > 900:
        encoding = "quoted-printable"  # our quoted HTML's lines: as a client would send them
    if encoding in ("quoted-printable", "qp-raw"):
        data, encoding = quopri.encodestring(data), "quoted-printable"
    elif encoding == "base64":
        data = email.base64mime.body_encode(data).encode("ascii")
    headers = f"Content-Type: {content_type}\r\nContent-Transfer-Encoding: {encoding}\r\n"
    return headers, data


def compose(fixture: Fixture, values: dict[str, str], to: str, message_id: str) -> bytes:
    """The reply as the fixture's client would send it to `to`."""
    envelope = f"From: Player <player@mail.example>\r\nTo: {to}\r\nMessage-ID: {message_id}\r\n"
    envelope += "Subject: Re: your turn\r\nMIME-Version: 1.0\r\n"
    if fixture.form == "eml":
        message = email.message_from_bytes(fixture.body, policy=policy.default)
        if fixture.header:  # the Content-Type the fixture's body really has
            message.replace_header("Content-Type", fixture.header.removeprefix("Content-Type: "))
        for part in message.walk():
            kind = {"text/plain": "plain", "text/html": "html"}.get(part.get_content_type())
            if kind is None or part.is_multipart():
                continue
            text = part.get_content()
            new = substitute(text, fixture.own + fixture.quote, kind, values)
            charset = part.get_content_charset() or "utf-8"
            try:
                new.encode(charset)
            except UnicodeEncodeError:
                charset = "utf-8"
            cte = part.get("Content-Transfer-Encoding", "8bit").lower()
            if cte not in ("base64", "quoted-printable"):
                cte = "quoted-printable" if max(map(len, new.splitlines() or [""])) > 900 else None
            part.set_content(new, subtype=kind, charset=charset, cte=cte)
        for name in ("To", "Message-ID", "Delivered-To", "Cc"):
            del message[name]
        message["To"], message["Message-ID"] = to, message_id
        return message.as_bytes(policy=policy.SMTP)
    kind = "html" if fixture.form == "html" else "plain"
    wrap = fixture.wrap or f"text/{kind}; charset=utf-8 | 8bit"
    text = fixture.body.decode("utf-8")
    if wrap.endswith("qp-raw"):
        text = quopri.decodestring(fixture.body).decode("utf-8")
    headers, data = encode(substitute(text, fixture.own + fixture.quote, kind, values), wrap)
    return (envelope + headers + "\r\n").encode("ascii") + re.sub(rb"\r?\n", b"\r\n", data)


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file: replies are handled in threads


def test_the_corpus_is_all_here():
    assert "licensed" in (CORPUS / "README.md").read_text(encoding="utf-8")  # its origins
    assert len(FIXTURES) == 67 and len(CASES) == 81
    assert sum(answer.startswith("none") for _, _, answer in CASES) == 14


@pytest.mark.parametrize(
    ("fixture", "answer"),
    [pytest.param(fixture, answer, id=name) for fixture, name, answer in CASES],
)
def test_a_real_clients_reply(api, receiver, fixture, answer):
    game_id, _ = api.started_game("ann", "bob")
    api.send_events()
    your_turn = next(r for r in outbox_rows(api.app, "your_turn"))
    with Session(get_engine(api.app)) as session:
        stored = session.exec(select(OfferedHints).where(OfferedHints.game_id == game_id)).one()
    hints = [hint["turn"] for hint in stored.hints]
    typed, turn = answer_text(answer, hints, game_id)
    values = {"A": typed, "Q": your_turn.body.rstrip("\n"), "QH": body_of(your_turn.html)}
    raw = compose(fixture, values, your_turn.headers["Reply-To"], "<corpus@mail.example>")
    with smtplib.SMTP("127.0.0.1", receiver) as smtp:
        assert smtp.sendmail("player@mail.example", [your_turn.headers["Reply-To"]], raw) == {}
    api.send_events()
    replies = [r for r in outbox_rows(api.app) if r.kind in ANSWERS]
    with Session(get_engine(api.app)) as session:
        logged = list(session.exec(select(TurnRecord).where(TurnRecord.game_id == game_id)))
    if turn is None:
        assert logged == [] and game_row(api.app, game_id).version == START
        [refused] = replies
        assert refused.kind == "turn_refused", refused.body
        assert "we found no turn in your reply" in refused.body, refused.body
        assert all(f"{n}. {hint}   (" in refused.body for n, hint in enumerate(hints, 1))
    else:
        [entry] = logged
        assert entry.notation == turn or entry.submitted.lower() == typed.strip().lower()
        [confirmed] = replies
        assert confirmed.kind == "turn_confirmed", confirmed.body
        assert entry.notation in confirmed.body
