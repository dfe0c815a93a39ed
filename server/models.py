"""The database tables, as SQLModel classes (schema changes go through `migrations/`).

One class per table. Secrets are kept where no serializer reaches them by accident: tokens
and sign-in codes only as hashes, and a game's seed and snapshot (which holds the bag's
order) are read only by `server.games.store` and `server.games.public`, which never copy
them into a response while the game is running.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, TypeVar, cast

from sqlalchemy import (
    JSON,
    Column,
    Index,
    Table,
    UniqueConstraint,
    false,
    func,
    literal_column,
    text,
    true,
)
from sqlalchemy.orm import Mapped, Session, configure_mappers, make_transient_to_detached
from sqlalchemy.orm.attributes import instance_dict
from sqlalchemy.orm.util import identity_key
from sqlmodel import AutoString, Field, SQLModel, col
from sqlmodel.sql.expression import Select

from cafe import Game, i18n
from cafe.endings import Departure, Ending, departures_in
from cafe.league.table import Placement
from cafe.players import NAME_LENGTH
from server.clock import timesource
from server.names import skeleton


class TurnEmails(StrEnum):
    """How often a player hears of their turns: an email each turn, one daily digest, none."""

    EACH = "each"
    DIGEST = "digest"
    NONE = "none"


class TalkEmails(StrEnum):
    """How a player hears of their games' table talk by email (`server.games.talk`): an
    email per message (several written within minutes come as one), inside the game's
    other emails but at most a day late (the default), or not at all."""

    EACH = "each"
    WITH_TURNS = "with_turns"
    OFF = "off"


class GameStatus(StrEnum):
    """A game's life: open for players to join, active (being played), finished."""

    OPEN = "open"
    ACTIVE = "active"
    FINISHED = "finished"


class OutboxStatus(StrEnum):
    """Where a message is: waiting to be sent (`pending`), claimed by a worker (`sending`),
    `sent`, `failed` for good, `superseded` (out of date when its turn came), or `skipped`
    (unwanted by its reader)."""

    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"
    SUPERSEDED = "superseded"
    SKIPPED = "skipped"


class VacationKind(StrEnum):
    """How a vacation came about: declared by the player, or taken automatically for a
    day when a deadline passed (docs/league.md)."""

    DECLARED = "declared"
    AUTOMATIC = "automatic"


class SeasonStatus(StrEnum):
    """A league season's life (docs/league.md): players sign up or withdraw
    (`registration`), its games are played (`running`), its standings are final
    (`finished`)."""

    REGISTRATION = "registration"
    RUNNING = "running"
    FINISHED = "finished"


class MemberLeft(StrEnum):
    """How a member left a season (`SeasonMember.departure`): they withdrew, the organiser removed
    them, or they were removed on time from every game of the season they had left. Either
    way they are listed below every member still in their division; their finished games
    count for their opponents."""

    WITHDREW = "withdrew"
    REMOVED = "removed"
    REMOVED_ON_TIME = "removed_on_time"


class TurnKind(StrEnum):
    """What an entry of a game's log is: a played turn, a resignation, or what the service
    did when the player's time ran out (docs/league.md): the best turn
    played for them, or their removal (an entry without a notation, `detail`
    `{"removed": true}`), or the league organiser's adjudication that ended the game (`end`)."""

    TURN = "turn"
    RESIGN = "resign"
    TIMEOUT = "timeout"
    #: The league organiser ended the game with its standings as they were (an
    #: adjudication; `detail` `{"adjudicated": true, "by": NAME, "reason": TEXT}`).
    END = "end"


class TurnSource(StrEnum):
    """How a player's turn came in: through the API (the `cafe` client, or a program), the
    game's web page, or a reply to an email."""

    API = "api"
    WEB = "web"
    EMAIL = "email"
    #: played by the worker for a computer player
    COMPUTER = "computer"


#: The `detail` of a resignation's log entry, by how its player left (`departure_of` reads it).
RESIGNATION_DETAILS: dict[Departure, dict[str, bool]] = {
    Departure.RESIGNED: {},
    Departure.WITHDREW: {"withdrew": True},
    Departure.REMOVED: {"withdrew": True, "by_organiser": True},
}


