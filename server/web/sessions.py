"""Who is looking at a page, and that a form was sent from our own page.

Signing in on the web exchanges a mailed code for an API token like `cafe login` does; the
token's secret lives in the session cookie (signed, `HttpOnly`, `SameSite=Lax`, `Secure`
when the service is served over https) and signing out revokes it. So a web session is a
token a player can see and revoke in /settings like any other.

Every form carries the session's CSRF token; a POST without it changes nothing. Every page
goes out with a Content-Security-Policy that allows scripts from this site only.
"""

from __future__ import annotations

import hmac
import secrets

from flask import Flask, Response, g, request, session
from sqlmodel import Session

from cafe.i18n import N_, lazy_gettext
from server import auth
from server.config import settings_of
from server.db import get_session
from server.domain import Forbidden
from server.models import ApiToken, Player, utcnow

#: The label of the tokens behind web sessions (stored as it is here, in English; /settings
#: shows it in the reader's language).
WEB_LABEL = N_("web sign-in")

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)


def signed_in() -> Player | None:
    """The player whose session this request carries, or None (a revoked token signs out)."""
    if "viewer" not in g:
        secret = session.get("token")
        found = auth.owner_of(get_session(), secret) if secret else None
        g.viewer = found.player if found is not None else None
        g.token_id = found.token_id if found is not None else None
    viewer: Player | None = g.viewer
    return viewer


def sign_in(player: Player, secret: str) -> None:
    """Start a session for `player` with the token `secret` (a new CSRF token too)."""
    session.clear()
    session["token"] = secret
    session["csrf"] = secrets.token_urlsafe(24)
    session.permanent = True
    g.viewer = player


def sign_out(db: Session) -> None:
    """End the session and revoke its token (read by the id sign-in kept, `g.token_id`)."""
    viewer = signed_in()
    token_id: int | None = g.get("token_id")
    token = db.get(ApiToken, token_id) if viewer is not None and token_id is not None else None
    if token is not None and token.revoked_at is None:
        token.revoked_at = utcnow()
        db.add(token)
        db.commit()
    session.clear()


def csrf_token() -> str:
    """The session's CSRF token, made on first use (signed-out forms need one too)."""
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    token: str = session["csrf"]
    return token


def check_csrf() -> None:
    """Refuse a form that did not come from one of our pages in this session."""
    sent = request.form.get("csrf", "")
    expected = session.get("csrf", "")
    if not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
        raise Forbidden(
            "csrf_failed",
            lazy_gettext(
                "this form is out of date or did not come from this site; reload the page and retry"
            ),
        )


def init_app(app: Flask) -> None:
    """Cookie settings and the security headers of every page."""
    app.config.update(
        SESSION_COOKIE_NAME="cafe_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=settings_of(app).base_url.startswith("https://"),
        # The cookie is written only when the session changes (sign-in, a flash message):
        # refreshed on every answer, a preview answered after the turn's redirect put back
        # the cookie without the turn's "You played …" message.
        SESSION_REFRESH_EACH_REQUEST=False,
    )
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["signed_in"] = signed_in

    @app.after_request
    def _page_headers(response: Response) -> Response:
        if response.mimetype == "text/html":
            response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
            response.headers.setdefault("X-Content-Type-Options", "nosniff")
            response.headers.setdefault("Referrer-Policy", "same-origin")
        return response
