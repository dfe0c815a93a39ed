"""What the league and season pages show beyond the API's models: each scheduled game with
its status and winner, or while it runs whose turn it is and the time left; league points
as people write them; and the buttons the viewer may press (join, leave, start, open the
next season; the organiser's tools: remove a member, pause or resume the clocks,
adjudicate a game).

The buttons shown follow the same rules the store enforces (`server.league.store`), so a
player is not offered what would be refused; a stale page's press is still refused there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session, col, select

from cafe.i18n import gettext, ngettext, pgettext
from cafe.render import quantities
from server.league.counts import count_text, division_size_text
from server.league.reasons import AS_THINGS_STAND, left_text
from server.league.store import latest_season, running_games_of
from server.models import GameRecord, GameStatus, League, Player, SeasonStatus, utcnow
from server.schemas.clock import ClockSettings
from server.schemas.games import GameOptions
from server.schemas.leagues import SeasonPublic


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """A game of a division's schedule as its line shows it."""

    id: int
    players: list[str]
    status: GameStatus
    winners: list[str]
    to_move: str | None = None
    time_left: str | None = None  # while it runs with a clock: the mover's


@dataclass(frozen=True, slots=True)
class SeasonActions:
    """What the viewer may do on a season's page."""

    join: bool = False
    leave: bool = False
    start: bool = False
    running_games: int = 0


def season_state(status: str) -> str:
    """A season's state (the API's `status`) in the language in use: `registration`,
    `running`, `finished` (said of a season: Russian's "finished" is a game's otherwise)."""
    if status == SeasonStatus.REGISTRATION:
        return pgettext("season", "registration")
    if status == SeasonStatus.RUNNING:
        return pgettext("season", "running")
    return pgettext("season", "finished")


def clock_text(clock: ClockSettings) -> str:
    """A league's clock in a phrase: `3 days a turn; out of time, the server plays for you;
    2 time-outs in a row and you are out; vacations stop the clock`."""
    parts = [ngettext("%(num)s day a turn", "%(num)s days a turn", clock.days_per_turn)]
    if clock.timeout == "autoplay":
        parts.append(gettext("out of time, the server plays for you"))
        parts.append(
            ngettext(
                "%(num)s time-out in a row and you are out",
                "%(num)s time-outs in a row and you are out",
                clock.max_timeouts,
            )
        )
    else:
        parts.append(gettext("out of time, you resign"))
    parts.append(
        gettext("vacations stop the clock")
        if clock.vacation
        else gettext("vacations do not stop the clock")
    )
    return "; ".join(parts)


def options_text(options: GameOptions) -> str:
    """A league's variants: `birthday table at 30 points, coffee klatsch`, `no birthday
    table`."""
    text = (
        ngettext(
            "birthday table at %(num)s point", "birthday table at %(num)s points", options.birthday
        )
        if options.birthday
        else gettext("no birthday table")
    )
    if options.coffee_klatsch:
        return gettext("%(birthday)s, coffee klatsch", birthday=text)
    return text


def as_things_stand() -> str:
    """What a finished season's moves are, as a sentence's start: `As things stand; …`."""
    said = gettext(AS_THINGS_STAND)
    return said[:1].upper() + said[1:]


#: The league's ways of saying things that the pages' templates use, as the emails do.
WORDS = {
    "points_text": quantities.league_points,
    "count_text": count_text,
    "left_text": left_text,
    "division_size_text": division_size_text,
    "as_things_stand": as_things_stand,
    "season_state": season_state,
    "season_place": quantities.season_place,
    "clock_text": clock_text,
    "options_text": options_text,
}


def schedule(
    session: Session, season: SeasonPublic, season_id: int
) -> dict[int, list[ScheduledGame]]:
    """Each division's games in id order, read in one query."""
    games = session.exec(
        select(GameRecord).where(GameRecord.season_id == season_id).order_by(col(GameRecord.id))
    ).all()
    by_id = {game.id: game for game in games}
    now = utcnow()
    return {
        division.number: [_scheduled(by_id[game_id], now) for game_id in division.games]
        for division in season.divisions
    }


def time_left(deadline: datetime | None, now: datetime) -> str | None:
    """The time left until `deadline` in words, as the game page says it (`2 days 4 hours
    left`, `time is up`; None without)."""
    return None if deadline is None else quantities.time_left(deadline - now)


def _scheduled(game: GameRecord, now: datetime) -> ScheduledGame:
    assert game.id is not None and game.state is not None
    players = list(game.state["players"])
    winners = [line["player"] for line in game.standings or [] if line["place"] == 1]
    running = game.status == GameStatus.ACTIVE
    return ScheduledGame(
        id=game.id,
        players=players,
        status=game.status,
        winners=winners,
        to_move=players[game.state["to_move"]] if running else None,
        time_left=time_left(game.deadline, now) if running else None,
    )


def season_actions(
    session: Session, league: League, season: SeasonPublic, season_id: int, viewer: Player | None
) -> SeasonActions:
    """The buttons `viewer` gets on the season's page (none signed out)."""
    if viewer is None:
        return SeasonActions()
    registered = viewer.name in season.registered
    organiser = league.organiser_id == viewer.id
    may_register = league.open or organiser or viewer.name in league.invited
    open_ = season.status == SeasonStatus.REGISTRATION
    return SeasonActions(
        join=open_ and not registered and may_register,
        leave=registered and season.status != SeasonStatus.FINISHED,
        start=open_ and organiser,
        running_games=_running(session, season, season_id, viewer) if registered else 0,
    )


def _running(session: Session, season: SeasonPublic, season_id: int, viewer: Player) -> int:
    """How many running games of a running season the viewer is still in (leaving resigns
    them): only the games they sit at, not every game of their division."""
    if season.status != SeasonStatus.RUNNING:
        return 0
    assert viewer.id is not None
    games = running_games_of(session, season_id=season_id, player_id=viewer.id)
    return sum(
        1
        for game in games
        if game.state is not None
        and not game.state["eliminated"][game.state["players"].index(viewer.name)]
    )


def may_open_next(session: Session, league: League, viewer: Player | None) -> bool:
    """Whether the viewer organises the league and its newest season (if any) is over."""
    if viewer is None or league.organiser_id != viewer.id:
        return False
    newest = latest_season(session, league)
    return newest is None or newest.status == SeasonStatus.FINISHED


@dataclass(frozen=True, slots=True)
class OrganiserTools:
    """The organiser's forms on a season's page: the members they may remove, whether they
    may pause or resume the season's clocks, and the running games they may adjudicate."""

    members: list[str]
    pause: bool = False
    resume: bool = False
    games: list[int] = field(default_factory=list)

    @property
    def any(self) -> bool:
        """Whether there is anything to show."""
        return bool(self.members or self.pause or self.resume or self.games)


def organiser_tools(
    league: League,
    season: SeasonPublic,
    schedule: dict[int, list[ScheduledGame]],
    viewer: Player | None,
) -> OrganiserTools:
    """The organiser's forms for `viewer` (none for anyone else, nor once it is finished)."""
    if viewer is None or league.organiser_id != viewer.id:
        return OrganiserTools(members=[])
    if season.status == SeasonStatus.FINISHED:
        return OrganiserTools(members=[])
    running = season.status == SeasonStatus.RUNNING
    return OrganiserTools(
        members=sorted(season.registered),
        pause=running and season.paused_since is None,
        resume=running and season.paused_since is not None,
        games=[
            game.id
            for games in schedule.values()
            for game in games
            if game.status == GameStatus.ACTIVE
        ],
    )
