"""The channels sections (issue 26) of `/settings` (the player's own) and of a league's page
(the league's shared channels, shown to its organiser only): add a channel, remove one,
send one a test. The forms post here and come back to the page with what happened; the
section itself is `templates/web/_channels.html`, which both pages include."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, request, url_for
from pydantic import ValidationError
from sqlmodel import Session
from werkzeug.wrappers import Response

from cafe.i18n import N_
from cafe.i18n import gettext as _
from server.apispec import page, refusal
from server.channels import store
from server.config import current_settings
from server.db import get_session
from server.domain import DomainError
from server.models import League, Player
from server.postbox.pings import CHOOSABLE, DEFAULT_EVENTS, LEAGUE_EVENTS
from server.schemas.channels import ChannelCreate, LeagueChannelCreate
from server.web.sessions import check_csrf, signed_in

bp = Blueprint("channel_pages", __name__)

#: What the page calls each kind of channel: the services by their names, the rest in words.
KIND_NAMES = {
    "discord": "Discord",
    "slack": "Slack",
    "matrix": "Matrix",
    "ntfy": "ntfy",
    "webhook": N_("signed webhook"),
}
#: What the page calls each event a channel can take.
EVENT_NAMES = {
    "your_turn": N_("your turn"),
    "reminder": N_("reminders"),
    "game_over": N_("game over"),
    "message": N_("table talk"),
    "league": N_("league seasons"),
}


def section(session: Session, owner: store.Owner) -> dict[str, Any]:
    """What the section shows for `owner` (a player, or a league to its organiser): the
    channels (masked), the events one may take and those a new one takes unless told, the
    most an owner may have, where its forms post, and its words."""
    league = owner if isinstance(owner, League) else None
    choosable = LEAGUE_EVENTS if league is not None else CHOOSABLE
    return {
        "channels": [
            {
                "id": channel.id,
                "kind": channel.kind,
                "url": store.masked_url(channel.url),
                "events": ", ".join(_(EVENT_NAMES[event]) for event in channel.events),
                "state": channel.state,
                "disabled_reason": channel.disabled_reason,
                "last_error": channel.last_error,
            }
            for channel in store.of_owner(session, owner)
        ],
        "events": [event.value for event in choosable],
        "kind_names": {code: _(name) for code, name in KIND_NAMES.items()},
        "event_names": {code: _(name) for code, name in EVENT_NAMES.items()},
        "default_events": [
            event.value for event in (LEAGUE_EVENTS if league is not None else DEFAULT_EVENTS)
        ],
        "most": store.MOST,
        "channels_action": _action(owner),
        "channels_words": _words(league),
        "channels_full": str(store.full(owner)),
    }


def _words(league: League | None) -> dict[str, str]:
    """The section's heading, introduction, list label and events' legend."""
    if league is None:
        return {
            "heading": _("Channels besides email"),
            "intro": _(
                "Discord, Slack, Matrix, ntfy or a signed webhook can tell you of your turns"
                " too. Their addresses and tokens are secrets: after you add one, only its host"
                " is shown."
            ),
            "label": _("Your channels"),
            "legend": _("Tell me of"),
        }
    return {
        "heading": _("Channels"),
        "intro": _(
            "Discord, Slack, Matrix, ntfy or a signed webhook can tell the league's players of"
            " its games: each turn and each result once, and its seasons; never anyone's"
            " tiles. Only you, the organiser, see this section. Their addresses and tokens"
            " are secrets: after you add one, only its host is shown."
        ),
        "label": _("The league's channels"),
        "legend": _("Tell the channel of"),
    }


def _action(owner: store.Owner) -> str:
    """Where the section's forms post."""
    if isinstance(owner, League):
        return f"/leagues/{owner.slug}/channels"
    return "/settings/channels"


def _back(owner: store.Owner) -> Response:
    if isinstance(owner, League):
        target = url_for("league_pages.show", slug=owner.slug)
    else:
        target = url_for("account_pages.settings")
    return redirect(target + "#channels", code=303)


def _signed_in_or_back(back: str) -> Player | Response:
    """The player signed in, or the sign-in page that comes back to `back`."""
    player = signed_in()
    return player if player is not None else redirect(url_for("account_pages.form", next=back))


