"""`/leagues`, `/leagues/<slug>`, `/leagues/<slug>/seasons/<n>` and
`…/seasons/<n>/divisions/<d>`: the leagues, one league's settings and seasons, a season's
divisions, tables, schedules and moves, and one division's.

Joining, leaving, starting a season and opening the next one, and the organiser's tools
(removing a member, pausing and resuming the clocks, adjudicating a game), are POST forms
with the session's CSRF token that call the same store functions as the API; a refusal is
the page again with the reason on it (and the refusal's status). A GET never changes
anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Blueprint, flash, redirect, render_template, request, url_for
from pydantic import BaseModel, ValidationError
from sqlmodel import Session, col, select
from werkzeug.wrappers import Response  # flask's subclass, and `redirect()`'s

from cafe.i18n import gettext, lazy_gettext
from server.apispec import page, refusal
from server.config import current_settings
from server.db import get_session
from server.domain import DomainError, NotFound
from server.errors import domain_status
from server.league import adjudication, log, pause, public, removal, store, withdrawal
from server.league.start import start_season
from server.models import GameRecord, GameStatus, League, Player
from server.schemas.leagues import AdjudicationCreate, PauseCreate, RemovalCreate, ResumeCreate
from server.web import channel_pages, league_view
from server.web.sessions import check_csrf, signed_in

bp = Blueprint("league_pages", __name__)

#: The statuses of the forms: done, sign in first, refused, missing, too large.
FORM_STATUSES = (303, 302, 403, 404, 409, 413)
#: The organiser's forms also refuse what they were sent (a reason missing).
TOOL_STATUSES = (*FORM_STATUSES, 400)

Model = TypeVar("Model", bound=BaseModel)


@bp.get("/leagues")
@page(200)
def index() -> str:
    """Every league with its newest season."""
    return render_template(
        "web/leagues.html", leagues=public.league_list(get_session()), **league_view.WORDS
    )


def _league_page(slug: str, *, status: int = 200, problem: str | None = None) -> tuple[str, int]:
    session = get_session()
    league = store.load_league(session, slug)
    viewer = signed_in()
    organiser = viewer is not None and viewer.id == league.organiser_id
    html = render_template(
        "web/league.html",
        league=public.league_public(session, league),
        open_next=league_view.may_open_next(session, league, viewer),
        problem=problem,
        organiser=organiser,
        **(channel_pages.section(session, league) if organiser else {}),
        **league_view.WORDS,
    )
    return html, status


def _season_page(
    slug: str,
    number: int,
    *,
    division: int | None = None,
    status: int = 200,
    problem: str | None = None,
) -> tuple[str, int]:
    """The season's page, or with `division` one division's (its table and games only,
    without the season's buttons)."""
    session = get_session()
    league, season = store.load_league_season(session, slug, number)
    assert season.id is not None
    shown = public.season_public(session, league, season, division)
    viewer = signed_in()
    games = league_view.schedule(session, shown, season.id)
    whole = division is None  # the season's page, with its buttons, tools and log
    html = render_template(
        "web/season.html",
        league=league,
        season=shown,
        division=division,
        schedule=games,
        actions=league_view.season_actions(session, league, shown, season.id, viewer)
        if whole
        else league_view.SeasonActions(),
        open_next=whole and league_view.may_open_next(session, league, viewer),
        problem=problem,
        tools=league_view.organiser_tools(league, shown, games, viewer if whole else None),
        log=log.lines(session, season) if whole else [],
        **league_view.WORDS,
    )
    return html, status


@bp.get("/leagues/<slug>")
@page(200, 404)
def show(slug: str) -> tuple[str, int]:
    """A league: its settings, organiser and seasons."""
    return _league_page(slug)


@bp.get("/leagues/<slug>/seasons/<int:number>")
@page(200, 404)
def show_season(slug: str, number: int) -> tuple[str, int]:
    """A season: who registered, divisions with tables and schedules, moves and the seed."""
    return _season_page(slug, number)


@bp.get("/leagues/<slug>/<int:number>")
@page(301, 404)
def season_link(slug: str, number: int) -> Response:
    """The short link to a season's page that plain-text email gives
    (`quantities.season_short_path`): it leads to the page (a number past the range the
    database holds names nothing: the route converter's 404)."""
    return redirect(url_for("league_pages.show_season", slug=slug, number=number), code=301)


@bp.get("/leagues/<slug>/seasons/<int:number>/divisions/<int:division>")
@page(200, 404)
def show_division(slug: str, number: int, division: int) -> tuple[str, int]:
    """One division of a season: its table and its games."""
    return _season_page(slug, number, division=division)


def _act(
    slug: str,
    number: int | None,
    act: Callable[[Session, League, Player], tuple[str, int]],
) -> Response | tuple[str, int]:
    """Run a form's action as the signed-in player. `act` answers what to say and which
    season's page to show; a refusal is the page of the form (the league's when `number` is
    None) with the reason."""
    check_csrf()
    here = f"/leagues/{slug}" + ("" if number is None else f"/seasons/{number}")
    player = signed_in()
    if player is None:
        return redirect(url_for("account_pages.form", next=here))
    session = get_session()
    league = store.load_league(session, slug)
    try:
        done, shown = act(session, league, player)
    except DomainError as error:
        session.rollback()
        if number is None:
            return _league_page(slug, status=domain_status(error), problem=error.message)
        return _season_page(slug, number, status=domain_status(error), problem=error.message)
    flash(done)
    return redirect(url_for("league_pages.show_season", slug=slug, number=shown), code=303)


@bp.post("/leagues/<slug>/seasons/<int:number>/join")
@page(*FORM_STATUSES)
def join(slug: str, number: int) -> Response | tuple[str, int]:
    """Register the signed-in player for a season open for registration."""

    def act(session: Session, league: League, player: Player) -> tuple[str, int]:
        store.register(session, league=league, number=number, player=player)
        said = gettext(
            "You are registered for season %(season)s of %(league)s.",
            season=number,
            league=league.name,
        )
        return said, number

    return _act(slug, number, act)


@bp.post("/leagues/<slug>/seasons/<int:number>/leave")
@page(*FORM_STATUSES)
def leave(slug: str, number: int) -> Response | tuple[str, int]:
    """Withdraw the signed-in player (during the season their running games are resigned)."""

    def act(session: Session, league: League, player: Player) -> tuple[str, int]:
        withdrawal.withdraw(
            session, league=league, number=number, player=player, config=current_settings()
        )
        said = gettext(
            "You have left season %(season)s of %(league)s.", season=number, league=league.name
        )
        return said, number

    return _act(slug, number, act)


@bp.post("/leagues/<slug>/seasons/<int:number>/start")
@page(*FORM_STATUSES)
def start(slug: str, number: int) -> Response | tuple[str, int]:
    """Start the season (the organiser): divisions, schedule and all its games."""

    def act(session: Session, league: League, player: Player) -> tuple[str, int]:
        season = store.load_season(session, league, number)
        start_season(
            session, league=league, season=season, player=player, config=current_settings()
        )
        return gettext("Season %(season)s has started: its games are on.", season=number), number

    return _act(slug, number, act)


@bp.post("/leagues/<slug>/seasons")
@page(*FORM_STATUSES)
def open_next(slug: str) -> Response | tuple[str, int]:
    """Open registration for the league's next season (the organiser)."""

    def act(session: Session, league: League, player: Player) -> tuple[str, int]:
        season = store.open_season(session, league=league, player=player, config=current_settings())
        said = gettext("Season %(season)s is open for registration.", season=season.number)
        return said, season.number

    return _act(slug, None, act)


def _form(model: type[Model], **fields: Any) -> Model:
    """The form's fields as the API's request model, or the API's 400 refusal."""
    try:
        return model.model_validate(fields)
    except ValidationError as error:
        raise refusal(error) from None


@bp.post("/leagues/<slug>/seasons/<int:number>/remove")
@page(*TOOL_STATUSES)
def remove(slug: str, number: int) -> Response | tuple[str, int]:
    """Remove a member from the season (the organiser), with a reason."""

    def act(session: Session, league: League, player: Player) -> tuple[str, int]:
        data = _form(
            RemovalCreate,
            player=request.form.get("player", ""),
            reason=request.form.get("reason", ""),
        )
        removal.remove(
            session,
            league=league,
            number=number,
            organiser=player,
            name=data.player,
            reason=data.reason,
            config=current_settings(),
        )
        said = gettext(
            "%(player)s is removed from season %(season)s: %(reason)s",
            player=data.player,
            season=number,
            reason=data.reason,
        )
        return said, number

    return _act(slug, number, act)


@bp.post("/leagues/<slug>/seasons/<int:number>/pause")
@page(*TOOL_STATUSES)
def pause_clocks(slug: str, number: int) -> Response | tuple[str, int]:
    """Pause every clock of the season's games (the organiser), with a reason."""

    def act(session: Session, league: League, player: Player) -> tuple[str, int]:
        data = _form(PauseCreate, reason=request.form.get("reason", ""))
        pause.pause(
            session,
            league=league,
            number=number,
            organiser=player,
            reason=data.reason,
            config=current_settings(),
        )
        said = gettext(
            "Season %(season)s is paused: every clock of its games is stopped.", season=number
        )
        return said, number

    return _act(slug, number, act)


@bp.post("/leagues/<slug>/seasons/<int:number>/resume")
@page(*TOOL_STATUSES)
def resume_clocks(slug: str, number: int) -> Response | tuple[str, int]:
    """Resume the season's clocks (the organiser): every deadline moves back by the pause."""

    def act(session: Session, league: League, player: Player) -> tuple[str, int]:
        data = _form(ResumeCreate, reason=request.form.get("reason", ""))
        pause.resume(
            session,
            league=league,
            number=number,
            organiser=player,
            reason=data.reason,
            config=current_settings(),
        )
        return gettext("Season %(season)s is resumed: its clocks run again.", season=number), number

    return _act(slug, number, act)


@bp.post("/leagues/<slug>/seasons/<int:number>/adjudicate")
@page(*TOOL_STATUSES)
def adjudicate(slug: str, number: int) -> Response | tuple[str, int]:
    """End one of the season's running games with its standings as they are (the
    organiser), with a reason."""

    def act(session: Session, league: League, player: Player) -> tuple[str, int]:
        data = _form(AdjudicationCreate, reason=request.form.get("reason", ""))
        game_id = _season_game(session, league, number, request.form.get("game", ""))
        adjudication.adjudicate(
            session,
            game_id=game_id,
            organiser=player,
            reason=data.reason,
            config=current_settings(),
        )
        said = gettext(
            "Game %(game)s is adjudicated: it ended with its standings as they were.", game=game_id
        )
        return said, number

    return _act(slug, number, act)


def _season_game(session: Session, league: League, number: int, chosen: str) -> int:
    """The id of the season's running game the form chose, or a 404."""
    season = store.load_season(session, league, number)
    game_id = session.exec(
        select(GameRecord.id).where(
            col(GameRecord.id)
            == (int(chosen) if chosen.isascii() and chosen.isdigit() and len(chosen) < 10 else 0),
            GameRecord.season_id == season.id,
            GameRecord.status == GameStatus.ACTIVE,
        )
    ).first()
    if game_id is None:
        raise NotFound(
            "game_not_found",
            lazy_gettext(
                "season %(season)s of %(league)s has no running game '%(game)s'",
                season=number,
                league=league.slug,
                game=chosen,
            ),
        )
    return game_id
