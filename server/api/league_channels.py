"""Routes for a league's shared channels (issue 26), its organiser's only:
`POST`, `GET /api/leagues/<slug>/channels`, `DELETE /api/leagues/<slug>/channels/<id>` and
`POST /api/leagues/<slug>/channels/<id>/test`. They hear every game event of the league's
seasons once (not once per player) and its seasons' starts and ends; shown as a player's
channels are (`server.api.channels.shown`: masked, a webhook's secret once)."""

from __future__ import annotations

from flask import Blueprint, g

from server.api.channels import shown
from server.apispec import validate
from server.auth import login_required
from server.channels import store
from server.config import current_settings
from server.db import get_session
from server.models import League
from server.schemas.channels import (
    ChannelList,
    ChannelPublic,
    ChannelTestResult,
    LeagueChannelCreate,
)

bp = Blueprint("league_channels", __name__, url_prefix="/api/leagues")


def organised(slug: str) -> League:
    """The league `slug` (404 if none), if the caller organises it (403 `not_organiser`)."""
    return store.organised_league(get_session(), slug, g.player)


@bp.post("/<slug>/channels")
@login_required
@validate(201, ChannelPublic, 403, 404, 409, 422, json=LeagueChannelCreate)
def add(slug: str, json: LeagueChannelCreate) -> tuple[ChannelPublic, int]:
    """Add a channel to the league (at most 5): your_turn, game_over and league events of
    its games and seasons, once each; its URL is checked now and at every delivery; a
    webhook's signing secret is in this answer only."""
    channel = store.add(
        get_session(),
        organised(slug),
        kind=json.kind,
        url=json.url,
        events=json.events,
        room=json.room,
        topic=json.topic,
        token=json.token,
        config=current_settings(),
    )
    return shown(channel, with_secret=True), 201


@bp.get("/<slug>/channels")
@login_required
@validate(200, ChannelList, 403, 404)
def listed(slug: str) -> ChannelList:
    """The league's channels, each with its state and last error (secrets masked)."""
    league = organised(slug)
    return ChannelList(channels=[shown(c) for c in store.of_owner(get_session(), league)])


@bp.delete("/<slug>/channels/<int:channel_id>")
@login_required
@validate(204, None, 403, 404)
def remove(slug: str, channel_id: int) -> tuple[str, int]:
    """Remove a league's channel, its pending deliveries and its secrets."""
    store.remove(get_session(), organised(slug), channel_id)
    return "", 204


@bp.post("/<slug>/channels/<int:channel_id>/test")
@login_required
@validate(200, ChannelTestResult, 403, 404)
def test(slug: str, channel_id: int) -> ChannelTestResult:
    """Send a league's channel a test message now and report the receiver's answer (its
    status and the first 200 characters of its body); a 2xx enables it again."""
    answer = store.send_test(get_session(), organised(slug), channel_id, config=current_settings())
    return ChannelTestResult(
        delivered=answer.ok, status=answer.status, body=answer.body, error=answer.error
    )