def _add(owner: store.Owner, model: type[ChannelCreate]) -> Response:
    """Add a channel from the form for `owner`, checked as the API checks it (`model`)."""
    form = request.form
    given = {
        name: form.get(name, "").strip() for name in ("room", "topic", "token") if form.get(name)
    }
    session = get_session()
    try:
        wanted = model.model_validate(
            {
                "kind": form.get("kind", ""),
                "url": form.get("url", "").strip(),
                "events": form.getlist("events"),
                **given,
            }
        )
        channel = store.add(
            session,
            owner,
            kind=wanted.kind,
            url=wanted.url,
            events=wanted.events,
            room=wanted.room,
            topic=wanted.topic,
            token=wanted.token,
            config=current_settings(),
        )
    except ValidationError as error:
        flash(refusal(error).message)
        return _back(owner)
    except DomainError as error:
        session.rollback()
        flash(error.message)
        return _back(owner)
    flash(_("Channel %(id)s added.", id=channel.id))
    if channel.secret is not None:
        flash(_("Its signing secret, shown only now: %(secret)s", secret=channel.secret))
    return _back(owner)


def _remove(owner: store.Owner, channel_id: int) -> Response:
    store.remove(get_session(), owner, channel_id)
    flash(_("Channel %(id)s removed.", id=channel_id))
    return _back(owner)


def _test(owner: store.Owner, channel_id: int) -> Response:
    """Send the channel a test message now and show what its receiver answered."""
    answer = store.send_test(get_session(), owner, channel_id, config=current_settings())
    if answer.ok:
        flash(_("Delivered: the receiver answered %(status)s.", status=answer.status))
    elif answer.status is None:
        flash(_("Not delivered: %(error)s", error=answer.error or ""))
    else:
        flash(_("Not delivered: the receiver answered %(status)s.", status=answer.status))
    if answer.body:
        flash(answer.body)
    return _back(owner)


@bp.post("/settings/channels")
@page(303, 302, 403, 413)
def add() -> Response:
    """Add one of the player's channels."""
    check_csrf()
    player = _signed_in_or_back("/settings")
    return player if isinstance(player, Response) else _add(player, ChannelCreate)


@bp.post("/settings/channels/<int:channel_id>/remove")
@page(303, 302, 403, 404, 413)
def remove(channel_id: int) -> Response:
    """Remove one of the player's channels."""
    check_csrf()
    player = _signed_in_or_back("/settings")
    return player if isinstance(player, Response) else _remove(player, channel_id)


@bp.post("/settings/channels/<int:channel_id>/test")
@page(303, 302, 403, 404, 413)
def test(channel_id: int) -> Response:
    """Send one of the player's channels a test message now."""
    check_csrf()
    player = _signed_in_or_back("/settings")
    return player if isinstance(player, Response) else _test(player, channel_id)


@bp.post("/leagues/<slug>/channels")
@page(303, 302, 403, 404, 413)
def league_add(slug: str) -> Response:
    """Add a channel to a league (its organiser)."""
    check_csrf()
    player = _signed_in_or_back(f"/leagues/{slug}")
    if isinstance(player, Response):
        return player
    return _add(store.organised_league(get_session(), slug, player), LeagueChannelCreate)


@bp.post("/leagues/<slug>/channels/<int:channel_id>/remove")
@page(303, 302, 403, 404, 413)
def league_remove(slug: str, channel_id: int) -> Response:
    """Remove a league's channel (its organiser)."""
    check_csrf()
    player = _signed_in_or_back(f"/leagues/{slug}")
    if isinstance(player, Response):
        return player
    return _remove(store.organised_league(get_session(), slug, player), channel_id)


@bp.post("/leagues/<slug>/channels/<int:channel_id>/test")
@page(303, 302, 403, 404, 413)
def league_test(slug: str, channel_id: int) -> Response:
    """Send a league's channel a test message now (its organiser)."""
    check_csrf()
    player = _signed_in_or_back(f"/leagues/{slug}")
    if isinstance(player, Response):
        return player
    return _test(store.organised_league(get_session(), slug, player), channel_id)