def departure_of(kind: str, detail: Mapping[str, Any]) -> Departure | None:
    """How a log entry took its player out of the game (None: it did not): a resignation
    (`RESIGNATION_DETAILS`: of their own, by withdrawing from the league's season, or by
    the organiser's removing them from it), a removal on time-out, or a bar turn that
    could not be paid."""
    if kind == TurnKind.RESIGN:
        if detail.get("by_organiser"):
            return Departure.REMOVED
        return Departure.WITHDREW if detail.get("withdrew") else Departure.RESIGNED
    if detail.get("removed"):
        return Departure.TIMED_OUT
    return Departure.ELIMINATED if detail.get("eliminated") else None


def why_over(engine: Game, ending: str | None, standings: Sequence[Mapping[str, Any]]) -> str:
    """Why a finished game ended, in words: its stored `ending` and the `left` of each line
    of its stored `standings` told by the engine's `Game.why_over` (an `ending` None, from
    before it was stored, is the engine's reading of the final position)."""
    return engine.why_over(Ending(ending) if ending else None, departures_in(standings))


#: The longest reason an organiser may give for an action (`SeasonLogEntry.reason`).
REASON_LENGTH = 500


def utcnow() -> datetime:
    """The current time, aware, in UTC (SQLModel stores and returns aware UTC datetimes):
    the service's one time source, `server.clock.timesource.now`."""
    return timesource.now()


