"""The channels section of `/settings` (issue 26): add a channel, remove one, send one a
test. The forms post here and come back to `/settings` with what happened; the section
itself is `templates/web/_channels.html`, which `settings.html` includes."""

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
from server.models import Player
from server.postbox.pings import CHOOSABLE, DEFAULT_EVENTS
from server.schemas.channels import ChannelCreate
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

_BACK = "/settings"


def section(session: Session, player: Player) -> dict[str, Any]:
    """What the section shows: the player's channels (masked), the events one may take and
    those a new one takes unless told, and the most a player may have."""
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
            for channel in store.of_owner(session, player)
        ],
        "events": [event.value for event in CHOOSABLE],
        "kind_names": {code: _(name) for code, name in KIND_NAMES.items()},
        "event_names": {code: _(name) for code, name in EVENT_NAMES.items()},
        "default_events": [event.value for event in DEFAULT_EVENTS],
        "most": store.MOST,
    }


def _back() -> Response:
    return redirect(url_for("account_pages.settings") + "#channels", code=303)


@bp.post("/settings/channels")
@page(303, 302, 403, 413)
def add() -> Response:
    """Add a channel from the form, checked as the API checks it."""
    check_csrf()
    player = signed_in()
    if player is None:
        return redirect(url_for("account_pages.form", next=_BACK))
    form = request.form
    given = {
        name: form.get(name, "").strip() for name in ("room", "topic", "token") if form.get(name)
    }
    session = get_session()
    try:
        wanted = ChannelCreate.model_validate(
            {
                "kind": form.get("kind", ""),
                "url": form.get("url", "").strip(),
                "events": form.getlist("events"),
                **given,
            }
        )
        channel = store.add(
            session,
            player,
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
        return _back()
    except DomainError as error:
        session.rollback()
        flash(error.message)
        return _back()
    flash(_("Channel %(id)s added.", id=channel.id))
    if channel.secret is not None:
        flash(_("Its signing secret, shown only now: %(secret)s", secret=channel.secret))
    return _back()


@bp.post("/settings/channels/<int:channel_id>/remove")
@page(303, 302, 403, 404, 413)
def remove(channel_id: int) -> Response:
    """Remove one of the player's channels."""
    check_csrf()
    player = signed_in()
    if player is None:
        return redirect(url_for("account_pages.form", next=_BACK))
    store.remove(get_session(), player, channel_id)
    flash(_("Channel %(id)s removed.", id=channel_id))
    return _back()


@bp.post("/settings/channels/<int:channel_id>/test")
@page(303, 302, 403, 404, 413)
def test(channel_id: int) -> Response:
    """Send the channel a test message now and show what its receiver answered."""
    check_csrf()
    player = signed_in()
    if player is None:
        return redirect(url_for("account_pages.form", next=_BACK))
    answer = store.send_test(get_session(), player, channel_id, config=current_settings())
    if answer.ok:
        flash(_("Delivered: the receiver answered %(status)s.", status=answer.status))
    elif answer.status is None:
        flash(_("Not delivered: %(error)s", error=answer.error or ""))
    else:
        flash(_("Not delivered: the receiver answered %(status)s.", status=answer.status))
    if answer.body:
        flash(answer.body)
    return _back()
