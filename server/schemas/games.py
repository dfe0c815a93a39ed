"""Games and turns: what clients send to create and play them, and what they are shown.

The public state never carries the bag's order, and the seed only once the game is over;
`server.games.public` is the one place that fills these models from stored games.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from cafe.endings import Departure, Ending
from cafe.i18n import N_
from server.models import GameStatus, TurnKind
from server.schemas.clock import ClockSettings
from server.schemas.fields import (
    LINE_PATTERN,
    MAX_INT,
    PlayerName,
    PublicModel,
    QueryInt,
    QueryModel,
    RequestModel,
    SparseModel,
    Timestamp,
    rule,
)

TurnText = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        pattern=LINE_PATTERN,
        description='a turn in notation (e.g. "USm@US1-US2 USf@DE2-US1"), 1 to 200 '
        "characters, none of them a control character",
    ),
]


class GameOptions(RequestModel):
    """The variants of rulebook §11."""

    birthday: int | None = Field(
        default=None, ge=1, le=1000, description=N_("null or a points threshold from 1 to 1000")
    )
    coffee_klatsch: bool = Field(default=False, description=N_("true or false"))


class ComputerSeats(RequestModel):
    """Seats for computer players (docs/bots.md): how many, and how strongly they play."""

    seats: int = Field(ge=1, le=3, description="a whole number from 1 to 3")
    level: int = Field(default=3, ge=1, le=3, description="1 (weakest) to 3 (strongest)")


class ComputerFill(RequestModel):
    """Fill an open game's free seats with computer players, and start it."""

    level: int = Field(default=3, ge=1, le=3, description="1 (weakest) to 3 (strongest)")


class GameCreate(RequestModel):
    """Open a game with the caller seated; `invite` makes it invitation-only, `private`
    also hides it from everyone but its players and invitees, `auto_start` starts it when
    its last seat is taken."""

    seats: int = Field(ge=2, le=4, description=N_("a whole number from 2 to 4"))
    options: GameOptions | None = Field(
        default=None,
        description=N_(
            "an object with `birthday` (null or a points threshold) "
            "and `coffee_klatsch` (true or false)"
        ),
    )
    invite: list[PlayerName] | None = Field(
        default=None, max_length=3, description=N_("a list of player names")
    )
    clock: ClockSettings | None = Field(
        default_factory=ClockSettings,
        description=N_(
            "null (no clock) or an object with `days_per_turn` (1 to 30), `timeout` "
            "(autoplay or resign), `max_timeouts` (1 to 5) and `vacation` (true or false)"
        ),
    )
    rated: bool = Field(
        default=False,
        description=N_(
            "true or false: whether the game updates the players' ratings "
            "(a private game cannot be rated: ratings are public)"
        ),
    )
    private: bool = Field(
        default=False,
        description=N_(
            "true or false: true shows the game only to its players and invitees "
            "(to anyone else it does not exist); a private game needs `invite`"
        ),
    )
    auto_start: bool = Field(
        default=False,
        description=N_(
            "true or false: start the game as soon as its last seat is taken "
            "(false: the creator starts it)"
        ),
    )
    computer: ComputerSeats | None = Field(
        default=None,
        description="null or an object with `seats` (1 to 3) and `level` (1 to 3): seats "
        "for computer players; the game starts when the rest are taken (at once if none are "
        "left); it cannot be rated",
    )


class Standing(PublicModel):
    """One line of a finished game's standings (rulebook §10)."""

    place: int
    player: str
    score: int
    penalty: int
    final: int
    eliminated: bool = Field(description="whether the player was out before the end (`left`)")
    left: Departure | None = Field(
        default=None,
        description="how the player left before the end: eliminated (at the bar), resigned, "
        "timed_out (removed on time), withdrew (from the league's season) or removed (from "
        "it, by its organiser); null: still in",
    )


class LeagueRef(PublicModel):
    """The league, season and division a league game belongs to, and the season's page."""

    name: str
    slug: str
    season: int
    division: int
    url: str = Field(description="the season's page, e.g. /leagues/spring/seasons/2")


#: What `private` means in every view of a game.
PRIVATE = "true: only its players and invitees see the game"

