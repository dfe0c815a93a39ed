"""The MIME messages the worker sends, read back with the standard library's parser: every
part and header survives, every line fits SMTP, nothing can inject a header."""

from __future__ import annotations

import binascii
import random
import re
from email import message_from_bytes, policy

import pytest

from cafe import Game, render
from server.mail.compose import compose, quoted_printable
from server.models import OutboxMessage


def board_picture() -> str:
    game = Game.new(["ann", "bob"], seed=1)
    for _ in range(20):
        game.play(game.hints(1)[0].turn)
    return render.text(game)


TEXTS = [
    board_picture(),
    "plain ASCII\n",
    "a trailing space \nand a long line " + "x" * 300 + "\n",
    "Żółć =3D é\r\nCRLF and LF\n.a line with a dot\nFrom the start of a line\n",
    "control characters: a form feed \x0c, a lone CR \r, a DEL \x7f\n",
    "",
]


def row(body: str, html: str | None, **headers: str) -> OutboxMessage:
    return OutboxMessage(
        kind="test",
        to_addr="ann@example.com",
        subject="Café International — über " * 6,
        body=body,
        html=html,
        headers={"Reply-To": "play+g1-v2-p3-abcdefghijklmnop@cafe.test", **headers},
        message_id="<m1@cafe.test>",
    )


def lines_of(text: str) -> str:
    return text.replace("\r\n", "\n").rstrip("\n")


@pytest.mark.parametrize("body", TEXTS)
@pytest.mark.parametrize("html", [None, '<td style="color:#fff">Café</td>\n' * 400])
def test_what_is_written_reads_back(body, html):
    raw = compose(row(body, html, **{"X-Name": "Łukasz"}), "Café International <cafe@x.test>")
    assert b"\n" not in raw.replace(b"\r\n", b"")  # CRLF only
    assert b"\r" not in raw.replace(b"\r\n", b"")
    assert re.fullmatch(rb"[\t\r\n -~]*", raw)  # 7-bit, printable: everything else escaped
    assert max(len(line) for line in raw.split(b"\r\n")) <= 998
    message = message_from_bytes(raw, policy=policy.default)
    assert not message.defects and not any(part.defects for part in message.walk())
    assert lines_of(message.get_body(preferencelist=("plain",)).get_content()) == lines_of(body)
    if html is None:
        assert message.get_content_type() == "text/plain"
    else:
        assert message.get_content_type() == "multipart/alternative"
        assert lines_of(message.get_body(preferencelist=("html",)).get_content()) == lines_of(html)
    assert message["Subject"] == "Café International — über " * 6
    assert message["From"].addresses[0].display_name == "Café International"
    assert message["From"].addresses[0].addr_spec == "cafe@x.test"
    assert str(message["X-Name"]) == "Łukasz"
    assert message["Message-ID"] == "<m1@cafe.test>"
    assert message["Date"] is not None and message["MIME-Version"] == "1.0"


def test_mostly_ascii_parts_stay_readable_on_the_wire():
    raw = compose(row("hello\n", "<p>hello</p>\n" * 50), "Cafe <cafe@x.test>")
    assert raw.count(b"Content-Transfer-Encoding: quoted-printable") == 2
    assert b"<p>hello</p>" in raw


def test_a_header_cannot_smuggle_another():
    with pytest.raises(ValueError, match="line break"):
        compose(row("x", None, **{"In-Reply-To": "<a@b>\r\nBcc: victim@example.com"}), "c@x.test")


PIECES = ["a", " ", "\t", "=", "==", "=3D", "é", "─", "😀", ".", "\r", "\x00", "\x7f", "x" * 75]


@pytest.mark.parametrize("seed", range(40))
def test_quoted_printable_decodes_to_what_went_in(seed):
    """Random lines around the soft-break positions, with escapes and blanks everywhere."""
    rng = random.Random(seed)
    lines = ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 60))) for _ in range(30)]
    data = "\n".join(lines).encode()
    quoted = quoted_printable(data)
    assert all(len(line) <= 76 for line in quoted.split(b"\n"))
    assert not any(line.endswith((b" ", b"\t")) for line in quoted.split(b"\n"))
    assert quoted.isascii() and not re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", quoted)
    assert binascii.a2b_qp(quoted.replace(b"\n", b"\r\n")) == data.replace(b"\n", b"\r\n")
