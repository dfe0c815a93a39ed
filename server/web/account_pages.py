"""The pages around a player: `/` (the front door, or your games), `/signin` (email → code by
mail → signed in), `/signin/link/<code>` (the page an emailed sign-in link opens: a button
that signs in), `/signout`, and `/settings` (email preferences and API tokens).

Sign-in uses the API's own accounts, codes and limits (`server.accounts`). The page says the
same thing whether or not an address has an account, so it cannot be used to find out who
plays here.
"""

from __future__ import annotations

from datetime import date, datetime, time

from flask import (
    Blueprint,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from pydantic import ValidationError
from werkzeug.wrappers import Response  # flask's subclass, and `redirect()`'s

from cafe import i18n
from cafe.i18n import gettext, lazy_gettext, ngettext
from cafe.render import quantities
from server import accounts, preferences, signin, throttle
from server.apispec import page, refusal
from server.clock import timesource, vacations
from server.config import current_settings
from server.db import get_session
from server.domain import DomainError, Unreadable
from server.games import store
from server.i18n import use_for_request
from server.league.public import leagues_of
from server.mail import times
from server.models import ApiToken, GameStatus, Player, TurnEmails
from server.schemas.accounts import (
    PlayerCreate,
    PreferencesUpdate,
    SignInCodeCreate,
    TokenCreate,
)
from server.schemas.clock import VacationCreate
from server.web import channel_pages
from server.web.sessions import WEB_LABEL, check_csrf, sign_in, sign_out, signed_in

bp = Blueprint("account_pages", __name__)


def _safe_next(target: str | None) -> str:
    """Where to go after signing in: a path on this site only (never another host)."""
    if target and target.startswith("/") and not target.startswith("//"):
        return target
    return "/"


@bp.get("/")
@page(200)
def home() -> str:
    """Signed out: what this is. Signed in: your games, those waiting for you first with
    the time left, invitations with a button to take the seat, and your leagues."""
    player = signed_in()
    if player is None:
        return render_template("web/welcome.html")
    found = store.list_games(get_session(), player=player, status=None, mine=True, limit=200)
    waiting, running, open_, finished = [], [], [], []
    for game, names in found:
        state = game.state
        if game.status == GameStatus.OPEN:
            open_.append((game, names))
        elif game.status == GameStatus.FINISHED:
            finished.append((game, names))
        elif state is not None and state["players"][state["to_move"]] == player.name:
            waiting.append((game, names))
        else:
            running.append((game, names))
    invited = [
        (game, names)
        for game, names in store.list_games(
            get_session(), player=player, status=GameStatus.OPEN, mine=False, limit=200
        )
        if player.name in game.invited and player.name not in names
    ]
    now = timesource.now()
    return render_template(
        "web/home.html",
        waiting=waiting,
        time_left={
            game.id: quantities.time_left(game.deadline - now)
            for game, _ in waiting
            if game.deadline
        },
        running=running,
        open_games=open_,
        finished=finished[:10],
        invited=invited,
        leagues=leagues_of(get_session(), player),
    )


def _signin_page(step: str, status: int = 200, **context: object) -> tuple[str, int]:
    """The sign-in page at `step` ("email": ask for the address, "code": for the code, which
    is valid for `minutes`)."""
    minutes = max(1, current_settings().signin_code_ttl // 60)
    return render_template("web/signin.html", step=step, minutes=minutes, **context), status


@bp.get("/signin")
@page(200)
def form() -> str:
    """Ask for an email address (or a name and one, to register)."""
    return render_template(
        "web/signin.html", step="email", next=_safe_next(request.args.get("next"))
    )


@bp.post("/signin")
@page(200, 400, 403, 413)
def send_code() -> tuple[str, int]:
    """Mail a sign-in code (registering first when a name is given), then ask for it. The
    answer is the same whether or not the address has an account."""
    check_csrf()
    target = _safe_next(request.form.get("next"))
    session = get_session()
    name = request.form.get("name", "").strip()
    typed = request.form.get("email", "")
    try:
        if name:
            new = PlayerCreate.model_validate({"name": name, "email": typed})
            throttle.attempt(
                session, accounts.signups_limit(current_settings()), throttle.client_address()
            )
            accounts.register(session, name=new.name, email=new.email, config=current_settings())
            email = new.email
        else:
            email = SignInCodeCreate.model_validate({"email": typed}).email
            throttle.attempt(
                session, accounts.codes_limit(current_settings()), throttle.client_address()
            )
            accounts.request_code(session, email=email, config=current_settings())
    except (ValidationError, DomainError) as error:
        session.rollback()
        problem = refusal(error).message if isinstance(error, ValidationError) else error.message
        return _signin_page("email", 400, next=target, problem=problem, name=name)
    return _signin_page("code", email=email, next=target)


@bp.post("/signin/code")
@page(303, 400, 403, 413)
def redeem() -> Response | tuple[str, int]:
    """Exchange the mailed code (or the email's sign-in link, pasted) for a session."""
    check_csrf()
    target = _safe_next(request.form.get("next"))
    email = request.form.get("email", "")
    session = get_session()
    code = signin.code_of_link(request.form.get("code", ""))
    try:
        data = TokenCreate.model_validate({"email": email, "code": code, "label": WEB_LABEL})
        _, secret = accounts.redeem_signin_code(
            session,
            email=data.email,
            code=data.code,
            label=WEB_LABEL,
            client=throttle.client_address(),
            config=current_settings(),
        )
    except (ValidationError, DomainError) as error:
        problem = refusal(error).message if isinstance(error, ValidationError) else error.message
        return _signin_page("code", 400, email=email, next=target, problem=problem)
    player = accounts.find_player(session, email=data.email)
    assert player is not None
    sign_in(player, secret)
    use_for_request(player)  # the greeting is in the language of the pages from now on
    flash(gettext("Signed in as %(player)s.", player=player.name))
    return redirect(target, code=303)


@bp.get("/signin/link/<code>")
@page(200)
def link(code: str) -> str:
    """The page a sign-in link opens: whom it signs in, and a button that does. Opening it
    changes nothing (mail scanners follow links)."""
    owner = (
        accounts.link_owner(get_session(), code, config=current_settings())
        if signin.is_link_code(code)
        else None
    )
    return render_template(
        "web/signin.html", step="link", code=code, owner=None if owner is None else owner.name
    )


@bp.post("/signin/link/<code>")
@page(303, 400, 403, 413)
def redeem_link(code: str) -> Response | tuple[str, int]:
    """Sign in with the link's button."""
    check_csrf()
    try:
        player, secret = accounts.redeem_signin_link(
            get_session(), code=code, label=WEB_LABEL, config=current_settings()
        )
    except DomainError as error:
        return _signin_page("link", 400, code=code, owner=None, problem=error.message)
    sign_in(player, secret)
    use_for_request(player)  # the greeting is in the language of the pages from now on
    flash(gettext("Signed in as %(player)s.", player=player.name))
    return redirect(url_for("account_pages.home"), code=303)


@bp.post("/signout")
@page(303, 403, 413)
def signout() -> Response:
    """End the session (its token is revoked)."""
    check_csrf()
    sign_out(get_session())
    return redirect(url_for("account_pages.home"), code=303)


@bp.get("/settings")
@page(200, 302)
def settings() -> Response | str:
    """Email preferences, time zone and reminders, vacation, channels and API tokens."""
    player = signed_in()
    if player is None:
        return redirect(url_for("account_pages.form", next="/settings"))
    session = get_session()
    status = vacations.status(session, player)
    current = status.current
    return render_template(
        "web/settings.html",
        player=player,
        tokens=[(token, _label(token)) for token in accounts.list_tokens(session, player=player)],
        **channel_pages.section(session, player),
        choices=list(TurnEmails),
        languages=i18n.NAMES,
        bank=quantities.bank(quantities.bank_hours(status.bank_days)),
        away=None
        if current is None
        else (
            times.local(current.start, player.timezone),
            times.local(current.end, player.timezone),
        ),
    )


def _label(token: ApiToken) -> str | None:
    """A token's label as the settings page shows it: a web session's in the reader's
    language (it is stored in English), any other as its owner wrote it."""
    return gettext(WEB_LABEL) if token.label == WEB_LABEL else token.label


@bp.post("/settings/preferences")
@page(303, 302, 400, 403, 413)
def change_preferences() -> Response | tuple[str, int]:
    """Save the preferences form (email, time zone, reminders), checked as the API checks."""
    check_csrf()
    player = signed_in()
    if player is None:
        return redirect(url_for("account_pages.form", next="/settings"))
    form = request.form
    try:
        changes = PreferencesUpdate.model_validate(
            {
                "turn_emails": form.get("turn_emails", ""),
                "others_turns": form.get("others_turns") == "on",
                "reminders": form.get("reminders") == "on",
                "timezone": form.get("timezone", "").strip(),
                "language": form.get("language", player.language),
                "talk_emails": form.get("talk_emails", player.talk_emails),
            }
        )
    except ValidationError as error:
        flash(refusal(error).message)
        return redirect(url_for("account_pages.settings"), code=303)
    preferences.update(get_session(), player, changes.model_dump(exclude_unset=True))
    use_for_request(player)  # the answer is in the language just chosen
    flash(gettext("Your preferences are saved."))
    return redirect(url_for("account_pages.settings"), code=303)


@bp.post("/settings/vacation")
@page(303, 302, 403, 413)
def change_vacation() -> Response:
    """Declare a vacation of whole days from today (or a later date), or end it now."""
    check_csrf()
    player = signed_in()
    if player is None:
        return redirect(url_for("account_pages.form", next="/settings"))
    session = get_session()
    try:
        if request.form.get("action") == "end":
            vacations.end(session, player, config=current_settings())
            flash(gettext("Your vacation is over; unused whole hours went back to your bank."))
        else:
            request_ = VacationCreate.model_validate(
                {"days": _whole(request.form.get("days", "")), "start": _moment(player)}
            )
            vacations.declare(
                session,
                player,
                days=request_.days,
                start=request_.start,
                config=current_settings(),
            )
            flash(
                ngettext(
                    "Vacation declared: %(num)s day.",
                    "Vacation declared: %(num)s days.",
                    request_.days,
                )
            )
    except ValidationError as error:
        session.rollback()
        flash(refusal(error).message)
    except DomainError as error:
        session.rollback()
        flash(error.message)
    return redirect(url_for("account_pages.settings"), code=303)


def _whole(text: str) -> int | str:
    """The number a form field holds (text that is none stays text, for the model to refuse)."""
    return int(text) if text.strip().isdigit() else text


def _moment(player: Player) -> datetime | None:
    """The start date of the vacation form, as midnight in the player's zone (None: now,
    also for today's date, whose midnight has passed)."""
    typed = request.form.get("start", "").strip()
    if not typed:
        return None
    try:
        day = date.fromisoformat(typed)
    except ValueError:
        raise Unreadable(
            "invalid_request",
            lazy_gettext("%(typed)s is not a date like 2026-12-24", typed=repr(typed)),
        ) from None
    zone = times.zone(player.timezone)
    if day == timesource.now().astimezone(zone).date():
        return None
    return datetime.combine(day, time(), tzinfo=zone)


@bp.post("/settings/tokens/<int:token_id>/revoke")
@page(303, 302, 403, 404, 413)
def revoke_token(token_id: int) -> Response:
    """Revoke one of the player's tokens (revoking this session's signs out)."""
    check_csrf()
    player = signed_in()
    if player is None:
        return redirect(url_for("account_pages.form", next="/settings"))
    accounts.revoke_token(get_session(), player=player, token_id=token_id)
    flash(gettext("The token is revoked: whatever used it is signed out."))
    return redirect(url_for("account_pages.settings"), code=303)
