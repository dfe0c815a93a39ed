"""Players' addresses, read strictly; and signed names in email headers: reply addresses,
unsubscribe tokens and thread ids.

A **player's address** is exactly `local@domain`, nothing around it (`parse_new_address`):
no display name, no angle brackets, no comments, no lists. It is normalised before it is
stored or compared (NFC, lower case, the domain as IDNA A-labels), so one mailbox is one
player however it is typed. A local part outside ASCII needs an SMTP server that offers
SMTPUTF8 (RFC 6531); without one, such an address is refused when the player registers
rather than failing at every email.

A **reply address** (`play+g17-v42-p3-<signature>@<mail domain>`) says who is answering
which game at which version. It is the only way an emailed turn is tied to a player: the
`From` of a reply can be anything. The signature is an HMAC of the three numbers under a key
derived from `SECRET_KEY`, in lower-case base32, because mail systems may change the case
of an address's local part; 80 bits cannot be guessed, and the whole local part stays well
under the 64 characters RFC 5321 allows. A reply address is good for the one version it
names: once the game has moved on, a reply to it is refused (`server.mail.replies`).

A **season reply address** (`play+s4-p3-<signature>@<mail domain>`) names a league season
and the player it was sent to, signed the same way under a key of its own purpose: replying
`join` to it registers that player for that season (`server.league.joining`).

An **unsubscribe token** (`itsdangerous`, timestamped) names a player for the one-click
unsubscribe link, which must work without signing in; it expires after
`UNSUBSCRIBE_LINK_DAYS`.

Signing always uses the current `SECRET_KEY`; reading accepts the earlier keys of
`SECRET_KEY_OLD` too (`config.verifying_keys`), so that rotating the key does not break
the links and reply addresses in mail already sent.

A game's **thread root** is a stable Message-ID that every message about the game refers
to, so mail programs show one thread per game.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import unicodedata
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from itsdangerous import BadSignature, URLSafeTimedSerializer

#: Characters of an unquoted local part (RFC 5322 `atext`); beyond ASCII, RFC 6531 allows
#: any character that is not a control or a space.
_ATEXT = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+")
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
MAX_ADDRESS = 254  # octets (RFC 5321 path limit, less the angle brackets)
MAX_LOCAL = 64

REPLY_LOCAL = "play"
_REPLY = re.compile(r"play\+g(\d{1,10})-v(\d{1,10})-p(\d{1,10})-([a-z2-7]{16})", re.IGNORECASE)
_SEASON_REPLY = re.compile(r"play\+s(\d{1,10})-p(\d{1,10})-([a-z2-7]{16})", re.IGNORECASE)


class AddressError(ValueError):
    """Not an address a player can register; the message says why."""


def _atom_ok(atom: str) -> bool:
    if atom.isascii():
        return _ATEXT.fullmatch(atom) is not None
    return all(
        _ATEXT.fullmatch(c) is not None
        or (not c.isascii() and unicodedata.category(c)[0] not in "CZ")
        for c in atom
    )


def _domain(text: str, address: str) -> str:
    """The domain as lower-case A-labels (`bücher.example` → `xn--bcher-kva.example`)."""
    try:
        ascii_domain = text.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise AddressError(f"{address!r}: {text!r} is not a domain name") from None
    labels = ascii_domain.split(".")
    if len(labels) < 2 or not all(_LABEL.fullmatch(label) for label in labels):
        raise AddressError(f"{address!r}: {text!r} is not a domain name like example.com")
    if labels[-1].isdigit():
        raise AddressError(f"{address!r}: the domain must be a name, not a number")
    return ascii_domain


def normalise_address(text: str) -> str:
    """`text` as one bare address, normalised: NFC, lower case, IDNA domain. Raises
    `AddressError` for anything else (a display name, `<…>`, quotes, several addresses)."""
    address = unicodedata.normalize("NFC", text.strip())
    if not address:
        raise AddressError("an email address is needed, like ann@example.com")
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain:
        raise AddressError(f"{text!r} is not an email address like ann@example.com")
    if any(c in address for c in ' \t<>()[]\\",;:') or not address.isprintable():
        raise AddressError(
            f"{text!r}: give the bare address, like ann@example.com, without a name, "
            "brackets, quotes, spaces or a second address"
        )
    if "@" in local or not all(_atom_ok(atom) for atom in local.split(".")):
        raise AddressError(f"{text!r}: the part before @ is not a valid mailbox name")
    local = local.lower()
    if len(local.encode()) > MAX_LOCAL:
        raise AddressError(f"{text!r}: the part before @ is longer than {MAX_LOCAL} bytes")
    normal = f"{local}@{_domain(domain, text)}"
    if len(normal.encode()) > MAX_ADDRESS:
        raise AddressError(f"{text!r} is longer than {MAX_ADDRESS} bytes")
    return normal


def parse_new_address(text: str, *, smtputf8: bool) -> str:
    """The normalised address of a new player (`normalise_address`); an international
    address only if the SMTP server offers SMTPUTF8 (`smtputf8`, setting `SMTP_UTF8`)."""
    address = normalise_address(text)
    if not smtputf8 and not address.isascii():
        raise AddressError(
            f"{text!r}: this service's mail server cannot deliver to addresses with letters "
            "outside ASCII before the @; please use another address"
        )
    return address


@dataclass(frozen=True, slots=True)
class ReplyAddress:
    """What a reply address names: the player answering, the game, the version they saw."""

    game_id: int
    version: int
    player_id: int


@cache
def _key(secret: str, purpose: str) -> bytes:
    """A key for one purpose, so that no signature can be replayed for another."""
    return hmac.new(secret.encode(), purpose.encode(), hashlib.sha256).digest()


def _signature(secret: str, purpose: str, text: str) -> str:
    digest = hmac.new(_key(secret, purpose), text.encode(), hashlib.sha256).digest()
    return base64.b32encode(digest[:10]).decode().lower()


def reply_address(secret: str, domain: str, reply: ReplyAddress) -> str:
    """The signed address a reply for `reply` is sent to."""
    numbers = f"g{reply.game_id}-v{reply.version}-p{reply.player_id}"
    return f"{REPLY_LOCAL}+{numbers}-{_signature(secret, 'reply', numbers)}@{domain}"


def is_reply_address(address: str, domain: str) -> bool:
    """Whether `address` looks like one of ours (`play+…@domain`), signed correctly or not."""
    local, _, at = address.rpartition("@")
    return at.lower() == domain.lower() and local.lower().startswith(f"{REPLY_LOCAL}+")


def read_reply_address(
    secrets: str | Sequence[str], domain: str, address: str
) -> ReplyAddress | None:
    """What a reply address names, or None unless it is ours and signed with one of
    `secrets` (the current key and the old ones)."""
    local, _, at = address.strip().rpartition("@")
    found = _REPLY.fullmatch(local)
    if found is None or at.lower() != domain.lower():
        return None
    game, version, player, signature = found.groups()
    numbers = f"g{int(game)}-v{int(version)}-p{int(player)}"
    keys = (secrets,) if isinstance(secrets, str) else tuple(secrets)
    # every key is tried, so that the time taken does not tell which one matched
    matches = [
        hmac.compare_digest(signature.lower(), _signature(key, "reply", numbers)) for key in keys
    ]
    if not any(matches):
        return None
    return ReplyAddress(int(game), int(version), int(player))


@dataclass(frozen=True, slots=True)
class SeasonReplyAddress:
    """What a season reply address names: the league season and the player it was sent to."""

    season_id: int
    player_id: int


def season_reply_address(secret: str, domain: str, reply: SeasonReplyAddress) -> str:
    """The signed address a reply about a league season is sent to."""
    numbers = f"s{reply.season_id}-p{reply.player_id}"
    return f"{REPLY_LOCAL}+{numbers}-{_signature(secret, 'season', numbers)}@{domain}"


def read_season_reply_address(
    secrets: str | Sequence[str], domain: str, address: str
) -> SeasonReplyAddress | None:
    """What a season reply address names, or None unless it is ours and signed with one of
    `secrets`."""
    local, _, at = address.strip().rpartition("@")
    found = _SEASON_REPLY.fullmatch(local)
    if found is None or at.lower() != domain.lower():
        return None
    season, player, signature = found.groups()
    numbers = f"s{int(season)}-p{int(player)}"
    keys = (secrets,) if isinstance(secrets, str) else tuple(secrets)
    matches = [
        hmac.compare_digest(signature.lower(), _signature(key, "season", numbers)) for key in keys
    ]
    if not any(matches):
        return None
    return SeasonReplyAddress(int(season), int(player))


@cache
def _unsubscribe_serializer(secrets: tuple[str, ...]) -> URLSafeTimedSerializer:
    # itsdangerous signs with the last key and verifies with any of them
    return URLSafeTimedSerializer(list(reversed(secrets)), salt="cafe-unsubscribe")


def unsubscribe_token(secret: str, player_id: int) -> str:
    """The token of a player's one-click unsubscribe link, signed with `secret` now."""
    return str(_unsubscribe_serializer((secret,)).dumps({"p": player_id}))


def read_unsubscribe_token(
    secrets: str | Sequence[str], token: str, *, max_age_days: int
) -> int | None:
    """The player an unsubscribe token names, or None if it was not signed with one of
    `secrets` or is older than `max_age_days`."""
    keys = (secrets,) if isinstance(secrets, str) else tuple(secrets)
    try:
        data = _unsubscribe_serializer(keys).loads(token, max_age=max_age_days * 86400)
    except BadSignature:  # SignatureExpired is one
        return None
    player = data.get("p") if isinstance(data, dict) else None
    return player if isinstance(player, int) and not isinstance(player, bool) else None


def thread_root(secret: str, domain: str, game_id: int) -> str:
    """The Message-ID every message about game `game_id` refers to (never sent itself).

    The signature part keeps two installations' game 17 in different threads.
    """
    return f"<game-{game_id}.{_signature(secret, 'thread', str(game_id))[:8]}@{domain}>"


def new_message_id(domain: str) -> str:
    """A fresh, globally unique Message-ID."""
    return f"<{uuid.uuid4().hex}@{domain}>"
