"""Ratings (docs/league.md): OpenSkill's Plackett–Luce model with its default parameters.

Every finished league game and every casual game created as `rated` updates its players'
ratings in the transaction that finishes it; the game's standings give the ranks (shared
places share a rank, removed players rank where the standings place them). Ratings are a
pure function of the rated games taken in the order their finishes were applied, which the
ids of the rating history record: `rebuild` replays them from the model's defaults and must
reproduce the stored values exactly (`cafe-server ratings rebuild`, `league check`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import (
    bindparam,
    delete,
    func,
    insert,
    literal,
    update,
)
from sqlalchemy.dialects import sqlite
from sqlmodel import Session, col, select

from server.db import insert_for
from server.models import (
    GameRecord,
    GameStatus,
    Player,
    Rating,
    RatingPoint,
    select_columns,
    stored_id,
    table_of,
    utcnow,
)

MODEL = PlackettLuce()


@dataclass(frozen=True, slots=True)
class Skill:
    """A rating: the model's `mu` and `sigma`."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The number shown and sorted on: mu − 3·sigma."""
        return self.mu - 3 * self.sigma


#: A new player's rating: the model's defaults.
DEFAULT = Skill(MODEL.rating().mu, MODEL.rating().sigma)


def rate(skills: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
    """The players' ratings after a game in which they took `places` (1 = first; equal
    places are ties), in the same order."""
    teams = [[MODEL.create_rating([skill.mu, skill.sigma])] for skill in skills]
    rated = MODEL.rate(teams, ranks=[float(place) for place in places])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


def places_of(standings: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Each player's place in a finished game's stored standings."""
    return {line["player"]: int(line["place"]) for line in standings}


_RATINGS = table_of(Rating)
_PLAYERS = table_of(Player)
_NAMED = _PLAYERS.c.name.in_(bindparam("names", expanding=True))
#: The statements of `apply_game` on SQLite, built once: it runs in every rated game's finish.
_MISSING = (
    sqlite.insert(_RATINGS)
    .from_select(
        ["player_id", "mu", "sigma", "games", "updated_at"],
        select_columns(
            _PLAYERS.c.id,
            bindparam("mu", DEFAULT.mu, type_=_RATINGS.c.mu.type),
            bindparam("sigma", DEFAULT.sigma, type_=_RATINGS.c.sigma.type),
            literal(0),
            bindparam("now", type_=_RATINGS.c.updated_at.type),
        ).where(_NAMED),
    )
    .on_conflict_do_nothing()
)
_LOCK = (
    select(_PLAYERS.c.name, _RATINGS.c.player_id, _RATINGS.c.mu, _RATINGS.c.sigma)
    .join(_PLAYERS, _PLAYERS.c.id == _RATINGS.c.player_id)
    .where(_NAMED)
    .order_by(_RATINGS.c.player_id)
    .with_for_update(of=_RATINGS)
)
_UPDATE = (
    update(_RATINGS)
    .where(_RATINGS.c.player_id == bindparam("pid"))
    .values(
        mu=bindparam("new_mu"),
        sigma=bindparam("new_sigma"),
        games=_RATINGS.c.games + 1,
        updated_at=bindparam("now"),
    )
)
_HISTORY = insert(table_of(RatingPoint))


#: PostgreSQL, as the driver takes it (no statement to compile or parameters to convert on
#: this path): the players' rating rows, created with the defaults where missing, locked
#: (in player order) and read, in one statement.
_PG_LOCK = (
    "WITH named AS (SELECT id, name FROM players WHERE name = ANY(%(names)s::varchar[])), "
    "locked AS (INSERT INTO ratings (player_id, mu, sigma, games, updated_at) "
    "SELECT id, %(mu)s, %(sigma)s, 0, %(now)s FROM named ORDER BY id "
    "ON CONFLICT (player_id) DO UPDATE SET mu = ratings.mu "
    "RETURNING player_id, mu, sigma) "
    "SELECT named.name, locked.player_id, locked.mu, locked.sigma "
    "FROM locked JOIN named ON named.id = locked.player_id ORDER BY locked.player_id"
)
#: PostgreSQL, as the driver takes it: the new ratings written and a history point added for
#: each, from three arrays, in one statement.
_PG_WRITE = (
    "WITH new AS (SELECT * FROM unnest(%(pids)s::integer[], %(mus)s::float8[], "
    "%(sigmas)s::float8[]) AS t(pid, mu, sigma)), "
    "updated AS (UPDATE ratings SET mu = new.mu, sigma = new.sigma, "
    "games = ratings.games + 1, updated_at = %(now)s FROM new WHERE ratings.player_id = new.pid) "
    "INSERT INTO rating_history (player_id, game_id, finished_at, mu, sigma) "
    "SELECT pid, %(game_id)s, %(finished_at)s, mu, sigma FROM new ORDER BY pid"
)


def apply_game(
    session: Session, *, game_id: int, standings: Sequence[Mapping[str, Any]], finished_at: datetime
) -> None:
    """In the transaction that finishes the game: rate its players and add a point to each
    one's history. Their rating rows are locked (in player order, so that games finishing
    at once wait for each other rather than deadlock) for the read-modify-write.

    This runs in every rated game's finish (issue 12 §4: ≤ 2 ms), so it runs prepared
    statements on the session's connection, whatever the game's size: on PostgreSQL two,
    as driver SQL (the rows created where missing, locked and read; then updated with the
    history added), on SQLite, where a statement costs no round trip, four Core ones."""
    places = places_of(standings)
    session.flush()  # what the finish wrote through the ORM goes first: the lock order
    connection = session.connection()
    now = utcnow()
    postgres = connection.dialect.name == "postgresql"
    found = {"names": list(places), "mu": DEFAULT.mu, "sigma": DEFAULT.sigma, "now": now}
    if postgres:
        rows = connection.exec_driver_sql(_PG_LOCK, found).all()
    else:
        connection.execute(_MISSING, found)
        rows = connection.execute(_LOCK, {"names": found["names"]}).all()
    after = rate([Skill(row.mu, row.sigma) for row in rows], [places[row.name] for row in rows])
    rated = [(row.player_id, skill) for row, skill in zip(rows, after, strict=True)]
    if postgres:
        connection.exec_driver_sql(
            _PG_WRITE,
            {
                "pids": [pid for pid, _ in rated],
                "mus": [skill.mu for _, skill in rated],
                "sigmas": [skill.sigma for _, skill in rated],
                "now": now,
                "game_id": game_id,
                "finished_at": finished_at,
            },
        )
        return
    connection.execute(
        _UPDATE,
        [
            {"pid": pid, "new_mu": skill.mu, "new_sigma": skill.sigma, "now": now}
            for pid, skill in rated
        ],
    )
    connection.execute(
        _HISTORY,
        [
            {
                "player_id": pid,
                "game_id": game_id,
                "finished_at": finished_at,
                "mu": skill.mu,
                "sigma": skill.sigma,
            }
            for pid, skill in rated
        ],
    )


@dataclass(frozen=True, slots=True)
class Replayed:
    """Every rating recomputed from the rated games: by player id, the final skill and
    games, and the history points in order as (player id, game id, skill)."""

    skills: dict[int, tuple[Skill, int]]
    history: list[tuple[int, int, Skill]]


def replay(session: Session) -> Replayed:
    """Recompute every rating from the finished rated games, in the order their finishes
    were applied (the rating history's ids; a game without history after them, by its
    finish)."""
    applied = (
        select(RatingPoint.game_id, func.min(RatingPoint.id).label("first"))
        .group_by(col(RatingPoint.game_id))
        .subquery()
    )
    games = session.exec(
        select(GameRecord.id, GameRecord.standings)
        .outerjoin(applied, applied.c.game_id == GameRecord.id)
        .where(
            GameRecord.status == GameStatus.FINISHED,
            (col(GameRecord.rated)) | (col(GameRecord.season_id).is_not(None)),
        )
        .order_by(
            applied.c.first.is_(None),
            applied.c.first,
            col(GameRecord.finished_at),
            col(GameRecord.id),
        )
    ).all()
    ids = dict(session.exec(select(Player.name, stored_id(Player.id))).all())
    skills: dict[int, tuple[Skill, int]] = {}
    history: list[tuple[int, int, Skill]] = []
    for game_id, standings in games:
        assert game_id is not None and standings is not None
        places = places_of(standings)
        players = sorted((ids[name] for name in places), key=int)
        by_id = {ids[name]: place for name, place in places.items()}
        before = [skills.get(pid, (DEFAULT, 0))[0] for pid in players]
        for pid, skill in zip(players, rate(before, [by_id[pid] for pid in players]), strict=True):
            skills[pid] = (skill, skills.get(pid, (DEFAULT, 0))[1] + 1)
            history.append((pid, game_id, skill))
    return Replayed(skills, history)


def differences(session: Session, replayed: Replayed) -> list[str]:
    """Where the stored ratings and history differ from `replayed`, one line each."""
    names = dict(session.exec(select(Player.id, Player.name)).all())
    stored = {row.player_id: row for row in session.exec(select(Rating)).all()}
    found = []
    for pid in sorted(stored.keys() | replayed.skills.keys()):
        row = stored.get(pid)
        have = None if row is None or row.games == 0 else (Skill(row.mu, row.sigma), row.games)
        want = replayed.skills.get(pid)
        if have != want:
            found.append(f"rating of {names.get(pid, pid)}: stored {have}, recomputed {want}")
    points = {
        (p.player_id, p.game_id): Skill(p.mu, p.sigma)
        for p in session.exec(select(RatingPoint)).all()
    }
    wanted = {(pid, game_id): skill for pid, game_id, skill in replayed.history}
    for key in sorted(points.keys() ^ wanted.keys()):
        found.append(f"history of {names.get(key[0], key[0])} in game {key[1]}: missing or extra")
    for key in sorted(points.keys() & wanted.keys()):
        if points[key] != wanted[key]:
            found.append(
                f"history of {names.get(key[0], key[0])} after game {key[1]}: "
                f"stored {points[key]}, recomputed {wanted[key]}"
            )
    return found


def store(session: Session, replayed: Replayed) -> None:
    """Write `replayed` as the stored ratings (the history points keep their ids, so the
    order of application stays recorded); a player it has no rated game of is unrated."""
    now = utcnow()
    session.execute(delete(Rating).where(col(Rating.player_id).not_in(list(replayed.skills))))
    for pid, (skill, games) in replayed.skills.items():
        session.execute(
            insert_for(session)(table_of(Rating))
            .values(player_id=pid, mu=skill.mu, sigma=skill.sigma, games=games, updated_at=now)
            .on_conflict_do_update(
                index_elements=["player_id"],
                set_={"mu": skill.mu, "sigma": skill.sigma, "games": games, "updated_at": now},
            )
        )
    for pid, game_id, skill in replayed.history:
        session.execute(
            update(RatingPoint)
            .where(col(RatingPoint.player_id) == pid, col(RatingPoint.game_id) == game_id)
            .values(mu=skill.mu, sigma=skill.sigma)
        )
    session.commit()


def skill_of(row: Rating | None) -> Skill:
    """A stored rating, or the defaults for a player without one."""
    return DEFAULT if row is None else Skill(row.mu, row.sigma)