#: The clock fields every view of a game has (`GamePublic`, `GameSummary`).
CLOCK_FIELDS = {
    "clock": "the time control; null: the game has no clock",
    "deadline": "when the player to move runs out of time; null without a clock or when "
    "the game is not running",
    "vacation_until": "in the order of `players`: the end of the vacation each is on, or null",
    "timeouts": "in the order of `players`: each one's time-outs in a row",
}
#: What `league` means in every view of a game.
LEAGUE = "the league, season and division of a league game; null for any other game"


class ClockPause(PublicModel):
    """A hold of every clock of the game under way: its league season is paused by the
    organiser (a holiday season); no deadline passes and no reminder comes meanwhile."""

    since: Timestamp
    reason: str


class GamePublic(SparseModel):
    """A game as a viewer sees it. The fields from `turns` on appear once it has started,
    `standings` and `seed` once it is over."""

    id: int
    status: GameStatus
    version: int
    seats: int
    creator: str
    options: dict[str, Any]
    invited: list[str]
    rated: bool = Field(description="whether the game updates the players' ratings")
    private: bool = Field(description=PRIVATE)
    league: LeagueRef | None = Field(description=LEAGUE)
    players: list[str]
    computers: list[str] = Field(
        default_factory=list, description="the players among `players` who are computers"
    )
    your_seat: int | None
    to_move: str | None
    clock: ClockSettings | None = Field(description=CLOCK_FIELDS["clock"])
    deadline: Timestamp | None = Field(description=CLOCK_FIELDS["deadline"])
    vacation_until: list[Timestamp | None] = Field(description=CLOCK_FIELDS["vacation_until"])
    timeouts: list[int] = Field(description=CLOCK_FIELDS["timeouts"])
    created_at: Timestamp
    started_at: Timestamp | None
    finished_at: Timestamp | None
    turns: int | None = None
    scores: list[int] | None = None
    hands: list[list[str]] | None = None
    hand_limits: list[int] | None = None
    eliminated: list[bool] | None = None
    board: dict[str, str] | None = Field(default=None, description="chair number -> tile")
    bar: list[str] | None = None
    bag_size: int | None = None
    birthday_nation: str | None = None
    birthday_player: int | None = Field(
        default=None, description="the seat that reached the birthday threshold first"
    )
    elimination_order: list[int] | None = Field(
        default=None, description="seats in the order they left the game, first out first"
    )
    commitment: str | None = None
    standings: list[Standing] | None = None
    ending: Ending | None = Field(
        default=None,
        description="why the finished game ended: bar_full, chairs_full, bag_low, hand_empty, "
        "last_in_game (rulebook §10), others_left (the last opponent left) or adjudicated "
        "(by the league's organiser)",
    )
    seed: str | None = None
    clock_paused: ClockPause | None = Field(
        default=None, description="present while the game's league season is paused"
    )


class GameSummary(PublicModel):
    """A game in a list: enough to choose one to open or join, with the scores so far."""

    id: int
    status: GameStatus
    version: int
    seats: int
    private: bool = Field(description=PRIVATE)
    league: LeagueRef | None = Field(description=LEAGUE)
    players: list[str]
    to_move: str | None
    scores: list[int] | None = Field(description="in the order of `players`; null until started")
    invited: list[str] = Field(
        default_factory=list,
        description="who may join an invitation-only game (empty: anyone may)",
    )
    options: dict[str, Any]
    clock: ClockSettings | None = Field(description=CLOCK_FIELDS["clock"])
    deadline: Timestamp | None = Field(description=CLOCK_FIELDS["deadline"])
    vacation_until: list[Timestamp | None] = Field(description=CLOCK_FIELDS["vacation_until"])
    timeouts: list[int] = Field(description=CLOCK_FIELDS["timeouts"])
    created_at: Timestamp


class GameList(PublicModel):
    """Games newest first."""

    games: list[GameSummary]


class GameListQuery(QueryModel):
    """Which games to list."""

    status: GameStatus | None = Field(default=None, description=N_("open, active or finished"))
    mine: Literal["true", "false"] = Field(
        default="false", description=N_("true or false: only the caller's games")
    )
    limit: QueryInt = Field(
        default=50, ge=1, le=200, description=N_("a whole number from 1 to 200")
    )


