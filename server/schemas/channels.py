"""Channels beyond email (issue 26): what a player (or a league's organiser, for the league's
shared channel) sends to add one and what they are shown.

A channel's URL, room, topic and tokens are secrets: a response shows only the URL's
scheme and host (`url`), and a webhook's signing secret once, in the answer that made it.
"""

from __future__ import annotations

from typing import Annotated, Literal, cast

from pydantic import Field

from cafe.i18n import N_
from server.postbox.pings import CHOOSABLE, DEFAULT_EVENTS, LEAGUE_EVENTS
from server.schemas.fields import LINE_PATTERN, PublicModel, RequestModel, SparseModel, Timestamp

ChannelKind = Literal["discord", "slack", "matrix", "ntfy", "webhook"]
EventName = Literal["your_turn", "reminder", "game_over", "message", "league"]
assert set(EventName.__args__) == set(CHOOSABLE)  # type: ignore[attr-defined]  # one list
LeagueEventName = Literal["your_turn", "game_over", "league"]
assert set(LeagueEventName.__args__) == set(LEAGUE_EVENTS)  # type: ignore[attr-defined]

#: A secret field: one line of printable characters, at most 500.
Secret = Annotated[str, Field(min_length=1, max_length=500, pattern=LINE_PATTERN)]


class ChannelCreate(RequestModel):
    """A new channel: its kind, where it goes and the events it takes."""

    kind: ChannelKind = Field(description=N_("discord, slack, matrix, ntfy or webhook"))
    url: str = Field(
        min_length=8,
        max_length=2000,
        pattern=LINE_PATTERN,
        description=N_(
            "the webhook's URL (discord, slack, webhook) or the server's (matrix, ntfy), https"
        ),
    )
    events: list[EventName] = Field(
        default_factory=lambda: [cast(EventName, event.value) for event in DEFAULT_EVENTS],
        min_length=1,
        max_length=5,
        description=N_("what to be told of: your_turn, reminder, game_over, message, league"),
    )
    room: Secret | None = Field(default=None, description=N_("matrix: the room's id (!…:server)"))
    topic: Secret | None = Field(default=None, description=N_("ntfy: the topic"))
    token: Secret | None = Field(
        default=None, description=N_("matrix: the access token; ntfy: a bearer token")
    )


class LeagueChannelCreate(ChannelCreate):
    """A new channel of a league, shared by its members: it takes a league's events only (a
    reminder and table talk are each player's own)."""

    events: list[LeagueEventName] = Field(  # type: ignore[assignment]
        default_factory=lambda: [cast(LeagueEventName, event.value) for event in LEAGUE_EVENTS],
        min_length=1,
        max_length=3,
        description=N_(
            "some of your_turn, game_over, league: reminder and message are each player's"
            " own, not a league's"
        ),
    )


class ChannelPublic(SparseModel):
    """A channel as its owner is shown it: never its secrets, only the URL's scheme and
    host; `secret` (a webhook's signing secret) only in the answer that made it."""

    id: int
    kind: str
    url: str
    events: list[str]
    state: str
    disabled_reason: str | None = None
    last_error: str | None = None
    last_sent_at: Timestamp | None = None
    created_at: Timestamp
    secret: str | None = None


class ChannelList(PublicModel):
    """The caller's channels."""

    channels: list[ChannelPublic]


class ChannelTestResult(PublicModel):
    """What the receiver answered a test message: `delivered` (a 2xx), its status (None: no
    answer), the first 200 characters of its body, or why nothing was sent or answered."""

    delivered: bool
    status: int | None
    body: str
    error: str | None
