"""Reading an emailed reply: where it was sent, whether a robot sent it, and the turn in it.

Anything may arrive, so nothing here raises on bad input: a message that cannot be parsed
has no text, a charset Python does not know is read as UTF-8 (or Latin-1), attachments are
ignored, and only the first `MAX_TEXT` characters of the text are looked at. The reply's
own lines are those above the quoted email and the signature; the turn is the first of them
that reads as a turn or as the number of a suggested turn (`server.mail.inbound_html` turns
an HTML-only reply into text first). A line `say: …` (its word in any of our languages,
`server.mail.words.said`) is a message for the game's table, never a turn; the reply's own
text as a whole (`Reply.text`) is the message of a reply to an email of table talk.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import Message
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr

from cafe import Turn
from server.mail import words
from server.mail.inbound_html import html_to_text

#: Characters of a reply's text that are read at all.
MAX_TEXT = 20_000
#: Own lines of a reply that are tried as a turn.
MAX_LINES = 5
#: Characters of a line kept (the API takes turns of up to 200 characters).
MAX_LINE = 200

_MESSAGE_ID = re.compile(r"<[\x21-\x3b\x3d\x3f-\x7e]{1,196}>")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffd]")
#: Zero-width and format characters (Zimbra wraps typed paragraphs in U+200B, iPhones
#: start with U+FEFF, right-to-left mail carries U+200E/U+200F marks): invisible, dropped.
_INVISIBLE = re.compile(r"[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
#: The verbs of an attribution line (`On … NAME wrote:`) in the corpus's languages and ours.
_WROTE = (
    r"wrote|a écrit|schrieb|escribió|ha scritto|schreef|escreveu|napsala|napsal|skrev"
    r"|napisał|написала|написал|пишет"
)
#: The line that introduces the quoted email, in the corpus's languages and ours:
#: `On … wrote:`, `In data … ha scritto:`, `Dne … napsal(a):`, `Am … schrieb NAME:`,
#: `Den … skrev NAME:`; or a line with an address that ends in such a verb (Gmail's
#: `čt 2. 12. 2026 v 10:00 odesílatel NAME <x@y> napsal:`, `NAME <x@y> schrieb am …:`);
#: or one that ends in a Czech or Russian verb of writing (Thunderbird's `…, NAME пишет:`);
#: or, as Gmail writes it in Russian, one that ends in the address itself (`… NAME <x@y>:`).
_ATTRIBUTION = re.compile(
    r"^[ \t]*(on|le|am|el|il|op|em|in data|dne|den|w dniu)\b[^\n]{0,200}"
    rf"(\n[^\n]{{0,200}}){{0,2}}?({_WROTE})"
    r"(\(a\)|(?:(?<=skrev)|(?<=schrieb)) [^\n]{1,200})?\s*:[ \t]*$"
    rf"|^[^\n]{{0,200}}\S@\S[^\n]{{0,200}}\b({_WROTE})"
    r"(\(a\)|(?<=schrieb) [^\n]{1,200})?\s*:[ \t]*$"
    r"|^[^\n]{0,200}\s(napsal\(a\)|napsala|napsal|написал\(а\)|написала|написал|пишет)\s*:[ \t]*$"
    r"|^[^\n]{0,200}<[^\s<>@]{1,64}@[^\s<>@]{1,200}>\s*:[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
#: A header block's first line (`From:` in the corpus's languages and ours), a separator
#: (`-----Original Message-----`, `-----Původní zpráva-----`, `--- Исходное сообщение ---`)
#: or a phone's signature (`Sent from my iPhone`, `Odesláno z iPhonu`, `Отправлено с iPhone`).
_QUOTE_START = re.compile(
    r"^(-{2,}\s*(original message|forwarded message|ursprüngliche nachricht"
    r"|weitergeleitete nachricht|původní zpráva|původní e-mail|přeposlaná zpráva"
    r"|исходное сообщение|пересылаемое сообщение)\s*-{2,}"
    r"|_{10,}|(from|von|de|от|fra|från|van|od|odesílatel|da|lähettäjä|feladó|от кого)\s?:\s.+"
    r"|sent from my .+|odesláno z .+|von meinem .+ gesendet|отправлено с .+)$",
    re.IGNORECASE,
)
_HINT = re.compile(r"#?([0-9]{1,2})[.):]?")
_COMMAND = re.compile(r"cafe\s+move\s+(?:\d+\s+)?", re.IGNORECASE)
#: A try at a turn that does not read: `bar TILE`, `swap TILE …` at the start of the line
#: ("Sent from Outlook Mobile<…>" is no bar turn), or `TILE@CHAIR`-ish (not an email
#: address: chairs are `US1`, `#17`); tried on the line in the notation's own words.
_TURN_LIKE = re.compile(r"^(bar|swap)\s+([a-z]{2}|j)[fm]\b|\S{1,8}@(#\d|[a-z]{2}\d)", re.IGNORECASE)
_AUTOMATIC_SENDERS = ("mailer-daemon", "postmaster", "noreply", "no-reply")


@dataclass(frozen=True, slots=True)
class Reply:
    """What was read from one incoming message."""

    message_key: str  # handles the message once: its Message-ID, or a digest of its bytes
    message_id: str | None  # to answer it (only if well-formed)
    recipients: tuple[str, ...]  # envelope recipients first, then To, Cc, Delivered-To…
    automatic: bool  # an auto-responder, a bounce or a list: never answered
    lines: tuple[str, ...]  # the reply's own lines, but its `say:` lines
    too_large: bool
    said: tuple[str, ...] = ()  # the text of each `say:` line, in order
    text: str = ""  # the reply's own text, line breaks and all (not its `>` lines)


@dataclass(frozen=True, slots=True)
class Choice:
    """The turn a reply asks for: a hint's number, or a turn's text (maybe unreadable)."""

    hint: int | None = None
    text: str | None = None


def read(
    raw: bytes,
    *,
    envelope_to: tuple[str, ...] = (),
    bounce: bool = False,
    size: int,
    limit: int,
) -> Reply:
    """Read a message of `size` bytes (`raw` may be cut short when it is over `limit`);
    `bounce` when its envelope sender was null (`MAIL FROM:<>`), as for bounces."""
    too_large = size > limit
    try:
        parsed = (
            BytesParser(policy=policy.default).parsebytes(raw, headersonly=True)
            if too_large
            else message_from_bytes(raw, policy=policy.default)
        )
    except Exception:  # the email package is lenient, but a reply must never crash us
        parsed = Message()  # type: ignore[assignment]  # empty: only its headers are read
    message_id = _header(parsed, "Message-ID").strip()
    well_formed = message_id if _MESSAGE_ID.fullmatch(message_id) else None
    key = well_formed or f"sha256:{hashlib.sha256(raw).hexdigest()}"
    text = "" if too_large else _body_text(parsed)
    own = _own_part(text)
    return Reply(
        message_key=key,
        message_id=well_formed,
        recipients=(*envelope_to, *_addresses(parsed)),
        automatic=bounce or _automatic(parsed),
        lines=tuple(_tried(own)),
        too_large=too_large,
        said=tuple(found for line in own if (found := words.said(line)) is not None),
        text=_joined(own),
    )


def _header(message: Message, name: str) -> str:
    try:
        value = message.get(name)
    except Exception:  # a header too broken to parse counts as missing
        return ""
    return "" if value is None else str(value)


def _addresses(message: Message) -> list[str]:
    names = ("Delivered-To", "X-Original-To", "To", "Cc")
    values: list[str] = []
    for name in names:
        try:
            values += [str(v) for v in message.get_all(name, [])]
        except Exception:
            continue
    return [address for _, address in getaddresses(values) if address]


def _automatic(message: Message) -> bool:
    """RFC 3834 auto-responses, bulk and list mail, bounces: none of them is a player."""
    auto = _header(message, "Auto-Submitted").strip().lower()
    precedence = _header(message, "Precedence").strip().lower()
    sender = parseaddr(_header(message, "From"))[1].lower()
    return (
        auto not in ("", "no")
        or precedence in ("bulk", "junk", "list", "auto_reply")
        or bool(_header(message, "List-Id") or _header(message, "X-Autoreply"))
        or _header(message, "Return-Path").strip() == "<>"
        or sender.split("@")[0] in _AUTOMATIC_SENDERS
    )


def _body_text(message: Message) -> str:
    """The first plain-text part, else the first HTML part as text; attachments skipped."""
    parts = [
        part
        for part in message.walk()
        if not part.is_multipart() and part.get_content_disposition() != "attachment"
    ]
    for kind in ("text/plain", "text/html"):
        for part in parts:
            if part.get_content_type() == kind:
                text = _decode(part)[:MAX_TEXT]
                return html_to_text(text) if kind == "text/html" else text
    return ""


def _decode(part: Message) -> str:
    """A part's text in its declared charset; an unknown or lying charset falls back."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = part.get_content_charset() or "utf-8"
    for candidate in (charset, "utf-8"):
        try:
            return payload.decode(candidate)
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("latin-1")


