"""Store functions for the lobby (create, join, start, list) and the checks and
compare-and-set that `server.games.turns` shares.

Every change to a game is one transaction that starts with a compare-and-set on
`games.version` (`UPDATE … WHERE version = :seen`), then appends to the turn log and queues
the emails' events. Starting with the write matters: on PostgreSQL the row lock serializes rivals,
on SQLite the writer lock is taken before anything is read, so the loser of a race simply
finds the version moved on and gets a 409 — never a half-applied turn.
"""

from __future__ import annotations

import dataclasses
import functools
import secrets
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import String, Update, bindparam, cast, false, func, or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from cafe import Game, Options
from cafe.endings import Departure
from cafe.i18n import N_, Message, Text, lazy_gettext, lazy_ngettext
from server.clock.deadlines import Interval
from server.clock.store import alarms, pauses_of
from server.config import Settings
from server.domain import Conflict, Forbidden, NotFound, Refused
from server.games import notify
from server.games.computers import DEFAULT_LEVEL, computer_to_move
from server.games.computers import accounts as computer_accounts
from server.games.computers import check_seats as computer_seats
from server.games.public import to_move_name
from server.league.labels import LeagueLabel
from server.models import (
    GameRecord,
    GameSeat,
    GameStatus,
    League,
    LogEntry,
    Player,
    Season,
    TurnRecord,
    departure_of,
    from_row,
    select_columns,
    table_of,
    utcnow,
)

JOIN_RETRIES = 5

_GAMES = table_of(GameRecord)

#: A game by id, read afresh even if the session holds it. Built once: it serves every
#: turn, and `Session.get` built (and looked up the cache key of) a new statement each time.
_GAME = (
    select(GameRecord)
    .where(col(GameRecord.id) == bindparam("game_id"))
    .execution_options(populate_existing=True)
)
#: A game, its creator's name and its league's name, slug and season (shown with every
#: state), in one query. Built once: it serves every `GET /api/games/<id>`, and building it
#: cost as much as running it.
_GAME_AND_CREATOR = (
    select_columns(GameRecord, Player.name, League.name, League.slug, Season.number)
    .join(Player, col(Player.id) == GameRecord.creator_id)
    .outerjoin(Season, col(Season.id) == GameRecord.season_id)
    .outerjoin(League, col(League.id) == Season.league_id)
    .where(col(GameRecord.id) == bindparam("game_id"))
    .execution_options(populate_existing=True)
)


#: A game's row by id, in Core (`read_game`).
_GAME_ROW = _GAMES.select().where(_GAMES.c.id == bindparam("game_id"))


def _no_such_game(game_id: int) -> NotFound:
    return NotFound(
        "game_not_found",
        lazy_gettext("there is no game %(game)s; see GET /api/games", game=game_id),
    )


def load_game(session: Session, game_id: int) -> GameRecord:
    """The game with this id, or a 404."""
    game = session.exec(_GAME, params={"game_id": game_id}).first()
    if game is None:
        raise _no_such_game(game_id)
    return game


def read_game(session: Session, game_id: int) -> GameRecord:
    """The game with this id, or a 404, as `load_game` reads it, for a turn: read as a Core
    row and made into a `GameRecord` as the ORM's loading makes one, but detached (in no
    session; every column loaded, nothing changed: `make_transient_to_detached`). The
    ORM's handling of the query cost a turn about twice the query itself, and a turn writes
    the game with Core statements only (`server.games.guarded`): it never needed the game
    in its session."""
    row = session.connection().execute(_GAME_ROW, {"game_id": game_id}).first()
    if row is None:
        raise _no_such_game(game_id)
    return from_row(GameRecord, row)


def may_see(session: Session, game: GameRecord, viewer: Player | None) -> bool:
    """Whether `viewer` (None: signed out) may see `game`: anyone a public game, only its
    players and invitees a private one."""
    if not game.private:
        return True
    return viewer is not None and (
        viewer.name in game.invited or viewer.name in names_of(session, game)
    )


