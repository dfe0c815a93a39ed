"""A player's or a league's channels (issue 26): adding one (its URL checked by the guard),
listing, removing, and "send a test", which delivers at once and reports the receiver's
answer. Each function takes the channel's owner: a `Player`, or a `League` (its shared
channels, which its organiser alone manages: `organised_league` finds the league for them,
or refuses).

At most `MOST` channels an owner. A channel's secrets leave this module only masked
(`masked_url`), but for a webhook's signing secret, returned once by `add`.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from sqlalchemy import ColumnElement, func
from sqlmodel import Session, col, select

from cafe.i18n import Text, lazy_gettext
from server.channels import formats, guard, sending, texts
from server.config import Settings
from server.domain import Conflict, NotFound, Refused
from server.league import store as leagues
from server.models import Channel, League, Player, utcnow
from server.postbox import pings

#: The most channels one player, or one league, may have.
MOST = 5

#: Whose channels: a player's own, or a league's shared ones.
Owner = Player | League


def organised_league(session: Session, slug: str, player: Player) -> League:
    """The league `slug` (404 if none) whose channels `player` manages: its organiser only
    (403 `not_organiser`)."""
    league = leagues.load_league(session, slug)
    leagues.organiser_only(
        league,
        player,
        lazy_gettext("only the organiser of %(league)s can manage its channels", league=slug),
    )
    return league


def _owned_by(owner: Owner) -> ColumnElement[bool]:
    """The channels of `owner`."""
    if isinstance(owner, League):
        return col(Channel.league_id) == owner.id
    return col(Channel.player_id) == owner.id


def _is_owner(channel: Channel, owner: Owner) -> bool:
    if isinstance(owner, League):
        return channel.league_id == owner.id
    return channel.player_id == owner.id


def masked_url(url: str) -> str:
    """A channel's URL as it is shown after it was made: its scheme and host only."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or ''}/…"


def destination(channel: Channel) -> formats.Destination:
    """Where `channel`'s pings go."""
    return formats.Destination(
        kind=channel.kind,
        url=channel.url,
        target=channel.target,
        token=channel.token,
        secret=channel.secret,
    )


def _fields_of_kind(kind: str, room: str | None, topic: str | None, token: str | None) -> None:
    """Refuse the fields a kind does not take, or lacks (nothing changed)."""
    if kind == "matrix" and not (room and token):
        raise Refused(
            "channel_fields", lazy_gettext("A Matrix channel needs its room and access token.")
        )
    if kind == "ntfy" and not topic:
        raise Refused("channel_fields", lazy_gettext("An ntfy channel needs its topic."))
    if kind != "matrix" and room is not None:
        raise Refused("channel_fields", lazy_gettext("Only a Matrix channel takes a room."))
    if kind != "ntfy" and topic is not None:
        raise Refused("channel_fields", lazy_gettext("Only an ntfy channel takes a topic."))
    if kind not in ("matrix", "ntfy") and token is not None:
        raise Refused("channel_fields", lazy_gettext("Only Matrix and ntfy channels take a token."))


def add(
    session: Session,
    owner: Owner,
    *,
    kind: str,
    url: str,
    events: Sequence[str],
    room: str | None = None,
    topic: str | None = None,
    token: str | None = None,
    config: Settings,
    resolver: guard.Resolver = guard.system_resolver,
) -> Channel:
    """Add a channel for `owner` (committed); its URL must pass the guard now, and does
    again at every delivery. A league's channel takes only `pings.LEAGUE_EVENTS` (the
    request's model refuses the others, naming them)."""
    assert owner.id is not None
    _fields_of_kind(kind, room, topic, token)
    try:
        guard.check(url, allowed=config.channels_allowed, resolver=resolver)
    except guard.Refused as refusal:
        raise Refused("channel_refused", str(refusal)) from None
    count = session.exec(select(func.count()).select_from(Channel).where(_owned_by(owner))).one()
    if count >= MOST:
        raise Conflict("too_many_channels", full(owner))
    channel = Channel(
        player_id=owner.id if isinstance(owner, Player) else None,
        league_id=owner.id if isinstance(owner, League) else None,
        kind=kind,
        url=url,
        target=room if kind == "matrix" else topic,
        token=token,
        secret=formats.new_secret() if kind == "webhook" else None,
        events=list(dict.fromkeys(events)),
    )
    session.add(channel)
    session.commit()
    session.refresh(channel)
    return channel


def full(owner: Owner) -> Text:
    """What `owner` is told when they have `MOST` channels."""
    if isinstance(owner, League):
        return lazy_gettext(
            "%(league)s has %(most)s channels, the most a league may have: remove one first.",
            league=owner.slug,
            most=MOST,
        )
    return lazy_gettext(
        "You have %(most)s channels, the most a player may have: remove one first.", most=MOST
    )


def of_owner(session: Session, owner: Owner) -> list[Channel]:
    """`owner`'s channels, oldest first."""
    return list(session.exec(select(Channel).where(_owned_by(owner)).order_by(col(Channel.id))))


def one(session: Session, owner: Owner, channel_id: int) -> Channel:
    """`owner`'s channel `channel_id`, or 404 (another's channel is nobody's to them)."""
    channel = session.get(Channel, channel_id)
    if channel is None or not _is_owner(channel, owner):
        if isinstance(owner, League):
            raise NotFound(
                "no_such_channel",
                lazy_gettext(
                    "%(league)s has no channel %(channel)s.", league=owner.slug, channel=channel_id
                ),
            )
        raise NotFound(
            "no_such_channel",
            lazy_gettext("You have no channel %(channel)s.", channel=channel_id),
        )
    return channel


def remove(session: Session, owner: Owner, channel_id: int) -> None:
    """Remove `owner`'s channel `channel_id` with its deliveries (committed)."""
    pings.remove_channels(session, [one(session, owner, channel_id).id or 0])
    session.commit()


def send_test(
    session: Session,
    owner: Owner,
    channel_id: int,
    *,
    config: Settings,
    resolver: guard.Resolver = guard.system_resolver,
) -> sending.Answer:
    """Deliver a test message to the channel now and report what its receiver answered;
    a disabled channel may be tested, and a 2xx enables it again."""
    channel = one(session, owner, channel_id)
    try:
        target_url = guard.check(channel.url, allowed=config.channels_allowed, resolver=resolver)
    except guard.Refused as refusal:
        return sending.Answer(status=None, error=str(refusal))
    ping = texts.test_message(config.base_url, league=isinstance(owner, League))
    outgoing = formats.request(
        destination(channel),
        delivery_id=pings.new_delivery_id(),
        event=pings.ChannelEvent.TEST.value,
        ping=ping,
        at=utcnow(),
        data={"text": ping.text, "url": ping.link},
    )
    answer = sending.send(
        outgoing.method,
        target_url,
        body=outgoing.body,
        headers=outgoing.headers,
        url=outgoing.url,
    )
    if answer.ok:
        channel.state = pings.ACTIVE
        channel.disabled_reason = None
        channel.failing_since = None
        channel.last_error = None
        channel.last_sent_at = utcnow()
    else:
        channel.last_error = answer.summary()[:500]
    session.add(channel)
    session.commit()
    return answer
