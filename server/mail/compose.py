"""An outbox row as the bytes the worker hands to the SMTP server.

`multipart/alternative` with the plain text first and the HTML second (mail programs show
the last part they can display), or plain text alone for rows without HTML. Each part is
UTF-8 in quoted-printable or base64, whichever is shorter (HTML is mostly ASCII, the text
board is full of box-drawing characters), so every line on the wire stays within SMTP's
limits. Header values that are not ASCII become RFC 2047 encoded words.

The message is written directly rather than through `email.message.EmailMessage`, which
took about 10 ms a message, more than sending it. Quoted-printable is written with
whole-buffer operations (`bytes.replace` for `=`, a split into lines) and regular
expressions only on the few lines that need more, rather than with `binascii.b2a_qp`, which
looks at every byte one by one and took more than half of the time left (about 0.2 ms of
0.4 ms for a "your turn" email). The tests read every message back with the standard
library's parser and compare the decoded parts with what went in.
"""

from __future__ import annotations

import base64
import re
import uuid
from email.utils import formataddr, formatdate, parseaddr
from functools import cache

from server.models import OutboxMessage

CRLF = b"\r\n"
WORD_BYTES = 45  # base64 of 45 bytes is 60 characters: an encoded word of 72
LINE = 76  # longest encoded line of a part (RFC 2045), not counting the line break

#: Printable ASCII, tab and line feed: quoted-printable writes them as they are (RFC 2045
#: §6.7 rules 2 and 3), except `=`; every other byte becomes `=XX`.
_TEXT = bytes(range(32, 127)) + b"\t\n"
_BEYOND = bytes(range(128, 256))
#: Runs of ASCII control characters (other than tab and line feed) and of bytes beyond ASCII.
_CONTROLS = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]+")
_BEYOND_ASCII = re.compile(rb"[\x80-\xff]+")
#: A blank that ends a line must be escaped, or transport could strip it.
_BLANKS = {b" ": b"=20", b"\t": b"=09"}
#: The next piece of a long encoded line: 73 to 75 characters that do not end inside an
#: escape (`=XX`), followed by more; else the rest of the line (76 characters at most).
_PIECE = re.compile(rb"(?:.{73}|.{72}|.{71})[^=]{2}(?=..)|.+", re.DOTALL)


def _header_value(value: str) -> str:
    """A header value safe to write: ASCII as it is, anything else as RFC 2047 encoded
    words of at most 75 characters (45 bytes of UTF-8 each, never splitting a character),
    one per folded line."""
    if "\r" in value or "\n" in value:
        raise ValueError(f"a header value may not contain a line break: {value!r}")
    if value.isascii():
        return value
    chunks, chunk = [], b""
    for character in value:
        data = character.encode()
        if len(chunk) + len(data) > WORD_BYTES:
            chunks.append(chunk)
            chunk = b""
        chunk += data
    chunks.append(chunk)
    return "\r\n ".join(f"=?utf-8?b?{base64.b64encode(c).decode()}?=" for c in chunks)


def _escaped_run(found: re.Match[bytes]) -> bytes:
    """`=XX` for each byte of a run (upper-case hex, as RFC 2045 wants)."""
    return b"=" + found[0].hex("=").upper().encode()


def _quoted_line(line: bytes) -> bytes:
    """One line (its `=` escaped already) in quoted-printable: the bytes beyond ASCII
    escaped, a blank at its end escaped, and if it is longer than `LINE`, broken with soft
    line breaks that never split an escape."""
    if not line.isascii():
        line = _BEYOND_ASCII.sub(_escaped_run, line)
    if line[-1:] in _BLANKS:
        line = line[:-1] + _BLANKS[line[-1:]]
    if len(line) > LINE:
        return b"=\n".join(_PIECE.findall(line))
    return line


def quoted_printable(data: bytes, *, controls: bool = True) -> bytes:
    """`data` (lines ending in LF) in quoted-printable, lines ending in LF. Whole-buffer
    replaces first (`=`, and unless `controls` is False, the control characters other than
    tab and line feed), then line by line, as most lines of an email need nothing more."""
    quoted = data.replace(b"=", b"=3D")
    if controls:
        quoted = _CONTROLS.sub(_escaped_run, quoted)
    return b"\n".join(map(_quoted_line, quoted.split(b"\n")))


def _base64_lines(data: bytes) -> bytes:
    """`data` in base64, in lines of `LINE` characters with CRLF between them."""
    encoded = base64.b64encode(data)
    return CRLF.join(encoded[start : start + LINE] for start in range(0, len(encoded), LINE))


def _encoded(text: str) -> tuple[str, bytes]:
    """The shorter of quoted-printable and base64 for `text`, with CRLF line ends.

    Quoted-printable spends three characters on each byte it escapes, base64 four on every
    three bytes: the escapes are counted to choose (soft line breaks, a few percent either
    way, are left out of the count)."""
    data = text.replace("\r\n", "\n").encode()
    unusual = data.translate(None, _TEXT)  # bytes beyond ASCII and control characters
    escapes = len(unusual) + data.count(b"=")
    if len(data) + 2 * escapes <= len(data) * 4 // 3:
        controls = bool(unusual.translate(None, _BEYOND))
        return "quoted-printable", quoted_printable(data, controls=controls).replace(b"\n", CRLF)
    return "base64", _base64_lines(data.replace(b"\n", CRLF))


def _part(subtype: str, text: str) -> bytes:
    encoding, payload = _encoded(text)
    head = (
        f'Content-Type: text/{subtype}; charset="utf-8"\r\n'
        f"Content-Transfer-Encoding: {encoding}\r\n\r\n"
    )
    return head.encode() + payload.rstrip(CRLF) + CRLF


@cache
def _sender(mail_from: str) -> str:
    """The From header value for `mail_from` (the same for every message: worked out once)."""
    name, address = parseaddr(mail_from)
    return formataddr((name, address)) if name.isascii() else f"{_header_value(name)} <{address}>"


def compose(row: OutboxMessage, mail_from: str) -> bytes:
    """The whole message for `row` (rendered: its subject and body are filled in), from
    `mail_from`, dated now."""
    assert row.subject is not None and row.body is not None, "composed once rendered"
    fields = [
        ("From", _sender(mail_from)),
        ("To", row.to_addr),
        ("Subject", _header_value(row.subject)),
        ("Date", formatdate(usegmt=True)),
        ("Message-ID", row.message_id),
        *((key, _header_value(value)) for key, value in (row.headers or {}).items()),
        ("MIME-Version", "1.0"),
    ]
    head = "".join(f"{key}: {value}\r\n" for key, value in fields).encode()
    if row.html is None:
        return head + _part("plain", row.body)
    boundary = f"=_cafe_{uuid.uuid4().hex}"
    return (
        head
        + f'Content-Type: multipart/alternative; boundary="{boundary}"\r\n\r\n'.encode()
        + f"--{boundary}\r\n".encode()
        + _part("plain", row.body)
        + f"--{boundary}\r\n".encode()
        + _part("html", row.html)
        + f"--{boundary}--\r\n".encode()
    )