def visible_game(session: Session, game: GameRecord, viewer: Player | None) -> GameRecord:
    """`game` if `viewer` may see it; else the 404 of a game that does not exist, so that
    a private game's id tells an outsider nothing."""
    if not may_see(session, game, viewer):
        assert game.id is not None
        raise _no_such_game(game.id)
    return game


def load_game_and_creator(
    session: Session, game_id: int
) -> tuple[GameRecord, str, LeagueLabel | None]:
    """The game with this id, its creator's name and its league (None: not a league
    game), or a 404."""
    found = session.exec(_GAME_AND_CREATOR, params={"game_id": game_id}).first()
    if found is None:
        raise _no_such_game(game_id)
    game, creator, league, slug, season = found
    if league is None:
        return game, creator, None
    return game, creator, LeagueLabel(league, slug, season, game.division or 1)


def player_names(session: Session, game_ids: list[int]) -> dict[int, list[str]]:
    """Each game's players: in seat order once started, in join order before."""
    rows = session.exec(
        select(GameSeat.game_id, Player.name)
        .join(Player, col(Player.id) == GameSeat.player_id)
        .where(col(GameSeat.game_id).in_(game_ids))
        .order_by(col(GameSeat.game_id), func.coalesce(GameSeat.seat, GameSeat.join_order))
    ).all()
    names: dict[int, list[str]] = {game_id: [] for game_id in game_ids}
    for game_id, name in rows:
        names[game_id].append(name)
    return names


def names_of(session: Session, game: GameRecord) -> list[str]:
    """The game's players (see `player_names`): read from the snapshot once the game has
    started, which lists them in seat order, so showing a game costs no extra query."""
    if game.state is not None:
        return list(game.state["players"])
    assert game.id is not None
    return player_names(session, [game.id])[game.id]


def joined_names(session: Session, game: GameRecord) -> list[str]:
    """The players in join order: the list `Game.new` was (and is, on replay) given."""
    return list(
        session.exec(
            select(Player.name)
            .join(GameSeat, col(GameSeat.player_id) == Player.id)
            .where(GameSeat.game_id == game.id)
            .order_by(col(GameSeat.join_order))
        ).all()
    )


def bump_version(session: Session, game: GameRecord, **values: Any) -> bool:
    """Compare-and-set: raise the version and write `values` if nobody changed the game."""
    # A Core statement on the table: the ORM's bulk-update machinery (it would look for
    # objects to synchronise, which `synchronize_session=False` then skips) cost more than
    # running the statement.
    result = session.exec(
        compare_and_set(tuple(values)), params=compare_and_set_params(game, values)
    )
    return result.rowcount == 1


