"""Leagues, seasons, standings and ratings: what organisers and players send, and what
everyone is shown (docs/league.md)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from cafe.i18n import N_
from server.league.counts import DIVISION_SIZE_RULE, LEFT_COUNTED, PLAYERS_COUNTED
from server.models import REASON_LENGTH, MemberLeft, Placement, SeasonLogAction, SeasonStatus
from server.schemas.clock import ClockSettings
from server.schemas.fields import (
    LINE_PATTERN,
    PlayerName,
    PublicModel,
    QueryInt,
    QueryModel,
    RequestModel,
    Timestamp,
    rule,
)
from server.schemas.games import GameOptions

SLUG_RULE = N_("2 to 32 lowercase letters, digits or '-', starting with a letter")
LeagueSlug = Annotated[
    str,
    Field(min_length=2, max_length=32, pattern=r"^[a-z][a-z0-9-]{1,31}$", description=SLUG_RULE),
]
LeagueName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=64,
        pattern=LINE_PATTERN,
        description="a name of 1 to 64 characters, none of them a control character",
    ),
]


class LeagueCreate(RequestModel):
    """A new league, organised by the caller; every setting has its default (docs/league.md)."""

    name: LeagueName
    slug: LeagueSlug
    open: bool = Field(
        default=True, description=N_("true (anyone may register) or false (by invitation)")
    )
    game_size: int = Field(default=4, ge=2, le=4, description=N_("a whole number from 2 to 4"))
    clock: ClockSettings = Field(
        default_factory=ClockSettings,
        description=N_(
            "an object with `days_per_turn` (1 to 30), `timeout` (autoplay or "
            "resign), `max_timeouts` (1 to 5) and `vacation` (true or false)"
        ),
    )
    options: GameOptions | None = Field(
        default=None,
        description=N_(
            "an object with `birthday` (null or a points threshold) "
            "and `coffee_klatsch` (true or false)"
        ),
    )
    division_size: int = Field(
        default=8, ge=4, le=12, description=N_("a whole number from 4 to 12")
    )
    promote: int = Field(default=2, ge=0, le=4, description=N_("a whole number from 0 to 4"))
    relegate: int = Field(default=2, ge=0, le=4, description=N_("a whole number from 0 to 4"))


class SeasonBrief(PublicModel):
    """A season in its league's page: its number and where it stands."""

    number: int
    status: SeasonStatus
    players: int = Field(description=PLAYERS_COUNTED)
    left: int = Field(description=LEFT_COUNTED)
    started_at: Timestamp | None
    finished_at: Timestamp | None
    paused_since: Timestamp | None = Field(
        default=None, description="while its clocks are paused by the organiser, since when"
    )


class LeaguePublic(PublicModel):
    """A league, its settings and its seasons, newest last."""

    name: str
    slug: str
    organiser: str
    open: bool
    game_size: int
    clock: ClockSettings
    options: GameOptions
    division_size: int = Field(
        description="the target size of a division: " + DIVISION_SIZE_RULE % {"size": "this many"}
    )
    promote: int
    relegate: int
    invited: list[str] = Field(description="the names invited (an invitation-only league)")
    created_at: Timestamp
    seasons: list[SeasonBrief]


class LeagueSummary(PublicModel):
    """A league in a list."""

    name: str
    slug: str
    organiser: str
    open: bool
    game_size: int
    season: int | None = Field(description="the newest season's number; null before the first")
    season_status: SeasonStatus | None
    players: int = Field(description=f"the newest season's: {PLAYERS_COUNTED}")
    left: int = Field(description=f"the newest season's: {LEFT_COUNTED}")


class LeagueList(PublicModel):
    """The leagues, oldest first."""

    leagues: list[LeagueSummary]


class InvitationsCreate(RequestModel):
    """Players the organiser invites to an invitation-only league."""

    names: list[PlayerName] = Field(
        min_length=1, max_length=100, description=N_("a list of 1 to 100 player names")
    )


class Invited(PublicModel):
    """Who is invited now."""

    invited: list[str]


class StandingRow(PublicModel):
    """A line of a division's table: league points, then the tiebreaks (docs/league.md).
    Players who left the season come last, whatever their points, without a place."""

    place: int | None = Field(description="null for a player who left the season")
    player: str
    points: float = Field(description="league points (shared places give fractions)")
    score_sum: int = Field(description="the sum of the player's final game scores")
    wins: int
    played: int = Field(description="finished games")
    withdrawn: bool = Field(description="whether the player left the season (see `left`)")
    left: MemberLeft | None = Field(
        description="how the player left the season: `withdrew`, `removed` (by the "
        "organiser) or `removed_on_time` (from every game they had left); null while in it"
    )
    placed: Placement | None = Field(
        description="why the player is in this division: `rating` (a first season), `new`, "
        "`up`, `down` or `stayed` as the last season's table announced, or where refilling "
        "the divisions placed them otherwise: higher, to fill a place (`filled`), or lower, "
        "as the divisions were evened out (`evened`); null for seasons started before it "
        "was kept"
    )
    placed_from: int | None = Field(description="the player's division in the season before")
    placed_text: str = Field(
        description="`placed` and `placed_from` in the words the season page and the "
        "season's start email use: `moved up from division 2`, `stayed in division 1 to "
        "fill a place`, `new this season`, …; empty when not known"
    )
    timeouts: int = Field(
        description="the player's time-outs in the season's games so far (turns played for "
        "them and removals)"
    )


