"""An outbox row as the bytes the worker hands to the SMTP server.

`multipart/alternative` with the plain text first and the HTML second (mail programs show
the last part they can display), or plain text alone for rows without HTML. Each part is
UTF-8 in quoted-printable or base64, whichever is shorter (HTML is mostly ASCII, the text
board is full of box-drawing characters), so every line on the wire stays within SMTP's
limits. Header values that are not ASCII become RFC 2047 encoded words.

The message is written directly (with the C encoders of `binascii` and `base64`) rather
than through `email.message.EmailMessage`, which took about 10 ms a message, more than
sending it; the tests read every message back with the standard library's parser.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from email.utils import formataddr, formatdate, parseaddr

from server.models import OutboxMessage

CRLF = b"\r\n"
WORD_BYTES = 45  # base64 of 45 bytes is 60 characters: an encoded word of 72


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


def _encoded(text: str) -> tuple[str, bytes]:
    """The shorter of quoted-printable and base64 for `text`, with CRLF line ends."""
    data = text.replace("\r\n", "\n").replace("\n", "\r\n").encode()
    quoted = binascii.b2a_qp(data, istext=True)
    if len(quoted) <= len(data) * 4 // 3:
        return "quoted-printable", quoted
    return "base64", base64.encodebytes(data).replace(b"\n", CRLF)


def _part(subtype: str, text: str) -> bytes:
    encoding, payload = _encoded(text)
    head = (
        f'Content-Type: text/{subtype}; charset="utf-8"\r\n'
        f"Content-Transfer-Encoding: {encoding}\r\n\r\n"
    )
    return head.encode() + payload.rstrip(CRLF) + CRLF


def compose(row: OutboxMessage, mail_from: str) -> bytes:
    """The whole message for `row`, from `mail_from`, dated now."""
    name, address = parseaddr(mail_from)
    sender = formataddr((name, address)) if name.isascii() else f"{_header_value(name)} <{address}>"
    fields = [
        ("From", sender),
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
