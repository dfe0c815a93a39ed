"""Routes for the caller's channels beyond email (issue 26): `POST`, `GET /api/me/channels`,
`DELETE /api/me/channels/<id>` and `POST /api/me/channels/<id>/test`."""

from __future__ import annotations

from flask import Blueprint, g

from server.apispec import validate
from server.auth import login_required
from server.channels import store
from server.config import current_settings
from server.db import get_session
from server.models import Channel
from server.schemas.channels import (
    ChannelCreate,
    ChannelList,
    ChannelPublic,
    ChannelTestResult,
)

bp = Blueprint("channels", __name__, url_prefix="/api/me")


def shown(channel: Channel, *, with_secret: bool = False) -> ChannelPublic:
    """`channel` as its owner sees it: masked, the signing secret only when just made."""
    assert channel.id is not None
    fields = {
        "id": channel.id,
        "kind": channel.kind,
        "url": store.masked_url(channel.url),
        "events": channel.events,
        "state": channel.state,
        "disabled_reason": channel.disabled_reason,
        "last_error": channel.last_error,
        "last_sent_at": channel.last_sent_at,
        "created_at": channel.created_at,
    }
    if with_secret and channel.secret is not None:
        fields["secret"] = channel.secret
    return ChannelPublic(**fields)


@bp.post("/channels")
@login_required
@validate(201, ChannelPublic, 409, 422, json=ChannelCreate)
def add(json: ChannelCreate) -> tuple[ChannelPublic, int]:
    """Add a channel (at most 5): its URL is checked now and at every delivery; a webhook's
    signing secret is in this answer only."""
    channel = store.add(
        get_session(),
        g.player,
        kind=json.kind,
        url=json.url,
        events=json.events,
        room=json.room,
        topic=json.topic,
        token=json.token,
        config=current_settings(),
    )
    return shown(channel, with_secret=True), 201


@bp.get("/channels")
@login_required
@validate(200, ChannelList)
def listed() -> ChannelList:
    """The caller's channels, each with its state and last error (secrets masked)."""
    return ChannelList(channels=[shown(c) for c in store.of_owner(get_session(), g.player)])


@bp.delete("/channels/<int:channel_id>")
@login_required
@validate(204, None, 404)
def remove(channel_id: int) -> tuple[str, int]:
    """Remove a channel, its pending deliveries and its secrets."""
    store.remove(get_session(), g.player, channel_id)
    return "", 204


@bp.post("/channels/<int:channel_id>/test")
@login_required
@validate(200, ChannelTestResult, 404)
def test(channel_id: int) -> ChannelTestResult:
    """Send a test message now and report the receiver's answer (its status and the first
    200 characters of its body); a 2xx enables a disabled channel again."""
    answer = store.send_test(get_session(), g.player, channel_id, config=current_settings())
    return ChannelTestResult(
        delivered=answer.ok, status=answer.status, body=answer.body, error=answer.error
    )
