"""The language switch at the foot of every page: a link per language,
`/language/<code>?next=<path>`, which sets the `lang` cookie that pages read when nobody is
signed in (`server.i18n.request_language`) and goes back to the page it was clicked on.

For a signed-in player the link carries the session's CSRF token too and changes their
`language` preference (their pages and emails): a signed-in player's pages follow their
preference, not the cookie. A link without the token (from another site) sets the cookie
only, which a signed-in player's pages do not read.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlencode

from flask import Blueprint, Flask, current_app, redirect, request, session
from werkzeug.wrappers import Response

from cafe import i18n
from cafe.i18n import gettext as _
from server import preferences
from server.apispec import page
from server.db import get_session
from server.domain import NotFound
from server.i18n import LANGUAGE_COOKIE, use_for_request
from server.web.sessions import csrf_token, signed_in

bp = Blueprint("languages", __name__)

#: How long the cookie keeps a signed-out reader's choice.
KEPT = timedelta(days=365)


@dataclass(frozen=True, slots=True)
class Choice:
    """One link of the switch: the language's code, its name in itself, where the link
    goes, and whether it is the language of this page."""

    code: str
    name: str
    href: str
    current: bool


def local_path(target: str | None) -> str:
    """`target` if it is a path on this site (never another host: `//host`, `/\\host`, a
    scheme), else the front page."""
    if (
        target
        and target.startswith("/")
        and not target.startswith(("//", "/\\"))
        and not any(ord(c) < 32 for c in target)
    ):
        return target
    return "/"


def choices() -> list[Choice]:
    """The switch of this page: a link to each language, back to this page."""
    here = request.full_path if request.query_string else request.path
    query = {"next": here}
    if signed_in() is not None:
        query["csrf"] = csrf_token()
    current = i18n.current()
    # the path's slashes stay as they are: the link names the page as its address does
    back = urlencode(query, safe="/")
    return [
        Choice(code, name, f"/language/{code}?{back}", code == current)
        for code, name in i18n.NAMES.items()
    ]


@bp.get("/language/<code>")
@page(303, 404)
def switch(code: str) -> Response:
    """Read the site in `code` from now on, and go back to the page `next` names."""
    if code not in i18n.LANGUAGES:
        raise NotFound(
            "no_such_language",
            _(
                "there is no language %(code)s here; ours are %(codes)s",
                code=repr(code),
                codes=", ".join(i18n.LANGUAGES),
            ),
        )
    response = redirect(local_path(request.args.get("next")), code=303)
    response.set_cookie(
        LANGUAGE_COOKIE,
        code,
        max_age=int(KEPT.total_seconds()),
        httponly=True,
        samesite="Lax",
        secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")),
    )
    player = signed_in()
    sent, expected = request.args.get("csrf", ""), session.get("csrf", "")
    if player is not None and expected and hmac.compare_digest(sent.encode(), expected.encode()):
        preferences.update(get_session(), player, {"language": code})
        use_for_request(player)
    return response


def init_app(app: Flask) -> None:
    """Register the switch's route, and its links for the page layout (`base.html`)."""
    app.register_blueprint(bp)
    app.jinja_env.globals["language_choices"] = choices
