"""The request each kind of channel takes (issue 26), exactly as the receivers expect it:

- Discord: POST `{"content": …, "allowed_mentions": {"parse": []}}` (a name such as
  "@everyone" pings nobody), at most 2,000 characters;
- Slack: POST `{"text": …}` with `&`, `<` and `>` escaped;
- Matrix: PUT `/_matrix/client/v3/rooms/{room}/send/m.room.message/{txnId}` with the
  access token, `{"msgtype": "m.text", "body": …}`; the delivery id is the `txnId`, so a
  retry is not a second message;
- ntfy: POST JSON to the server's root `{"topic", "message", "title", "click", "tags"}`
  (JSON, since header values cannot carry "Váš tah" or "Ваш ход"), with the bearer token
  if there is one;
- webhook: POST `{"type", "timestamp", "data"}` signed as the Standard Webhooks
  specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64
  HMAC-SHA256 of id.timestamp.body>`) with the channel's secret `whsec_…`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from server.channels.texts import Ping

KINDS = ("discord", "slack", "matrix", "ntfy", "webhook")
#: Discord's limit on a message's content.
DISCORD_LIMIT = 2000
_SECRET_PREFIX = "whsec_"


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One request to make: its method, URL, headers and body."""

    method: str
    url: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True, slots=True)
class Destination:
    """Where a channel's pings go: its kind, URL and, as the kind needs, the Matrix room or
    ntfy topic (`target`), the token and the webhook's signing secret."""

    kind: str
    url: str
    target: str | None = None
    token: str | None = None
    secret: str | None = None


def new_secret() -> str:
    """A webhook's signing secret: `whsec_` and 24 random bytes in base64."""
    return _SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode("ascii")


def signature(secret: str, delivery_id: str, timestamp: int, body: bytes) -> str:
    """The Standard Webhooks signature of a body: `v1,` and the base64 HMAC-SHA256 of
    `id.timestamp.body` under the secret's bytes."""
    key = base64.b64decode(secret.removeprefix(_SECRET_PREFIX))
    signed = f"{delivery_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def slack_escaped(text: str) -> str:
    """Slack's three escapes."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def discord_content(text: str) -> str:
    """A text cut to Discord's limit (with an ellipsis when cut)."""
    return text if len(text) <= DISCORD_LIMIT else text[: DISCORD_LIMIT - 1] + "…"


def request(
    to: Destination,
    *,
    delivery_id: str,
    event: str,
    ping: Ping,
    at: datetime,
    data: dict[str, Any],
) -> Outgoing:
    """The request that delivers `ping` (the event `event`, with its facts `data` for a
    webhook) to `to`, as delivery `delivery_id` at the moment `at`."""
    json_type = {"Content-Type": "application/json"}
    if to.kind == "discord":
        body = {"content": discord_content(ping.text), "allowed_mentions": {"parse": []}}
        return Outgoing("POST", to.url, json_type, _json(body))
    if to.kind == "slack":
        return Outgoing("POST", to.url, json_type, _json({"text": slack_escaped(ping.text)}))
    if to.kind == "matrix":
        room = quote(to.target or "", safe="")
        url = (
            f"{to.url.rstrip('/')}/_matrix/client/v3/rooms/{room}/send/m.room.message/"
            f"{quote(delivery_id, safe='')}"
        )
        headers = {**json_type, "Authorization": f"Bearer {to.token}"}
        return Outgoing("PUT", url, headers, _json({"msgtype": "m.text", "body": ping.text}))
    if to.kind == "ntfy":
        fields: dict[str, object] = {
            "topic": to.target,
            "message": ping.text,
            "title": ping.title,
            "click": ping.link,
            "tags": list(ping.tags),
        }
        headers = {**json_type, **({"Authorization": f"Bearer {to.token}"} if to.token else {})}
        return Outgoing("POST", to.url.rstrip("/") + "/", headers, _json(fields))
    if to.kind == "webhook":
        assert to.secret is not None
        stamp = int(at.timestamp())
        moment = at.astimezone(UTC).isoformat().replace("+00:00", "Z")
        body_bytes = _json({"type": event, "timestamp": moment, "data": data})
        headers = {
            **json_type,
            "webhook-id": delivery_id,
            "webhook-timestamp": str(stamp),
            "webhook-signature": signature(to.secret, delivery_id, stamp, body_bytes),
        }
        return Outgoing("POST", to.url, headers, body_bytes)
    raise ValueError(f"unknown kind of channel {to.kind!r}")