class CacheHeaders(QueryModel):
    """`If-None-Match`: answer 304 when the caller has the current state already."""

    if_none_match: str | None = Field(default=None, alias="If-None-Match")


class TurnCreate(RequestModel):
    """A turn made against the game `version` the player saw."""

    turn: TurnText
    version: int = Field(
        ge=0, le=MAX_INT, description=rule(N_("a whole number from 0 to %(most)s"), most=MAX_INT)
    )


class TurnHeaders(QueryModel):
    """A retry with the same `Idempotency-Key` and body gets the first answer."""

    idempotency_key: str | None = Field(
        default=None,
        alias="Idempotency-Key",
        description=N_("1 to 100 printable ASCII characters, e.g. a UUID"),
        json_schema_extra={"pattern": "^[!-~]{1,100}$"},
    )


class TableScore(PublicModel):
    """What one table scored in a turn."""

    table: str
    points: int
    guests: int
    single_nation: bool
    birthday: bool
    tile: str | None
    chair: int | None


class TurnResult(PublicModel):
    """A played turn: its notation and points, what it changed, and the game after it."""

    summary: str
    game_id: int
    number: int
    player: str
    turn: str
    points: int
    tables: list[TableScore]
    drawn: list[str]
    completed: list[str]
    hand_limit: int
    stool: int | None
    eliminated: bool
    game_over: bool
    version: int
    to_move: str | None
    scores: list[int]


class TurnPreview(PublicModel):
    """What a turn would score, played on a copy of the game: nothing is applied, and
    nothing it would draw is shown."""

    turn: str
    points: int
    tables: list[TableScore]
    completed: list[str]
    hand_limit: int
    stool: int | None
    eliminated: bool
    as_if_your_turn: bool = Field(
        default=False,
        description="true when it is not the caller's turn yet: the answer is for their hand "
        "against the current board, as if it were (for planning)",
    )


class TurnPublic(SparseModel):
    """One entry of a game's log; a played turn also carries what it changed. `kind`
    `timeout` is a turn the service played for the player on time-out, or (with
    `removed: true` and no `turn`) their removal on time-out; kind `end` (`adjudicated:
    true`, no `turn`) is the league organiser's adjudication that ended the game, `by`
    whom and for what `reason` (`player` is whose turn it was); `left` says how an entry
    took its player out."""

    number: int
    player: str
    kind: TurnKind
    turn: str
    points: int
    tables: list[TableScore] | None = None
    drawn: list[str] | None = None
    completed: list[str] | None = None
    hand_limit: int | None = None
    stool: int | None = None
    eliminated: bool | None = None
    removed: bool | None = None
    adjudicated: bool | None = None
    by: str | None = Field(default=None, description="who adjudicated (kind `end`)")
    reason: str | None = Field(default=None, description="why it was adjudicated (kind `end`)")
    left: Departure | None = Field(
        default=None,
        description="how this entry took its player out of the game: eliminated (a bar turn "
        "not paid), resigned, timed_out (removed on time-out), withdrew (from the league's "
        "season) or removed (from it, by its organiser)",
    )
    created_at: Timestamp


class TurnLog(PublicModel):
    """A game's log, oldest first."""

    turns: list[TurnPublic]


class Hint(PublicModel):
    """A legal turn and its points."""

    turn: str
    points: int
    lowers_limit: int = Field(
        default=0,
        description="how much the turn lowers the hand limit (completed single-nation tables, "
        "/rules#refill); adding noshrink to the turn keeps it",
    )
    may_name_birthday: bool = Field(
        default=False,
        description="true when the turn may also name the birthday nation with birthday=XX "
        "(/rules#variants): the caller reached the threshold first, or this turn reaches it",
    )


class Hints(PublicModel):
    """The caller's best turns now, best first."""

    hints: list[Hint]
    as_if_your_turn: bool = Field(
        default=False,
        description="true when it is not the caller's turn yet: the answer is for their hand "
        "against the current board, as if it were (for planning)",
    )


class HintsQuery(QueryModel):
    """How many hints."""

    n: QueryInt = Field(default=5, ge=1, le=50, description=N_("a whole number from 1 to 50"))
