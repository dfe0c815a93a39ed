"""Routes for leagues and their seasons (docs/league.md): create and list leagues, open,
start and read seasons, register and withdraw, invite; the organiser's tools (remove a
member, pause and resume the clocks; adjudicating a game is `POST /api/games/<id>/adjudicate`)
and the season's log of them. Reading is public, like the games."""

from __future__ import annotations

from flask import Blueprint, g

from server.apispec import validate
from server.auth import login_required
from server.config import current_settings
from server.db import get_session
from server.league import pause, public, removal, store, withdrawal
from server.league.start import start_season
from server.schemas.leagues import (
    InvitationsCreate,
    Invited,
    LeagueCreate,
    LeagueList,
    LeaguePublic,
    PauseCreate,
    RemovalCreate,
    ResumeCreate,
    SeasonLog,
    SeasonPublic,
)

bp = Blueprint("leagues", __name__, url_prefix="/api/leagues")


@bp.post("")
@login_required
@validate(201, LeaguePublic, 409, 422, json=LeagueCreate)
def create(json: LeagueCreate) -> tuple[LeaguePublic, int, dict[str, str]]:
    """Create a league organised by the caller; its settings apply to every game of it."""
    settings = json.model_dump()
    settings["options"] = settings["options"] or {"birthday": None, "coffee_klatsch": False}
    session = get_session()
    league = store.create_league(session, organiser=g.player, settings=settings)
    return public.league_public(session, league), 201, {"Location": f"/api/leagues/{league.slug}"}


@bp.get("")
@validate(200, LeagueList, public=True)
def list_leagues() -> LeagueList:
    """Every league, oldest first, with its newest season."""
    return LeagueList(leagues=public.league_list(get_session()))


@bp.get("/<slug>")
@validate(200, LeaguePublic, 404, public=True)
def show(slug: str) -> LeaguePublic:
    """A league: its settings, organiser and seasons."""
    session = get_session()
    return public.league_public(session, store.load_league(session, slug))


@bp.post("/<slug>/seasons")
@login_required
@validate(201, SeasonPublic, 403, 404, 409)
def open_season(slug: str) -> tuple[SeasonPublic, int, dict[str, str]]:
    """Open registration for the next season (the organiser); the members of the last
    season are registered unless they withdraw."""
    session = get_session()
    league = store.load_league(session, slug)
    season = store.open_season(session, league=league, player=g.player, config=current_settings())
    location = f"/api/leagues/{slug}/seasons/{season.number}"
    return public.season_public(session, league, season), 201, {"Location": location}


@bp.get("/<slug>/seasons/<int:number>")
@validate(200, SeasonPublic, 404, public=True)
def show_season(slug: str, number: int) -> SeasonPublic:
    """A season: registration, divisions with their games and tables, and once finished
    the seed and the moves."""
    session = get_session()
    league = store.load_league(session, slug)
    return public.season_public(session, league, store.load_season(session, league, number))


@bp.get("/<slug>/seasons/<int:number>/divisions/<int:division>")
@validate(200, SeasonPublic, 404, public=True)
def show_division(slug: str, number: int, division: int) -> SeasonPublic:
    """A season with only one of its divisions: its table and games, and as `registered`
    and `withdrawn` only that division's members."""
    session = get_session()
    league, season = store.load_league_season(session, slug, number)
    return public.season_public(session, league, season, division)


@bp.post("/<slug>/seasons/<int:number>/register")
@login_required
@validate(200, SeasonPublic, 403, 404, 409)
def register(slug: str, number: int) -> SeasonPublic:
    """Register the caller for a season open for registration."""
    session = get_session()
    league = store.load_league(session, slug)
    season = store.register(session, league=league, number=number, player=g.player)
    return public.season_public(session, league, season)


@bp.post("/<slug>/seasons/<int:number>/withdraw")
@login_required
@validate(200, SeasonPublic, 404, 409)
def withdraw(slug: str, number: int) -> SeasonPublic:
    """Withdraw the caller from a season: during it, their running games of it are
    resigned; finished results stand."""
    session = get_session()
    league = store.load_league(session, slug)
    season = withdrawal.withdraw(
        session, league=league, number=number, player=g.player, config=current_settings()
    )
    return public.season_public(session, league, season)


@bp.post("/<slug>/seasons/<int:number>/start")
@login_required
@validate(200, SeasonPublic, 403, 404, 409)
def start(slug: str, number: int) -> SeasonPublic:
    """Start a season (the organiser): divisions, schedule, and all its games started with
    the league's clock and options."""
    session = get_session()
    league = store.load_league(session, slug)
    season = store.load_season(session, league, number)
    season = start_season(
        session, league=league, season=season, player=g.player, config=current_settings()
    )
    return public.season_public(session, league, season)


@bp.post("/<slug>/invitations")
@login_required
@validate(200, Invited, 403, 404, 409, 422, json=InvitationsCreate)
def invite(slug: str, json: InvitationsCreate) -> Invited:
    """Invite players to an invitation-only league (the organiser)."""
    session = get_session()
    league = store.load_league(session, slug)
    return Invited(
        invited=store.invite(
            session, league=league, player=g.player, names=json.names, config=current_settings()
        )
    )


@bp.post("/<slug>/seasons/<int:number>/remove")
@login_required
@validate(200, SeasonPublic, 403, 404, 409, json=RemovalCreate)
def remove(slug: str, number: int, json: RemovalCreate) -> SeasonPublic:
    """Remove a member from a season (the organiser), with a reason: from a running season
    as a withdrawal (their running games of it resigned, finished results standing), or
    from its registration. The player is told; the season's log records it. 404: no such
    league, season or player; 409: the season is over, or the player is not a member."""
    session = get_session()
    league = store.load_league(session, slug)
    season = removal.remove(
        session,
        league=league,
        number=number,
        organiser=g.player,
        name=json.player,
        reason=json.reason,
        config=current_settings(),
    )
    return public.season_public(session, league, season)


@bp.post("/<slug>/seasons/<int:number>/pause")
@login_required
@validate(200, SeasonPublic, 403, 404, 409, json=PauseCreate)
def pause_season(slug: str, number: int, json: PauseCreate) -> SeasonPublic:
    """Pause every clock of a running season's games (the organiser; a holiday season): no
    deadline passes and no reminder comes until it resumes. The members are told; the
    season's log records it. 409: the season is not running, or is paused already."""
    session = get_session()
    league = store.load_league(session, slug)
    season = pause.pause(
        session,
        league=league,
        number=number,
        organiser=g.player,
        reason=json.reason,
        config=current_settings(),
    )
    return public.season_public(session, league, season)


@bp.post("/<slug>/seasons/<int:number>/resume")
@login_required
@validate(200, SeasonPublic, 403, 404, 409, json=ResumeCreate)
def resume_season(slug: str, number: int, json: ResumeCreate) -> SeasonPublic:
    """Resume a paused season's clocks (the organiser): every deadline moves back by the
    pause. The members are told, with their new deadlines. 409: the season is not running,
    or not paused."""
    session = get_session()
    league = store.load_league(session, slug)
    season = pause.resume(
        session,
        league=league,
        number=number,
        organiser=g.player,
        reason=json.reason,
        config=current_settings(),
    )
    return public.season_public(session, league, season)


@bp.get("/<slug>/seasons/<int:number>/log")
@validate(200, SeasonLog, 404, public=True)
def season_log(slug: str, number: int) -> SeasonLog:
    """What the season's organiser did — removals, pauses, resumptions, adjudications —
    with who, when and why, oldest first."""
    session = get_session()
    league, season = store.load_league_season(session, slug, number)
    return public.season_log(session, league, season)