def own_lines(text: str) -> list[str]:
    """The reply's own non-empty lines: above the attribution line of the quoted email and
    the signature, quoted (`>`) lines and `say:` lines left out, control and format
    characters removed."""
    return _tried(_own_part(text))


def _own_part(text: str) -> list[str]:
    """Every line of `text` above the attribution line of the quoted email and the
    signature, control and format characters removed, stripped (empty and quoted lines
    too)."""
    text = _INVISIBLE.sub("", text)
    cut = _ATTRIBUTION.search(text)
    if cut is not None:
        text = text[: cut.start()]
    lines: list[str] = []
    for raw_line in text.splitlines():
        if raw_line.rstrip() == "--" or raw_line.startswith("-- "):
            break  # the signature delimiter
        line = _CONTROL.sub("", raw_line).strip()
        if _QUOTE_START.match(line):
            break
        lines.append(line)
    return lines


def _tried(own: list[str]) -> list[str]:
    """The first `MAX_LINES` lines of `own` that may hold a turn, each cut at `MAX_LINE`:
    not empty, not quoted (`>`), not `say:`."""
    lines: list[str] = []
    for line in own:
        if line and not line.startswith(">") and words.said(line) is None:
            lines.append(line[:MAX_LINE])
        if len(lines) == MAX_LINES:
            break
    return lines


def _joined(own: list[str]) -> str:
    """The reply's own text: its own lines but the quoted (`>`) ones, with their breaks."""
    return "\n".join(line for line in own if not line.startswith(">")).strip()


def choose(lines: tuple[str, ...]) -> Choice | None:
    """The first line that is a hint's number or reads as a turn (its words in any of our
    languages: `server.mail.words`); else the first line that looks like a try at a turn
    (to be refused with the engine's reason); else None."""
    tried: str | None = None
    for line in lines:
        number = _HINT.fullmatch(line)
        if number is not None:
            return Choice(hint=int(number.group(1)))
        text = words.as_notation(_COMMAND.sub("", line, count=1).strip().strip("\"'`").strip())
        try:
            Turn.parse(text)
        except ValueError:  # NotationError, or anything else odd input may cause
            if tried is None and _TURN_LIKE.search(text):
                tried = text
            continue
        return Choice(text=text)
    return None if tried is None else Choice(text=tried)