def aware(moment: datetime) -> datetime:
    """A datetime from the database as aware UTC (SQLite's driver returns naive ones)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def iso(moment: datetime | None) -> str | None:
    """A time as ISO 8601 in UTC with `Z`, as the API shows times."""
    return None if moment is None else moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def table_of(model: type[SQLModel]) -> Table:
    """The `Table` of a table class, for core statements. SQLAlchemy's declarative mapping
    sets `__table__` on each class; SQLModel does not declare it, so mypy cannot see it."""
    return model.__table__  # type: ignore[attr-defined]  # see the docstring


def stored_id(column: int | None) -> Mapped[int]:
    """A primary key (`Player.id`, …) as a column of a query, typed as what it reads.

    SQLModel types `id` as `int | None` because an object has none until it is flushed;
    a row read from the table always has one (the column is NOT NULL), so this cast is
    what the query returns, not a guess."""
    return cast("Mapped[int]", col(column))


#: A table class (`from_row`, `attached`).
Model = TypeVar("Model", bound=SQLModel)


def from_row(model: type[Model], row: Sequence[Any]) -> Model:
    """An object of `model` made from a row whose first columns are its table's, in the
    table's order, as the ORM's loading makes one, without calling `__init__` — but
    detached: in no session, every column loaded, nothing changed
    (`make_transient_to_detached`).

    For the hottest reads (a turn's game, a request's token owner): the ORM's handling of
    a query cost them about twice the query itself."""
    found: Model = model.__mapper__.class_manager.new_instance()  # type: ignore[attr-defined]
    instance_dict(found).update(zip(_column_names(model), row, strict=False))
    make_transient_to_detached(found)
    return found


@functools.cache
def _column_names(model: type[SQLModel]) -> tuple[str, ...]:
    return tuple(column.key for column in table_of(model).columns)


def attached(session: Session, found: Model) -> Model:
    """`found` (from `from_row`) as an object of `session`, as if the session had loaded
    it: changed and committed like any other. If the session already holds that row's
    object, that one (as the ORM's loading would return it)."""
    key = identity_key(type(found), found.id)  # type: ignore[attr-defined]
    held = session.identity_map.get(key)
    if held is not None:
        return held
    session.add(found)
    return found


def select_columns(*entities: Any) -> Select[*tuple[Any, ...]]:
    """`sqlmodel.select` of more than four columns: the very statement it builds.

    `select` takes any number of columns, but SQLModel's typed overloads stop at four; past
    them mypy finds no overload. The rows are typed as tuples of unknown columns, which the
    callers unpack into names."""
    return Select(*entities)


def _skeleton_of_name(context: Any) -> str:
    """The default of `players.name_skeleton`: the skeleton of the name inserted."""
    return skeleton(context.get_current_parameters()["name"])


class Player(SQLModel, table=True):
    """Someone who plays: a unique name (shown in games) and an email (for sign-in and turns).

    The email preferences: `turn_emails` (a `TurnEmails`) and `others_turns` (also
    hear of the other players' turns); `last_digest_at` is when the last digest period
    closed, for players who chose the digest; `reminders` of deadlines, the `timezone`
    (an IANA name) times are shown in and the `language` (`cafe.i18n`) they read;
    `talk_emails` (a `TalkEmails`) how the table talk of their games reaches them. The
    vacation bank (`server.clock.bank.Bank`) is `vacation_hours` at `vacation_as_of`, plus
    `vacation_carry` seconds off vacation not yet credited.
    """

    __tablename__ = "players"
    #: One name ignoring case, kept by the database so that two registrations at once
    #: cannot both take it.
    __table_args__ = (Index("ix_players_name_lower", func.lower(text("name")), unique=True),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=NAME_LENGTH, unique=True)
    #: The name's confusable skeleton (`server.names`), unique: no two names look alike.
    #: Every insert computes it from `name` (an operator renaming a player in SQL must set
    #: it too; NULL only where SQL left it out, see migration 0017). A skeleton can be
    #: longer than its name (`m` is `rn`).
    name_skeleton: str | None = Field(
        default=None,
        max_length=4 * NAME_LENGTH,
        unique=True,
        index=True,
        sa_column_kwargs={"default": _skeleton_of_name},
    )
    email: str = Field(max_length=254, unique=True)
    created_at: datetime = Field(default_factory=utcnow)
    turn_emails: TurnEmails = Field(
        default=TurnEmails.EACH,
        sa_type=AutoString(length=8),
        sa_column_kwargs={"server_default": TurnEmails.EACH.value},
    )
    others_turns: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    last_digest_at: datetime | None = None
    reminders: bool = Field(default=True, sa_column_kwargs={"server_default": true()})
    timezone: str = Field(default="UTC", max_length=64, sa_column_kwargs={"server_default": "UTC"})
    #: The language the player reads (`cafe.i18n.LANGUAGES`): their emails and pages.
    language: str = Field(
        default=i18n.DEFAULT, max_length=8, sa_column_kwargs={"server_default": i18n.DEFAULT}
    )
    talk_emails: TalkEmails = Field(
        default=TalkEmails.WITH_TURNS,
        sa_type=AutoString(length=10),
        sa_column_kwargs={"server_default": TalkEmails.WITH_TURNS.value},
    )
    #: Whether the player chose `language` (the API, the settings page, the switch), rather
    #: than reading the one that registered them: `cafe` keeps only a chosen one.
    language_chosen: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    vacation_hours: int = Field(default=14 * 24, sa_column_kwargs={"server_default": "336"})
    vacation_as_of: datetime = Field(default_factory=utcnow)
    vacation_carry: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    #: A computer player (`server.games.computers`): its turns are the worker's, it gets no
    #: email and nobody signs in as it.
    computer: bool = Field(default=False, sa_column_kwargs={"server_default": false()})


class ApiToken(SQLModel, table=True):
    """A bearer token; only its SHA-256 is stored, the token itself is shown once."""

    __tablename__ = "api_tokens"

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    token_hash: str = Field(max_length=64, unique=True)
    label: str = Field(max_length=64, default="")
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None


class SignInCode(SQLModel, table=True):
    """A sign-in request: one email with a short code and a sign-in link, each usable once
    until `expires_at` (`server.signin`).

    Neither is stored: both are derived from the secret key and the random `request_id`
    when the email is rendered, and checked by deriving them again, so no database file
    holds anything to sign in with. `outbox_id` is the email's outbox row (a message sent
    again carries the same code)."""

    __tablename__ = "signin_codes"

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    request_id: str = Field(max_length=32, unique=True, index=True)
    outbox_id: int | None = Field(default=None, unique=True, index=True)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    used_at: datetime | None = None


class ThrottleEvent(SQLModel, table=True):
    """One counted attempt (a sign-in guess, a registration, a code request) by a client
    address, for the limits of `server.throttle`; kept a day at most (`server.jobs.retention`)."""

    __tablename__ = "throttle_events"
    __table_args__ = (
        Index("ix_throttle_client", "kind", "client", "created_at"),
        Index("ix_throttle_kind", "kind", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=16)
    client: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow)


class GameRecord(SQLModel, table=True):
    """A game: its lobby data, and once started the engine snapshot, secret seed and version.

    `version` rises by one with every change (join, start, turn, resign); turns name the
    version they were made against, and the update is a compare-and-set on it.

    `clock` is the time control (`server.schemas.games.ClockSettings` as a dict; None: no
    clock). While it runs, `turn_started_at` is when the player to move began and
    `deadline` (indexed, for the worker's sweep) when their time runs out. `clock_serial`
    rises when the clock facts shown with the game change without a new version (a
    player's vacation), so that the game's ETag changes too. `player_clocks` keeps those
    facts by player name, so that showing a game reads no other table:
    `{"ann": {"vacation": [start, end], "timeouts": 1}}` (ISO times; absent: none, 0).
    `private` games show only to their players and invitees; `auto_start` starts the game
    when its last seat is taken; a `rated` game's finish updates its players' ratings. A
    league game names its `season_id` and `division` (league games are always rated).
    A finished game says why it ended in `ending` (a `cafe.endings.Ending`, written with its
    standings: by the change that ended it, `adjudicated` by an organiser's adjudication);
    each line of `standings` says in `left` how a player who left before the end did (a
    `cafe.endings.Departure`, or None).

    `reminder_due` (indexed, for the sweep) is when the next reminder of the running turn
    is due (None: none to come), `reminded` the reminders of this turn already sent
    (`half`, `last`), so that none is sent twice in one turn.

    `clock_holds` are the league organiser's pauses of every clock of the game (a season's
    holiday, `server.league.pause`): `[{"start": ISO, "end": ISO or null, "reason": TEXT}]`,
    oldest first; one whose `end` is null is under way, and while it lasts the game has no
    deadline and no reminder due.
    """

    __tablename__ = "games"
    #: A season's games, and one division's, found without reading the games' rows (a
    #: division's page is read often; issue 12 §4).
    __table_args__ = (Index("ix_games_season_division", "season_id", "division"),)

    id: int | None = Field(default=None, primary_key=True)
    creator_id: int = Field(foreign_key="players.id")
    status: GameStatus = Field(default=GameStatus.OPEN, sa_type=AutoString(length=8), index=True)
    seats: int
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    invited: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    version: int = 0
    turn_count: int = 0
    seed_hex: str | None = Field(default=None, max_length=128)
    commitment: str | None = Field(default=None, max_length=64)
    state: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    standings: list[dict[str, Any]] | None = Field(default=None, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    clock: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    turn_started_at: datetime | None = None
    deadline: datetime | None = Field(default=None, index=True)
    clock_serial: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    player_clocks: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False, server_default="{}")
    )
    reminder_due: datetime | None = Field(default=None, index=True)
    reminded: list[str] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False, server_default="[]")
    )
    clock_holds: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False, server_default="[]")
    )
    private: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    auto_start: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    rated: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    season_id: int | None = Field(default=None, foreign_key="seasons.id")
    division: int | None = None
    ending: Ending | None = Field(default=None, sa_type=AutoString(length=16))
    #: The names of the game's computer players (`server.games.computers`), the strength
    #: they play at (`cafe.bots.SamplingBot`'s level; None: no computer players), and
    #: whether the turn is a computer's now (indexed: the worker looks for those games).
    computers: list[str] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False, server_default="[]")
    )
    computer_level: int | None = None
    computer_turn: bool = Field(
        default=False, index=True, sa_column_kwargs={"server_default": false()}
    )


