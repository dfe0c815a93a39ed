"""Signed names in email headers: reply addresses, unsubscribe tokens and thread ids (a
player's own address, read strictly, is `server.mailbox`'s).

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

A **talk reply address** (`play+t17-p3-<signature>@<mail domain>`) names a game and the
player an email of its table talk was sent to, signed under a key of its own purpose: the
text of a reply to it is posted at the game's table as that player's message
(`server.mail.replies`). It names no version: a message is not a turn, and a reply to an
older message email is as good as one to the newest.

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
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from itsdangerous import BadSignature, URLSafeTimedSerializer

from server.config import Settings
from server.postbox.facts import Links

REPLY_LOCAL = "play"
_REPLY = re.compile(r"play\+g(\d{1,10})-v(\d{1,10})-p(\d{1,10})-([a-z2-7]{16})", re.IGNORECASE)
_SEASON_REPLY = re.compile(r"play\+s(\d{1,10})-p(\d{1,10})-([a-z2-7]{16})", re.IGNORECASE)
_TALK_REPLY = re.compile(r"play\+t(\d{1,10})-p(\d{1,10})-([a-z2-7]{16})", re.IGNORECASE)


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


#: How each kind of signed address spells its numbers before the signature.
_GAME, _SEASON, _TALK = "g{}-v{}-p{}", "s{}-p{}", "t{}-p{}"


def _signed(secret: str, domain: str, purpose: str, numbers: str) -> str:
    """The address of ours for `purpose` that carries `numbers`, signed with `secret`."""
    return f"{REPLY_LOCAL}+{numbers}-{_signature(secret, purpose, numbers)}@{domain}"


def _read_signed(
    secrets: str | Sequence[str],
    domain: str,
    address: str,
    pattern: re.Pattern[str],
    purpose: str,
    spelling: str,
) -> tuple[int, ...] | None:
    """The numbers `address` carries (the groups of `pattern` before the signature), or
    None unless it is ours, for `purpose`, and signed with one of `secrets` (the current key
    and the old ones)."""
    local, _, at = address.strip().rpartition("@")
    found = pattern.fullmatch(local)
    if found is None or at.lower() != domain.lower():
        return None
    *groups, signature = found.groups()
    values = tuple(int(group) for group in groups)
    numbers = spelling.format(*values)
    keys = (secrets,) if isinstance(secrets, str) else tuple(secrets)
    # every key is tried, so that the time taken does not tell which one matched
    matches = [
        hmac.compare_digest(signature.lower(), _signature(key, purpose, numbers)) for key in keys
    ]
    return values if any(matches) else None


def reply_address(secret: str, domain: str, reply: ReplyAddress) -> str:
    """The signed address a reply for `reply` is sent to."""
    return _signed(
        secret, domain, "reply", _GAME.format(reply.game_id, reply.version, reply.player_id)
    )


def is_reply_address(address: str, domain: str) -> bool:
    """Whether `address` looks like one of ours (`play+…@domain`), signed correctly or not."""
    local, _, at = address.rpartition("@")
    return at.lower() == domain.lower() and local.lower().startswith(f"{REPLY_LOCAL}+")


def read_reply_address(
    secrets: str | Sequence[str], domain: str, address: str
) -> ReplyAddress | None:
    """What a reply address names, or None unless it is ours and signed with one of
    `secrets` (the current key and the old ones)."""
    found = _read_signed(secrets, domain, address, _REPLY, "reply", _GAME)
    return None if found is None else ReplyAddress(*found)


@dataclass(frozen=True, slots=True)
class SeasonReplyAddress:
    """What a season reply address names: the league season and the player it was sent to."""

    season_id: int
    player_id: int


def season_reply_address(secret: str, domain: str, reply: SeasonReplyAddress) -> str:
    """The signed address a reply about a league season is sent to."""
    return _signed(secret, domain, "season", _SEASON.format(reply.season_id, reply.player_id))


def read_season_reply_address(
    secrets: str | Sequence[str], domain: str, address: str
) -> SeasonReplyAddress | None:
    """What a season reply address names, or None unless it is ours and signed with one of
    `secrets`."""
    found = _read_signed(secrets, domain, address, _SEASON_REPLY, "season", _SEASON)
    return None if found is None else SeasonReplyAddress(*found)


@dataclass(frozen=True, slots=True)
class TalkReplyAddress:
    """What a talk reply address names: the game whose table talk it answers, the player."""

    game_id: int
    player_id: int


def talk_reply_address(secret: str, domain: str, reply: TalkReplyAddress) -> str:
    """The signed address a reply to an email of a game's table talk is sent to."""
    return _signed(secret, domain, "talk", _TALK.format(reply.game_id, reply.player_id))


def read_talk_reply_address(
    secrets: str | Sequence[str], domain: str, address: str
) -> TalkReplyAddress | None:
    """What a talk reply address names, or None unless it is ours and signed with one of
    `secrets`."""
    found = _read_signed(secrets, domain, address, _TALK_REPLY, "talk", _TALK)
    return None if found is None else TalkReplyAddress(*found)


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


def links(
    config: Settings,
    *,
    player_id: int | None = None,
    reply: ReplyAddress | TalkReplyAddress | None = None,
) -> Links:
    """The links of an email: the service, and if given the reply address (a game's, or
    its table talk's) and, for a player, the unsubscribe link."""
    base = config.base_url.rstrip("/")
    secret = config.secret_key
    if isinstance(reply, TalkReplyAddress):
        reply_to: str | None = talk_reply_address(secret, config.mail_domain, reply)
    else:
        reply_to = None if reply is None else reply_address(secret, config.mail_domain, reply)
    return Links(
        base_url=base,
        reply_to=reply_to,
        unsubscribe=None
        if player_id is None
        else f"{base}/unsubscribe/{unsubscribe_token(secret, player_id)}",
    )
