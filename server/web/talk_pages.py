"""`/games/<id>/messages` and `/games/<id>/mutes`: writing at a game's table from its page,
and muting a player (`server.games.talk`; what the page shows is `server.web.talk_view`).

Both are POST forms with the session's CSRF token, working without JavaScript: a message
sent goes back to the game's page at its talk; a refused one shows the page again with the
reason and the text as it was written, to mend.
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, request, url_for
from werkzeug import wrappers  # `redirect()` answers werkzeug's Response

from cafe.i18n import gettext
from server.apispec import page
from server.db import get_session
from server.domain import DomainError
from server.errors import domain_status
from server.games import talk
from server.web.game_pages import show_page
from server.web.sessions import check_csrf, signed_in

bp = Blueprint("talk_pages", __name__)


def _back(game_id: int) -> wrappers.Response:
    """To the game's page, at its table talk."""
    return redirect(url_for("game_pages.show", game_id=game_id, _anchor="talk"), code=303)


@bp.post("/games/<int:game_id>/messages")
@page(303, 302, 400, 403, 404, 413, 429)
def write(game_id: int) -> wrappers.Response | tuple[str, int]:
    """Write the form's message at the game's table."""
    check_csrf()
    player = signed_in()
    if player is None:
        return redirect(url_for("account_pages.form", next=f"/games/{game_id}"))
    text = request.form.get("text", "")
    session = get_session()
    try:
        talk.post(session, game_id=game_id, player=player, text=text)
    except DomainError as error:
        session.rollback()
        return show_page(
            game_id, status=domain_status(error), talk_problem=error.message, talk_draft=text
        )
    return _back(game_id)


@bp.post("/games/<int:game_id>/mutes")
@page(303, 302, 403, 404, 413, 422)
def mute(game_id: int) -> wrappers.Response:
    """Mute the form's player (`action=mute`), or hear them again (`action=unmute`)."""
    check_csrf()
    player = signed_in()
    if player is None:
        return redirect(url_for("account_pages.form", next=f"/games/{game_id}"))
    session = get_session()
    talk.readable_game(session, game_id, player)
    name = request.form.get("player", "")
    if request.form.get("action") == "unmute":
        talk.unmute(session, player, name)
        flash(gettext("You hear %(player)s again.", player=name))
    else:
        talk.mute(session, player, name)
        flash(
            gettext(
                "You muted %(player)s: their messages are hidden from you in every game.",
                player=name,
            )
        )
    return _back(game_id)