class GameSeat(SQLModel, table=True):
    """A player in a game: the order they joined in, and their seat once the game starts.

    The game's table talk by email (`server.games.talk`): `talk_mailed` is the newest
    message (`TableTalk.id`) an email to this player has quoted or passed over (0: none),
    so that each email quotes only what the player has not been emailed yet; `talk_due`
    (indexed, for the worker) is when a message not emailed by then is sent alone (None:
    nothing waits)."""

    __tablename__ = "game_seats"
    __table_args__ = (
        UniqueConstraint("game_id", "player_id"),
        UniqueConstraint("game_id", "join_order"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    join_order: int
    seat: int | None = None
    joined_at: datetime = Field(default_factory=utcnow)
    talk_mailed: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    talk_due: datetime | None = Field(default=None, index=True)


#: The longest message of table talk, in characters (after trimming).
TALK_LENGTH = 500


class TableTalk(SQLModel, table=True):
    """One message of a game's table talk (`server.games.talk`): who wrote it (`player_id`,
    one of the game's players), its `text` (1 to `TALK_LENGTH` characters, no control
    character but line breaks) and the game's `version` when it was written. Only the
    game's players and invitees read it; it is kept as long as its game is, and deleted
    with it (`server.jobs.retention`). Writing one changes nothing of the game's row: not
    its version, nor its ETag."""

    __tablename__ = "table_talk"
    __table_args__ = (
        #: A game's messages in order, and those after an id (`?after=`).
        Index("ix_table_talk_game", "game_id", "id"),
        #: A player's messages of the last hour or day, for the limits.
        Index("ix_table_talk_player", "player_id", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")
    player_id: int = Field(foreign_key="players.id")
    text: str = Field(max_length=TALK_LENGTH)
    version: int
    created_at: datetime = Field(default_factory=utcnow)


class Mute(SQLModel, table=True):
    """A player (`player_id`) who muted another (`muted_id`): the muted player's table talk
    is hidden from them in every game and never emailed to them."""

    __tablename__ = "mutes"
    __table_args__ = (UniqueConstraint("player_id", "muted_id"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id")
    muted_id: int = Field(foreign_key="players.id")
    created_at: datetime = Field(default_factory=utcnow)


class Vacation(SQLModel, table=True):
    """A player's vacation, `[start, end)`: declared (`days` paid from the bank when it
    starts; `end` moves to the moment it is ended early) or an automatic day.

    Past vacations stay: a deadline is computed over every pause since the turn began.
    `notice_due` (indexed, for the sweep) is when the next email about a declared vacation
    is due: its start ("vacation started", unless it was sent when it was declared), then
    its end ("vacation ended"); None once both are sent, or for an automatic day.
    """

    __tablename__ = "vacations"
    __table_args__ = (Index("ix_vacations_player_end", "player_id", "end"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id")
    kind: VacationKind = Field(default=VacationKind.DECLARED, sa_type=AutoString(length=9))
    start: datetime
    end: datetime
    days: int
    created_at: datetime = Field(default_factory=utcnow)
    notice_due: datetime | None = Field(default=None, index=True)


class DevClock(SQLModel, table=True):
    """The development clock's shift (`server.clock.devclock`): one row, id 1."""

    __tablename__ = "dev_clock"

    id: int | None = Field(default=None, primary_key=True)
    offset_seconds: int = 0


class TurnRecord(SQLModel, table=True):
    """One entry of a game's append-only log: a turn or a resignation.

    `notation` is the engine's text of the turn as played (`TurnResult.notation`): canonical,
    and it replays to the very same chairs. `submitted` keeps the text as the player sent
    it, as evidence of what was asked for, and `source` how it came in (a `TurnSource`; None
    for the entries the service writes — resignations, time-outs — and turns logged before
    it was kept).
    """

    __tablename__ = "turns"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")
    number: int
    seat: int
    kind: TurnKind = Field(default=TurnKind.TURN, sa_type=AutoString(length=8))
    notation: str = Field(default="", max_length=200)
    submitted: str = Field(default="", max_length=200)
    source: TurnSource | None = Field(default=None, sa_type=AutoString(length=8))
    points: int = 0
    detail: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


@dataclass(slots=True)
class LogEntry:
    """A log entry about to be written: `TurnRecord`'s columns but its id, as a plain
    object. A change builds one and writes it with a Core INSERT (`turns.write_change`);
    building a `TurnRecord` instead, whose every attribute is instrumented, cost a turn
    more than the INSERT did."""

    game_id: int
    number: int
    seat: int
    kind: TurnKind = TurnKind.TURN
    notation: str = ""
    submitted: str = ""
    source: TurnSource | None = None
    points: int = 0
    detail: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=utcnow)


class IdempotencyKey(SQLModel, table=True):
    """The response to a request made with an `Idempotency-Key`, replayed on a retry."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (UniqueConstraint("player_id", "key"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id")
    key: str = Field(max_length=100)
    request_hash: str = Field(max_length=64)
    status_code: int
    response: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


#: The statuses of the rows a worker may still claim (an outbox message or a channel
#: delivery): waiting, or claimed under a lease that may lapse. The claims read them through
#: partial indexes of these rows alone (issue 25), a few hundred among a league's millions.
UNSETTLED = (OutboxStatus.PENDING.value, OutboxStatus.SENDING.value)
#: `status IN ('pending', 'sending')` with its values written out, as the partial indexes
#: say it: a planner uses a partial index only for a query whose WHERE says what the
#: index's says, which it cannot tell of a bound parameter.
UNSETTLED_SQL = "status IN ({})".format(", ".join(f"'{status}'" for status in UNSETTLED))


def unsettled(status: Any) -> Any:
    """The condition `UNSETTLED_SQL` on the `status` column of a table or alias, its values
    written into the statement (see `UNSETTLED_SQL`)."""
    return status.in_([literal_column(f"'{value}'") for value in UNSETTLED])


def _unsettled_index(name: str, *columns: str) -> Index:
    """A partial index of the rows a claim reads (`UNSETTLED`), on both databases."""
    where = text(UNSETTLED_SQL)
    return Index(name, *columns, postgresql_where=where, sqlite_where=where)


class OutboxMessage(SQLModel, table=True):
    """An email waiting to be sent (or sent, or given up on) by `cafe-server worker`.

    A row is an **event** of a game change: only the game, its version, the recipient's
    seat and the `kind`, written in the change's own transaction and rendered by the worker
    from the game as it is when it sends (`server.mail.events`); or a **notice**: its
    address, kind and `payload`, the language-neutral facts of that moment (league,
    vacation, invitation, the answers to emailed replies), rendered by the worker with its
    kind's builder (`server.mail.notices`); or a sign-in email (its address: the code is
    made when rendered); or a daily digest (its `payload`: the player, the start of its
    period and its moment; rendered from the player's games by `server.mail.digest`). A
    `payload` with a game (the answer to a refused emailed turn) is rendered from the game
    as it is when sent and those facts. The worker fills in the rendered fields of every
    row when it sends it: nothing is queued rendered.

    `to_addr` is the recipient's address: an event gets its player's address when a worker
    first claims (`server.jobs.outbox.claim`), and their address of that moment when it is
    rendered. Mail to one address leaves in the order of the rows' ids.

    `status` is `pending`, `sending` (claimed by `claimed_by` until `claimed_until`), `sent`,
    `failed`, or for events `superseded` (out of date when its turn came: the game moved on)
    or `skipped` (the recipient's preferences do not want it). `message_id` is fixed when
    the row is written, so a message delivered twice after a crash carries the same
    Message-ID and mail clients show it once. `body` is the plain-text part, `html` the HTML
    alternative (if any), `headers` the further header fields (threading, Reply-To,
    List-Unsubscribe, …). `answering` is the Message-ID of the player's email an event
    answers, `turn` the log entry it confirms. `more_games` lists the further games
    (`[game id, version]` pairs) a reminder is about: reminders due within the hour for one
    player come as one email.
    """

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_due", "status", "available_at"),
        Index("ix_outbox_address", "to_addr", "status"),
        # the claims': the unsettled messages in order, and an address's earlier ones
        _unsettled_index("ix_outbox_unsettled", "id"),
        _unsettled_index("ix_outbox_unsettled_address", "to_addr", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=32)
    to_addr: str | None = Field(default=None, max_length=254)
    subject: str | None = Field(default=None, max_length=200)
    body: str | None = None
    html: str | None = None
    headers: dict[str, str] | None = Field(default=None, sa_column=Column(JSON))
    message_id: str = Field(max_length=200)
    status: OutboxStatus = Field(default=OutboxStatus.PENDING, sa_type=AutoString(length=12))
    attempts: int = 0
    available_at: datetime = Field(default_factory=utcnow)
    claimed_by: str | None = Field(default=None, max_length=64)
    claimed_until: datetime | None = None
    last_error: str | None = Field(default=None, max_length=500)
    created_at: datetime = Field(default_factory=utcnow)
    sent_at: datetime | None = None
    game_id: int | None = None
    version: int | None = None
    seat: int | None = None
    turn: int | None = None
    answering: str | None = Field(default=None, max_length=200)
    more_games: list[list[int]] | None = Field(
        default=None, sa_column=Column(JSON(none_as_null=True))
    )
    payload: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON(none_as_null=True)))


class MailRecipient(SQLModel, table=True):
    """What the worker knows of one address: delivery state and the recent sends.

    `state` is `ok`, `retrying` (a temporary failure, being retried) or `failing` (a message
    was refused for good or given up on; nothing delivered since); `last_error` and `since`
    go with it. `recent` holds the times of the sends of the last minute, for the
    per-recipient limit; `version` makes every update a compare-and-set, so workers running
    at once never exceed the limit together.
    """

    __tablename__ = "mail_recipients"

    address: str = Field(primary_key=True, max_length=254)
    state: str = Field(default="ok", max_length=8)
    last_error: str | None = Field(default=None, max_length=500)
    since: datetime | None = None
    recent: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    version: int = 0


class InboundMail(SQLModel, table=True):
    """An emailed reply that was handled, by its Message-ID (or a digest of its bytes).

    Written in the same transaction as what the reply caused (the turn and its emails, or
    the answer), so a message delivered twice is applied and answered once.
    """

    __tablename__ = "inbound_mail"

    id: int | None = Field(default=None, primary_key=True)
    message_key: str = Field(max_length=200, unique=True)
    player_id: int | None = None
    game_id: int | None = None
    outcome: str = Field(max_length=24)
    received_at: datetime = Field(default_factory=utcnow)


class OfferedHints(SQLModel, table=True):
    """The numbered turns an email offered a player at a game version, so that a reply of
    `1`, `2` or `3` means exactly the turn that email showed."""

    __tablename__ = "offered_hints"
    __table_args__ = (UniqueConstraint("game_id", "version", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")
    version: int
    player_id: int = Field(foreign_key="players.id")
    hints: list[dict[str, Any]] = Field(sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class League(SQLModel, table=True):
    """A standing competition (docs/league.md): its organiser, `slug` (its short unique name
    in addresses), whether anyone may register (`open`) or only the `invited` names, and
    the settings every game of it uses."""

    __tablename__ = "leagues"

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(max_length=32, unique=True)
    name: str = Field(max_length=64)
    organiser_id: int = Field(foreign_key="players.id", index=True)
    open: bool = True
    game_size: int = 4
    clock: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    division_size: int = 8
    promote: int = 2
    relegate: int = 2
    invited: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class Season(SQLModel, table=True):
    """A league's season `number` (from 1): `status` a `SeasonStatus`.

    At the start a secret `seed_hex` fixes the schedule and its `commitment` is published;
    the seed is shown once the season is finished. `games_left` counts the season's games
    not yet finished (the last one to finish ends the season), `moves` are the promotions
    and relegations at its end, `digest_due` (indexed, for the sweep) when the next weekly
    league digest is due. `paused_at`: since when the organiser has paused every clock of
    the season's games (None: not paused; `server.league.pause`).
    """

    __tablename__ = "seasons"
    __table_args__ = (UniqueConstraint("league_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="leagues.id", index=True)
    number: int
    status: SeasonStatus = Field(default=SeasonStatus.REGISTRATION, sa_type=AutoString(length=12))
    seed_hex: str | None = Field(default=None, max_length=128)
    commitment: str | None = Field(default=None, max_length=64)
    games_left: int = 0
    moves: list[dict[str, Any]] | None = Field(default=None, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    digest_due: datetime | None = Field(default=None, index=True)
    paused_at: datetime | None = None


class SeasonMember(SQLModel, table=True):
    """A player registered for a season, their `division` once it started, and their line
    of the division's standings, kept up to date as its games finish: league points in
    units of 1/`cafe.league.table.POINT_UNITS` (exact: shared places give fractions), the
    sum of final game scores, games won and games finished. `withdrawn_at`: when they left
    (their finished results stand), and `departure` how (a `MemberLeft`); `removed_reason`:
    why the organiser removed them (`server.league.removal`). `placed`: why they are in
    their division (a `Placement`), `placed_from` their division in the last season."""

    __tablename__ = "season_members"
    __table_args__ = (UniqueConstraint("season_id", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    season_id: int = Field(foreign_key="seasons.id", index=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    division: int | None = None
    registered_at: datetime = Field(default_factory=utcnow)
    withdrawn_at: datetime | None = None
    departure: MemberLeft | None = Field(default=None, sa_type=AutoString(length=16))
    removed_reason: str | None = Field(default=None, max_length=REASON_LENGTH)
    placed: Placement | None = Field(default=None, sa_type=AutoString(length=8))
    placed_from: int | None = None
    points_units: int = 0
    score_sum: int = 0
    wins: int = 0
    played: int = 0


class Rating(SQLModel, table=True):
    """A player's OpenSkill rating (docs/league.md): `mu` and `sigma` after `games` rated
    games; players without a row have the model's defaults."""

    __tablename__ = "ratings"

    player_id: int = Field(foreign_key="players.id", primary_key=True)
    mu: float
    sigma: float
    games: int = 0
    updated_at: datetime = Field(default_factory=utcnow)


class RatingPoint(SQLModel, table=True):
    """A player's rating after one rated game: their rating history. The ids record the
    order the games' finishes were applied in, which `cafe-server ratings rebuild` replays."""

    __tablename__ = "rating_history"
    __table_args__ = (UniqueConstraint("player_id", "game_id"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    finished_at: datetime
    mu: float
    sigma: float


class SeasonLogAction(StrEnum):
    """What a league organiser did to a season (`SeasonLogEntry.action`)."""

    REMOVE = "remove"
    PAUSE = "pause"
    RESUME = "resume"
    ADJUDICATE = "adjudicate"


class SeasonLogEntry(SQLModel, table=True):
    """One line of a season's log: what its organiser did (`by_id`), when (`at`) and why
    (`reason`), to which player or game; public, like the season (`server.league.log`)."""

    __tablename__ = "season_log"

    id: int | None = Field(default=None, primary_key=True)
    season_id: int = Field(foreign_key="seasons.id", index=True)
    at: datetime = Field(default_factory=utcnow)
    by_id: int = Field(foreign_key="players.id")
    action: SeasonLogAction = Field(sa_type=AutoString(length=12))
    player_id: int | None = Field(default=None, foreign_key="players.id")
    game_id: int | None = Field(default=None, foreign_key="games.id")
    reason: str = Field(default="", max_length=REASON_LENGTH)


class Channel(SQLModel, table=True):
    """A place besides email where a player is told of their games (issue 26): a Discord or
    Slack webhook, a Matrix room, an ntfy topic or a signed webhook (`server.channels`).
    It belongs to a player (`player_id`) or to a league (`league_id`, its organiser's
    shared channel: every game event of its seasons once, never a hand), never both.

    `url` (the webhook, or the Matrix or ntfy server), `target` (the Matrix room or the
    ntfy topic), `token` (Matrix's access token, ntfy's bearer token) and `secret` (a
    webhook's signing secret, `whsec_…`) are secrets: shown once when the channel is made,
    then only masked, never logged, and deleted with the player. `events` are the events it
    takes (`server.postbox.pings.ChannelEvent`). `state` is `active` or `disabled` (with
    `disabled_reason`); `failing_since` is when its deliveries began to fail (None: the last
    one succeeded), `last_error` what its receiver last answered.
    """

    __tablename__ = "channels"

    id: int | None = Field(default=None, primary_key=True)
    player_id: int | None = Field(default=None, foreign_key="players.id", index=True)
    league_id: int | None = Field(default=None, foreign_key="leagues.id", index=True)
    kind: str = Field(max_length=16)
    url: str = Field(max_length=2000)
    target: str | None = Field(default=None, max_length=255)
    token: str | None = Field(default=None, max_length=500)
    secret: str | None = Field(default=None, max_length=100)
    events: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    state: str = Field(default="active", max_length=12)
    disabled_reason: str | None = Field(default=None, max_length=500)
    failing_since: datetime | None = None
    last_error: str | None = Field(default=None, max_length=500)
    last_sent_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)


class ChannelDelivery(SQLModel, table=True):
    """One event for one channel, written in the transaction of the change it tells of and
    sent by the worker (`server.jobs.deliveries`): the outbox of channels.

    `delivery_id` is fixed when the row is written, so every attempt carries the same id
    (a webhook's `webhook-id`, Matrix's transaction id): a receiver may drop a repeat.
    `event` is a `ChannelEvent`; `game_id` and `version` the game it is about, rendered as
    the game is when sent; `payload` the facts an event carries besides its game (a table
    talk message's writer and text, a season's league, number and status).
    `status` is `pending`, `sending` (claimed until `claimed_until`), `sent`, `failed`
    (the schedule ran out, or the channel was disabled) or `superseded` (out of date);
    `claimed_by` is the worker's claim while it is `sending`.
    """

    __tablename__ = "channel_deliveries"
    __table_args__ = (
        Index("ix_channel_deliveries_due", "status", "available_at"),
        _unsettled_index("ix_channel_deliveries_unsettled", "id"),  # the claim's, in order
    )

    id: int | None = Field(default=None, primary_key=True)
    channel_id: int = Field(foreign_key="channels.id", index=True)
    delivery_id: str = Field(max_length=40, unique=True)
    event: str = Field(max_length=16)
    game_id: int | None = None
    version: int | None = None
    payload: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON(none_as_null=True)))
    status: str = Field(default="pending", max_length=12)
    attempts: int = 0
    available_at: datetime = Field(default_factory=utcnow)
    claimed_by: str | None = Field(default=None, max_length=32)
    claimed_until: datetime | None = None
    last_error: str | None = Field(default=None, max_length=500)
    created_at: datetime = Field(default_factory=utcnow)
    sent_at: datetime | None = None


# Every mapper is configured here, as this module (which declares all the tables) is
# imported, not at the first ORM query: `from_row` makes objects without one, and an
# object of an unconfigured mapper has no attributes to load its columns into.
configure_mappers()
