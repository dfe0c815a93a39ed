"""`/games/<id>`: a game's page, playing from it, and its record.

Games are public, readable signed out (as on lichess), except private ones: to anyone but
their players and invitees those are the missing-page 404. A player on turn gets their best
turns as buttons and a box for any turn; each is a POST form carrying the version the page
showed and the session's CSRF token, so a page that the game has moved past answers "the
game moved on" with the fresh page, and nothing is played twice.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from pydantic import ValidationError
from werkzeug import wrappers  # `redirect()` answers werkzeug's Response

from cafe import CafeError, Options
from cafe.i18n import gettext, lazy_gettext
from cafe.notation import BIRTHDAY, NOSHRINK
from cafe.render import quantities
from server.apispec import page, refusal
from server.config import current_settings
from server.db import get_session
from server.domain import DomainError, Forbidden, NotFound, from_engine
from server.errors import domain_status
from server.games import store, turns
from server.games.preview import preview_turn
from server.models import GameStatus, TurnSource
from server.schemas.games import GameCreate
from server.web import game_view, talk_view
from server.web.sessions import check_csrf, signed_in

bp = Blueprint("game_pages", __name__)

#: `play.js`, shipped beside the page templates.
PLAY_SCRIPT = (resources.files("server") / "templates" / "web" / "play.js").read_text("utf-8")


def _chosen_turn() -> str:
    """The turn the play form sends: the best turn whose button was pressed, else the typed
    one, with the modifiers chosen beside them (rulebook §13: `noshrink` on a seating turn,
    `birthday=XX`) unless the turn names them already."""
    notation = (request.form.get("hint") or request.form.get("turn", "")).strip()
    words = notation.lower().split()
    if not words:
        return notation
    if (
        request.form.get("noshrink") == "on"
        and words[0] not in ("bar", "swap")
        and NOSHRINK not in words
    ):
        notation += f" {NOSHRINK}"
    nation = request.form.get("birthday", "")
    if nation and not any(word.startswith(f"{BIRTHDAY}=") for word in words):
        notation += f" {BIRTHDAY}={nation}"
    return notation


def show_page(
    game_id: int,
    *,
    status: int = 200,
    problem: str | None = None,
    typed: str = "",
    talk_problem: str | None = None,
    talk_draft: str = "",
) -> tuple[str, int]:
    """The game's page as `viewer` sees it, answered with `status`: `problem` said at its
    top, `typed` in the turn box; `talk_problem` and `talk_draft` at its table talk
    (`server.web.talk_view`; at the top for a viewer who does not read it)."""
    session = get_session()
    viewer = signed_in()
    game, creator, league = store.load_game_and_creator(session, game_id)
    store.visible_game(session, game, viewer)
    view = game_view.build(session, game, creator, viewer, league)
    talk = talk_view.build(session, game, viewer, problem=talk_problem, draft=talk_draft)
    if talk is None and talk_problem:
        problem = talk_problem
    html = render_template("web/game.html", view=view, problem=problem, typed=typed, talk=talk)
    return html, status


def _new_game_request() -> GameCreate:
    """The home page's "new game" form as the API's request: invitees separated by commas
    or spaces, `private` a checkbox, `days_per_turn` a number of days or "none" (no clock;
    left out: the default clock), `computers` the computer players' seats (0: none) and
    `level` their strength."""
    wanted: dict[str, object] = {
        "seats": _number(request.form.get("seats", "")),
        "invite": request.form.get("invite", "").replace(",", " ").split() or None,
        "private": request.form.get("private") == "on",
    }
    days = request.form.get("days_per_turn", "")
    if days:
        wanted["clock"] = None if days == "none" else {"days_per_turn": _number(days)}
    computers = request.form.get("computers", "0")
    if computers != "0":
        level = request.form.get("level", "3")
        wanted["computer"] = {"seats": _number(computers), "level": _number(level)}
    return GameCreate.model_validate(wanted)


def _number(text: str) -> int | str:
    """A form's whole number as one (anything else as typed, for the model to refuse)."""
    return int(text) if text.isdigit() and len(text) < 10 else text


@bp.post("/games")
@page(303, 302, 403, 413)
def create() -> wrappers.Response:
    """Open a game from the home page's form, then show it; a refusal goes back home, said."""
    check_csrf()
    player = signed_in()
    if player is None:
        return redirect(url_for("account_pages.form", next="/"))
    session = get_session()
    try:
        wanted = _new_game_request()
        game = store.create_game(
            session,
            creator=player,
            seats=wanted.seats,
            options=Options(),
            invite=wanted.invite or [],
            clock=None if wanted.clock is None else wanted.clock.model_dump(),
            private=wanted.private,
            computers=0 if wanted.computer is None else wanted.computer.seats,
            level=None if wanted.computer is None else wanted.computer.level,
            config=current_settings(),
        )
    except (ValidationError, DomainError) as error:
        session.rollback()
        flash(refusal(error).message if isinstance(error, ValidationError) else error.message)
        return redirect(url_for("account_pages.home"), code=303)
    return redirect(url_for("game_pages.show", game_id=game.id), code=303)