class Division(PublicModel):
    """A division of a running or finished season: members, games and table."""

    number: int
    players: list[str] = Field(
        description="everyone placed in it, as placed (its schedule was drawn for them), "
        "including those who left since"
    )
    rounds: int = Field(description="the games each member plays")
    games: list[int]
    standings: list[StandingRow]


class SeasonMove(PublicModel):
    """A player moving between divisions at a season's end."""

    player: str
    from_division: int
    to_division: int
    direction: str = Field(description="up or down")


class SeasonPublic(PublicModel):
    """A season. `seed` appears once it is finished, so anyone can recompute its schedule
    (`cafe.league.schedule`) and check it against `seed_commitment`."""

    league: str
    number: int
    status: SeasonStatus
    registered: list[str] = Field(description="players registered and not withdrawn")
    withdrawn: list[str]
    seed_commitment: str | None
    seed: str | None
    divisions: list[Division]
    moves: list[SeasonMove] | None = Field(description="null until the season is finished")
    created_at: Timestamp
    started_at: Timestamp | None
    finished_at: Timestamp | None
    paused_since: Timestamp | None = Field(
        default=None,
        description="while the organiser has paused the season's clocks, since when; else null",
    )


class RatingRow(PublicModel):
    """A player's rating (docs/league.md): shown and sorted by `ordinal` = mu − 3·sigma."""

    player: str
    mu: float
    sigma: float
    ordinal: float
    games: int


class RatingList(PublicModel):
    """Rated players, best ordinal first."""

    ratings: list[RatingRow]
    total: int


class RatingsQuery(QueryModel):
    """A page of the rating list."""

    limit: QueryInt = Field(
        default=50, ge=1, le=200, description=N_("a whole number from 1 to 200")
    )
    offset: QueryInt = Field(default=0, ge=0, le=10**9, description=N_("a whole number from 0"))


class RatingPointPublic(PublicModel):
    """The player's rating after one rated game."""

    game: int
    finished_at: Timestamp
    mu: float
    sigma: float
    ordinal: float


class RecentGame(PublicModel):
    """A finished game on a player's profile."""

    id: int
    players: list[str]
    place: int | None
    final: int | None
    finished_at: Timestamp | None


class PlayerLeague(PublicModel):
    """A league a player is a member of, by its newest season they registered for."""

    slug: str
    name: str
    season: int
    division: int | None


class PlayerProfile(PublicModel):
    """What anyone may see of a player: rating and its history, leagues, recent games."""

    name: str
    rating: RatingRow
    rank: int | None = Field(
        description="the player's place in the rating list (1 = best); null before a rated game"
    )
    history: list[RatingPointPublic]
    leagues: list[PlayerLeague]
    recent_games: list[RecentGame]


#: Why an organiser acted: shown to the players and kept in the season's log.
Reason = Annotated[
    str,
    Field(
        min_length=1,
        max_length=REASON_LENGTH,
        pattern=LINE_PATTERN,
        description=rule(
            N_("the reason, 1 to %(most)s characters on one line (no control character)"),
            most=REASON_LENGTH,
        ),
    ),
]


class RemovalCreate(RequestModel):
    """A member the organiser removes from a season, and why (the season's log and the
    player's email say it)."""

    player: PlayerName
    reason: Reason


class PauseCreate(RequestModel):
    """Why the organiser pauses the season's clocks (the players are told)."""

    reason: Reason


class ResumeCreate(RequestModel):
    """The organiser resumes the season's clocks; a reason is optional."""

    reason: Annotated[
        str,
        Field(
            max_length=REASON_LENGTH,
            pattern=LINE_PATTERN,
            description=rule(
                N_(
                    "an optional note, up to %(most)s characters on one line (no control character)"
                ),
                most=REASON_LENGTH,
            ),
        ),
    ] = ""


class AdjudicationCreate(RequestModel):
    """Why the organiser ends a league game with its standings as they are."""

    reason: Reason


class SeasonLogEntryPublic(PublicModel):
    """One thing the organiser did to the season: who, what, when, why, to whom."""

    at: Timestamp
    by: str = Field(description="the organiser who did it")
    action: SeasonLogAction = Field(
        description="remove (a member), pause or resume (the clocks), adjudicate (a game)"
    )
    player: str | None = Field(description="the member removed (remove); else null")
    game: int | None = Field(description="the game adjudicated (adjudicate); else null")
    reason: str


class SeasonLog(PublicModel):
    """A season's log of its organiser's actions, oldest first."""

    league: str
    season: int
    status: SeasonStatus
    paused_since: Timestamp | None = Field(
        description="while the season's clocks are paused, since when; else null"
    )
    entries: list[SeasonLogEntryPublic]
