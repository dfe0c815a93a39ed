"""`/leagues`, `/leagues/<slug>`, `/leagues/<slug>/seasons/<n>` and
`…/seasons/<n>/divisions/<d>`: the leagues, one league's settings and seasons, a season's
divisions, tables, schedules and moves, and one division's.

Joining, leaving, starting a season and opening the next one are POST forms with the
session's CSRF token that call the same store functions as the API; a refusal is the page
again with the reason on it (and the refusal's status). A GET never changes anything.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, Response, flash, redirect, render_template, url_for
from sqlmodel import Session

from server.apispec import page
from server.db import get_session
from server.domain import DomainError
from server.errors import domain_status
from server.league import store, views, withdrawal
from server.league.start import start_season
from server.models import League, Player
from server.web import league_view
from server.web.sessions import check_csrf, signed_in

bp = Blueprint("league_pages", __name__)

#: The statuses of the forms: done, sign in first, refused, missing, too large.
FORM_STATUSES = (303, 302, 403, 404, 409, 413)


@bp.get("/leagues")
@page(200)
def index() -> str:
    """Every league with its newest season."""
    return render_template(
        "web/leagues.html", leagues=views.league_list(get_session()), **league_view.WORDS
    )


def _league_page(slug: str, *, status: int = 200, problem: str | None = None) -> tuple[str, int]:
    session = get_session()
    league = store.load_league(session, slug)
    html = render_template(
        "web/league.html",
        league=views.league_public(session, league),
        open_next=league_view.may_open_next(session, league, signed_in()),
        problem=problem,
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
    shown = views.season_public(session, league, season, division)
    viewer = signed_in()
    html = render_template(
        "web/season.html",
        league=league,
        season=shown,
        division=division,
        schedule=league_view.schedule(session, shown, season.id),
        actions=league_view.SeasonActions()
        if division is not None
        else league_view.season_actions(session, league, shown, season.id, viewer),
        open_next=division is None and league_view.may_open_next(session, league, viewer),
        problem=problem,
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
        return f"You are registered for season {number} of {league.name}.", number

    return _act(slug, number, act)


@bp.post("/leagues/<slug>/seasons/<int:number>/leave")
@page(*FORM_STATUSES)
def leave(slug: str, number: int) -> Response | tuple[str, int]:
    """Withdraw the signed-in player (during the season their running games are resigned)."""

    def act(session: Session, league: League, player: Player) -> tuple[str, int]:
        withdrawal.withdraw(session, league=league, number=number, player=player)
        return f"You have left season {number} of {league.name}.", number

    return _act(slug, number, act)


@bp.post("/leagues/<slug>/seasons/<int:number>/start")
@page(*FORM_STATUSES)
def start(slug: str, number: int) -> Response | tuple[str, int]:
    """Start the season (the organiser): divisions, schedule and all its games."""

    def act(session: Session, league: League, player: Player) -> tuple[str, int]:
        season = store.load_season(session, league, number)
        start_season(session, league=league, season=season, player=player)
        return f"Season {number} has started: its games are on.", number

    return _act(slug, number, act)


@bp.post("/leagues/<slug>/seasons")
@page(*FORM_STATUSES)
def open_next(slug: str) -> Response | tuple[str, int]:
    """Open registration for the league's next season (the organiser)."""

    def act(session: Session, league: League, player: Player) -> tuple[str, int]:
        season = store.open_season(session, league=league, player=player)
        return f"Season {season.number} is open for registration.", season.number

    return _act(slug, None, act)