def compare_and_set_params(game: GameRecord, values: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of `compare_and_set(tuple(values))` for `game`."""
    params = {f"new_{name}": value for name, value in values.items()}
    params.update(
        game_id=game.id,
        seen=game.version,
        seen_clock=game.clock_serial,
        next_version=game.version + 1,
    )
    return params


@functools.lru_cache(maxsize=64)
def compare_and_set(columns: tuple[str, ...]) -> Update:
    """The compare-and-set of `bump_version` writing `columns`, built once per set of them.

    It is guarded by the clock facts the change was computed with (`clock_serial`) as well
    as the version: a change that computed the next deadline from a game whose vacations or
    holds changed meanwhile (a season paused that moment) writes nothing, rather than a
    deadline that ignores them."""
    return (
        update(_GAMES)
        .where(
            _GAMES.c.id == bindparam("game_id"),
            _GAMES.c.version == bindparam("seen"),
            _GAMES.c.clock_serial == bindparam("seen_clock"),
        )
        .values(
            version=bindparam("next_version"),
            **{name: bindparam(f"new_{name}", type_=_GAMES.c[name].type) for name in columns},
        )
    )


#: What a game is doing, in words, for a refusal that says so.
_STATUS_WORDS = {
    GameStatus.OPEN: N_("the game is open"),
    GameStatus.ACTIVE: N_("the game is active"),
    GameStatus.FINISHED: N_("the game is finished"),
}


def refuse_unknown(names: Iterable[str], known: Iterable[str]) -> None:
    """Refuse `names` unless every one is among `known` (the names found of them), naming
    those nobody has: one refusal for invitations to a game and to a league."""
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise Refused(
            "unknown_player",
            lazy_ngettext(
                "no player is named %(names)s",
                "no players are named %(names)s",
                len(unknown),
                names=", ".join(unknown),
            ),
        )


def conflict(session: Session, game_id: int, code: str, message: Message) -> Conflict:
    """A 409 that reports the game's current version and whose turn it is."""
    game = load_game(session, game_id)
    mover = to_move_name(game)
    said = (
        lazy_gettext(
            "%(problem)s; the game is at version %(version)s and it is %(player)s's turn",
            problem=message,
            version=game.version,
            player=mover,
        )
        if mover
        else lazy_gettext(
            "%(problem)s; the game is at version %(version)s and %(status)s",
            problem=message,
            version=game.version,
            status=Text(_STATUS_WORDS[GameStatus(game.status)]),
        )
    )
    return Conflict(
        code,
        said,
        version=game.version,
        to_move=mover,
        game_status=game.status,
    )


def active_seat(session: Session, game: GameRecord, player: Player) -> int:
    """The player's seat in this running game; 403 for an outsider, 409 if not running.

    A started game's snapshot lists its players in seat order, so only a game that has not
    started needs a query to tell a player who joined from an outsider.
    """
    if game.state is None:
        joined = (
            session.exec(
                select(GameSeat.id).where(
                    GameSeat.game_id == game.id, GameSeat.player_id == player.id
                )
            ).first()
            is not None
        )
    else:
        joined = player.name in game.state["players"]
    if not joined:
        visible_game(session, game, player)
        raise Forbidden(
            "not_a_player", lazy_gettext("you are not playing in game %(game)s", game=game.id)
        )
    if game.status == GameStatus.OPEN:
        raise Conflict(
            "game_not_started", lazy_gettext("game %(game)s has not started yet", game=game.id)
        )
    if game.status == GameStatus.FINISHED:
        assert game.id is not None
        raise conflict(
            session, game.id, "game_finished", lazy_gettext("game %(game)s is over", game=game.id)
        )
    assert game.state is not None
    return game.state["players"].index(player.name)


def standing_json(standing: Any, left: Departure | None = None) -> dict[str, Any]:
    """One line of the final standings, with how the player left before the end (`left`)."""
    fields = ("place", "player", "score", "penalty", "final", "eliminated")
    return {**{name: getattr(standing, name) for name in fields}, "left": left}


def departures(session: Session, game: GameRecord, entry: LogEntry) -> dict[str, Departure]:
    """How each player out of the game left it, by name, read from the log (the last entry
    of each of them tells) with `entry`, the change being written, last."""
    assert game.state is not None
    out = [seat for seat, gone in enumerate(game.state["eliminated"]) if gone]
    out.append(entry.seat)
    rows = session.exec(
        select(TurnRecord.seat, TurnRecord.kind, TurnRecord.detail)
        .where(TurnRecord.game_id == game.id, col(TurnRecord.seat).in_(out))
        .order_by(col(TurnRecord.number))
    ).all()
    last = {
        seat: (kind, detail)
        for seat, kind, detail in [*rows, (entry.seat, entry.kind, entry.detail)]
    }
    names = game.state["players"]
    found = {names[seat]: departure_of(kind, detail) for seat, (kind, detail) in last.items()}
    return {name: how for name, how in found.items() if how is not None}


def create_game(
    session: Session,
    *,
    creator: Player,
    seats: int,
    options: Options,
    invite: list[str],
    clock: dict[str, Any] | None,
    rated: bool = False,
    private: bool = False,
    auto_start: bool = False,
    computers: int = 0,
    level: int | None = None,
    config: Settings,
) -> GameRecord:
    """An open game with its creator in the first place, with the time control `clock`
    (None: no clock), `rated` or not; invitees are mailed. A `private` game needs invitees:
    nobody else may see or join it; it is never rated (ratings are public). An
    `auto_start` game starts when its last seat is taken. `computers` seats go to computer
    players playing at `level` (`server.games.computers`): the game starts at once when
    they fill it, else as soon as the last person joins."""
    computer_seats(
        seats=seats, computers=computers, humans=1 + len(set(invite)), rated=rated, league=False
    )
    if private and not invite:
        raise Refused(
            "invalid_invite",
            lazy_gettext("a private game needs invited players: only they may join"),
        )
    if private and rated:
        raise Refused(
            "private_rated",
            lazy_gettext(
                "a private game cannot be rated: ratings and their history are public, and a "
                "rating's change would tell everyone the game's result"
            ),
        )
    refuse_unknown(invite, session.exec(select(Player.name).where(col(Player.name).in_(invite))))
    if creator.name in invite:
        raise Refused("invalid_invite", lazy_gettext("you are seated in your own game already"))
    if len(set(invite)) > seats - 1:
        raise Refused(
            "invalid_invite",
            lazy_ngettext(
                "%(invitees)s invitees for %(num)s free seat",
                "%(invitees)s invitees for %(num)s free seats",
                seats - 1,
                invitees=len(set(invite)),
            ),
        )
    assert creator.id is not None
    game = GameRecord(
        creator_id=creator.id,
        seats=seats,
        options=dataclasses.asdict(options),
        invited=sorted(set(invite)),
        clock=clock,
        rated=rated,
        private=private,
        auto_start=auto_start or computers > 0,
    )
    session.add(game)
    session.flush()
    assert game.id is not None
    session.add(GameSeat(game_id=game.id, player_id=creator.id, join_order=0))
    if computers:
        _seat_computers(session, game, computers, level, joined=1)
    notify.invitations(session, game=game, creator=creator.name, config=config)
    if 1 + computers == seats:
        session.flush()
        _deal(session, game, config=config)
    session.commit()
    return load_game(session, game.id) if 1 + computers == seats else game


def _seat_computers(
    session: Session, game: GameRecord, count: int, level: int | None, *, joined: int
) -> None:
    """Seat `count` computer players in `game` after the `joined` players, at `level`."""
    assert game.id is not None
    players = computer_accounts(session, count)
    for order, player in enumerate(players, start=joined):
        assert player.id is not None
        session.add(GameSeat(game_id=game.id, player_id=player.id, join_order=order))
    game.computers = [player.name for player in players]
    game.computer_level = level or DEFAULT_LEVEL
    session.add(game)


def join_game(session: Session, *, game_id: int, player: Player, config: Settings) -> GameRecord:
    """Take a free seat in an open game (retrying if another join wins the race). The
    creator hears of it (`player_joined`, or `table_full` for the last seat); an
    `auto_start` game whose last seat this is starts in the same transaction."""
    for _ in range(JOIN_RETRIES):
        game = visible_game(session, load_game(session, game_id), player)
        if game.status != GameStatus.OPEN:
            raise Conflict(
                "game_not_open", lazy_gettext("game %(game)s has already started", game=game_id)
            )
        if game.invited and player.name not in game.invited:
            raise Forbidden(
                "not_invited", lazy_gettext("game %(game)s is by invitation only", game=game_id)
            )
        names = joined_names(session, game)
        if player.name in names:
            raise Conflict(
                "already_joined", lazy_gettext("you are already in game %(game)s", game=game_id)
            )
        if len(names) >= game.seats:
            raise Conflict(
                "game_full",
                lazy_ngettext(
                    "all %(num)s seats of game %(game)s are taken",
                    "all %(num)s seats of game %(game)s are taken",
                    game.seats,
                    game=game_id,
                ),
            )
        if bump_version(session, game):
            assert player.id is not None
            session.add(GameSeat(game_id=game_id, player_id=player.id, join_order=len(names)))
            full = len(names) + 1 == game.seats
            try:
                session.flush()
                session.refresh(game)
                notify.joined(session, game=game, join_order=len(names), full=full, config=config)
                if full and game.auto_start:
                    _deal(session, game, config=config)
                session.commit()
            except IntegrityError:
                session.rollback()
                continue
            return load_game(session, game_id)
        session.rollback()
    raise conflict(
        session,
        game_id,
        "busy",
        lazy_gettext("too many players joined at once; try again"),
    )


def start_game(session: Session, *, game_id: int, player: Player, config: Settings) -> GameRecord:
    """Deal: seat order and bag from a new secret seed; its commitment is published."""
    game = visible_game(session, load_game(session, game_id), player)
    if game.creator_id != player.id:
        raise Forbidden(
            "not_creator",
            lazy_gettext("only the creator of game %(game)s can start it", game=game_id),
        )
    if game.status != GameStatus.OPEN:
        raise Conflict(
            "game_not_open", lazy_gettext("game %(game)s has already started", game=game_id)
        )
    if len(joined_names(session, game)) < 2:
        raise Conflict(
            "not_enough_players",
            lazy_gettext("a game needs at least 2 players; wait for one to join"),
        )
    _deal(session, game, config=config)
    session.commit()
    return load_game(session, game_id)


def fill_with_computers(
    session: Session, *, game_id: int, player: Player, level: int | None, config: Settings
) -> GameRecord:
    """The creator fills the open game's free seats with computer players at `level` and
    the game starts."""
    game = visible_game(session, load_game(session, game_id), player)
    if game.creator_id != player.id:
        raise Forbidden("not_creator", f"only the creator of game {game_id} can start it")
    if game.status != GameStatus.OPEN:
        raise Conflict("game_not_open", f"game {game_id} has already started")
    joined = joined_names(session, game)
    free = game.seats - len(joined)
    if free < 1:
        raise Conflict(
            "game_full",
            lazy_gettext("Every seat of game %(game)s is taken: start it.", game=game_id),
        )
    computer_seats(
        seats=game.seats,
        computers=free,
        humans=len(joined),
        rated=game.rated,
        league=game.season_id is not None,
    )
    _seat_computers(session, game, free, level, joined=len(joined))
    session.flush()
    _deal(session, game, config=config)
    session.commit()
    return load_game(session, game_id)


@dataclasses.dataclass(frozen=True)
class Dealt:
    """A game just dealt: the columns of the running game (`_started_columns`) and each
    player's seat by name."""

    columns: dict[str, Any]
    seats: dict[str, int]


def deal(
    session: Session,
    tables: Sequence[Mapping[str, int]],
    *,
    options: Mapping[str, Any],
    clock: dict[str, Any] | None,
    now: datetime,
) -> list[Dealt]:
    """Deal each of `tables` (its players' ids by name, in join order) `now`: the seat
    order and bag from a new secret seed each, whose commitment is published, and the first
    mover's clock as their vacations give it (read for all the tables in one query). The
    one way a game starts: a single game (`start_game`, an `auto_start` game's last join)
    and every game of a league season (`server.league.start`)."""
    engines = []
    for players in tables:
        seed = secrets.token_bytes(32)
        engines.append(
            (players, seed, Game.new(list(players), seed=seed, options=Options(**options)))
        )
    movers = [players[engine.player_to_move] for players, _, engine in engines]
    paused = pauses_of(session, movers, now) if clock is not None else {}
    return [
        Dealt(
            columns=_started_columns(engine, seed, clock, now, paused.get(mover, [])),
            seats={name: seat for seat, name in enumerate(engine.players)},
        )
        for (_, seed, engine), mover in zip(engines, movers, strict=True)
    ]


def _started_columns(
    engine: Game,
    seed: bytes,
    clock: dict[str, Any] | None,
    now: datetime,
    paused: list[Interval],
) -> dict[str, Any]:
    """The columns of a game dealt `now` as `engine` from `seed`: running, its snapshot,
    its secret seed and public commitment, and its mover's clock (`paused` as the mover's
    vacations give it) with no reminder sent yet."""
    return {
        "status": GameStatus.ACTIVE,
        "state": engine.to_position(),
        "seed_hex": seed.hex(),
        "commitment": engine.commitment,
        "started_at": now,
        "turn_started_at": None if clock is None else now,
        "reminded": [],
        **alarms(clock, now, paused, sent=()),
    }


def _deal(session: Session, game: GameRecord, *, config: Settings) -> None:
    """Start the open `game` in the caller's transaction (compare-and-set on its version):
    dealt (`deal`), its seats numbered, the emails queued."""
    assert game.id is not None
    game_id = game.id
    seated = session.exec(
        select(GameSeat, Player.name)
        .join(Player, col(Player.id) == GameSeat.player_id)
        .where(GameSeat.game_id == game_id)
        .order_by(col(GameSeat.join_order))
    ).all()
    (dealt,) = deal(
        session,
        [{name: row.player_id for row, name in seated}],
        options=game.options,
        clock=game.clock,
        now=utcnow(),
    )
    dealt.columns["computer_turn"] = computer_to_move(dealt.columns["state"], game.computers)
    if not bump_version(session, game, **dealt.columns):
        session.rollback()
        raise conflict(
            session,
            game_id,
            "stale_version",
            lazy_gettext("a player joined while starting; try again"),
        )
    for row, name in seated:
        row.seat = dealt.seats[name]
    notify.after_change(
        session,
        game_id=game_id,
        version=game.version + 1,
        state=dealt.columns["state"],
        finished=False,
        mover=None,
        turn=None,
        config=config,
    )


def _seated(player: Player) -> Any:
    """The condition: `player` has a seat in the game."""
    return col(GameRecord.id).in_(select(GameSeat.game_id).where(GameSeat.player_id == player.id))


def _invited(player: Player) -> Any:
    """The condition: `player` is on the game's invitation list (stored as JSON text, where
    a name appears in quotes; names are ASCII letters, digits and `_.-`)."""
    return cast(GameRecord.invited, String).contains(f'"{player.name}"', autoescape=True)


def _joinable(player: Player) -> Any:
    """The condition: `player` could take a seat in this open game (the lobby): not seated
    yet, invited (or the game is public and invites nobody), and a seat is free."""
    taken = select(func.count()).where(GameSeat.game_id == GameRecord.id).scalar_subquery()
    return (
        ~_seated(player)
        & or_(
            _invited(player),
            (cast(GameRecord.invited, String) == "[]") & (GameRecord.private == false()),
        )
        & (taken < GameRecord.seats)
    )


def list_games(
    session: Session, *, player: Player, status: str | None, mine: bool, limit: int
) -> list[tuple[GameRecord, list[str]]]:
    """Games newest first, optionally only one status or only the player's own. Private
    games appear only to their players and invitees; the open games of others (the lobby)
    only when the player could join them."""
    query = select(GameRecord)
    if status is not None:
        query = query.where(GameRecord.status == status)
    if mine:
        query = query.where(_seated(player))
    elif status == GameStatus.OPEN:
        query = query.where(_joinable(player))
    else:
        query = query.where(
            or_(col(GameRecord.private) == false(), _seated(player), _invited(player))
        )
    games = session.exec(query.order_by(col(GameRecord.id).desc()).limit(limit)).all()
    names = player_names(session, [game.id for game in games if game.id is not None])
    return [(game, names[game.id]) for game in games if game.id is not None]


def turn_log(session: Session, game: GameRecord) -> list[TurnRecord]:
    """The game's log in order."""
    return list(
        session.exec(
            select(TurnRecord).where(TurnRecord.game_id == game.id).order_by(col(TurnRecord.number))
        ).all()
    )