@bp.post("/games/<int:game_id>/join")
@page(303, 302, 403, 404)
def join(game_id: int) -> wrappers.Response:
    """Take a seat in an open game (an invitation's button on the home page), then show
    the game; a refusal (full, started, not invited) goes back home, said."""
    check_csrf()
    player = signed_in()
    if player is None:
        return redirect(url_for("account_pages.form", next="/"))
    session = get_session()
    store.visible_game(session, store.load_game(session, game_id), player)
    try:
        store.join_game(session, game_id=game_id, player=player, config=current_settings())
    except DomainError as error:
        session.rollback()
        flash(error.message)
        return redirect(url_for("account_pages.home"), code=303)
    flash(gettext("You took a seat in game %(game)s.", game=game_id))
    return redirect(url_for("game_pages.show", game_id=game_id), code=303)


@bp.get("/games/<int:game_id>")
@page(200, 404)
def show(game_id: int) -> tuple[str, int]:
    """The game as it is now."""
    return show_page(game_id)


@bp.post("/games/<int:game_id>/play")
@page(303, 302, 400, 403, 404, 409, 413, 422)
def play(game_id: int) -> wrappers.Response | tuple[str, int]:
    """Play a turn from the page: a hint's button or the notation box, with the modifiers
    chosen beside them."""
    check_csrf()
    player = signed_in()
    if player is None:
        return redirect(url_for("account_pages.form", next=f"/games/{game_id}"))
    notation = _chosen_turn()
    seen = request.form.get("version", "")
    if not notation:
        problem = gettext("Write a turn first, or choose one of the best turns.")
        return show_page(game_id, status=400, problem=problem)
    if not seen.isdigit():
        problem = gettext("This form is damaged (no game version); reload the page.")
        return show_page(game_id, status=400, problem=problem)
    session = get_session()
    try:
        result = turns.play_turn(
            session,
            game_id=game_id,
            player=player,
            notation=notation,
            version=int(seen),
            idem=None,
            source=TurnSource.WEB,
            config=current_settings(),
        )
    except (DomainError, CafeError) as error:
        session.rollback()
        refusal = from_engine(error) if isinstance(error, CafeError) else error
        if refusal.code in ("stale_version", "not_your_turn"):
            return show_page(
                game_id,
                status=409,
                problem=gettext(
                    "The game moved on: %(problem)s. This is the game now.",
                    problem=refusal.message,
                ),
            )
        return show_page(
            game_id, status=domain_status(refusal), problem=refusal.message, typed=notation
        )
    flash(
        gettext(
            "You played %(turn)s for %(points)s.",
            turn=result["turn"],
            points=quantities.points(result["points"]),
        )
    )
    return redirect(url_for("game_pages.show", game_id=game_id), code=303)


@bp.post("/games/<int:game_id>/preview")
@page(
    200, 400, 403, 404, 409, 413, 422,
    media=dict.fromkeys((200, 400, 403, 409, 422), "application/json"),
)  # fmt: skip
def preview(game_id: int) -> tuple[dict[str, object], int]:
    """What the turn being composed would score (for `play.js`): the API's preview, for the
    signed-in page, answered in JSON whatever happens, with the sentence the page shows
    (`said`) in the reader's language."""
    try:
        check_csrf()
        player = signed_in()
        if player is None:
            raise Forbidden("not_signed_in", lazy_gettext("sign in to play"))
        seen = request.form.get("version", "")
        found = preview_turn(
            get_session(),
            game_id=game_id,
            player=player,
            notation=_chosen_turn(),
            version=int(seen) if seen.isdigit() else -1,
        )
    except NotFound:
        raise  # a page, like every missing game's
    except (DomainError, CafeError) as error:
        refusal = from_engine(error) if isinstance(error, CafeError) else error
        return {"error": refusal.code, "message": refusal.message}, domain_status(refusal)
    return {**found, "said": _previewed(found)}, 200


def _previewed(found: dict[str, Any]) -> str:
    """The preview's sentence: the turn, its points and each table's, and how to play it."""
    tables = ", ".join(
        f"{table['table']} {quantities.signed(table['points'])}" for table in found["tables"]
    )
    values = {
        "turn": found["turn"],
        "points": quantities.points(found["points"]),
        "button": gettext("Play this turn"),
    }
    if tables:
        return gettext(
            "%(turn)s scores %(points)s (%(tables)s). Press “%(button)s” to play it.",
            tables=tables,
            **values,
        )
    return gettext("%(turn)s scores %(points)s. Press “%(button)s” to play it.", **values)


@bp.get("/play.js")
@page(200, media={200: "text/javascript"})
def script() -> Response:
    """The script that composes a turn by clicking (the pages work without it)."""
    response = Response(PLAY_SCRIPT, mimetype="text/javascript")
    response.cache_control.max_age = 3600
    response.cache_control.public = True
    return response


@bp.get("/games/<int:game_id>/record")
@page(200, 403, 404, 409, media={200: "text/plain"})
def record(game_id: int) -> Response:
    """The game record as a text download: anyone's once the game is over, its players' before."""
    session = get_session()
    viewer = signed_in()
    game = store.visible_game(session, store.load_game(session, game_id), viewer)
    playing = viewer is not None and viewer.name in store.names_of(session, game)
    if game.status != GameStatus.FINISHED and not playing:
        raise Forbidden(
            "record_not_public",
            lazy_gettext(
                "the record of game %(game)s is public once the game is over", game=game_id
            ),
        )
    text = turns.record_text(session, game, config=current_settings())
    response = Response(text, mimetype="text/plain")
    response.headers["Content-Disposition"] = f'attachment; filename="cafe-game-{game_id}.txt"'
    return response
