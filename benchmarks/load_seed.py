"""The players and running games of `benchmarks/load.py`, written straight into the database.

Registering 4,000 players and starting 10,000 games through the API would take longer than
the run; this writes the same rows with bulk inserts instead, in one transaction per
thousand rows: players (each with one API token, whose secret the roster keeps), and
running two- to four-player games dealt by the service's own `server.games.store.deal` (the
seed, the commitment, the snapshot), each with a one-day clock. The turns' starts are spread
over the day before the development clock's time, so that deadlines and reminders fall due
a few at a time as the run moves the clock on, never all at once (a reminder whose time
came before the run is marked sent, as running workers would have sent it). The clock allows no
vacation: a deadline passed is a time-out (a turn played for the player), not a day taken
from the bank, which is what the run counts. Then `ANALYZE`: a bulk load leaves the planner
no statistics (a server with autovacuum off never gathers them), and plans made without
them read the whole players table for a game's page or `games check`.

The roster (`Roster`) is what Locust and the report read: each player's id, name, address
and token, and each game's players by seat.
"""

from __future__ import annotations

import dataclasses
import json
import random
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, insert, text
from sqlmodel import Session

from cafe import Options
from server.auth import TOKEN_PREFIX, hash_token
from server.clock import deadlines
from server.clock.store import alarms
from server.games.store import deal
from server.models import ApiToken, GameRecord, GameSeat, GameStatus, Player, table_of
from server.names import skeleton

#: The time control of every seeded game (see the module's docstring).
CLOCK: dict[str, Any] = {
    "days_per_turn": 1,
    "timeout": "autoplay",
    "max_timeouts": 2,
    "vacation": False,
}
#: How many players sit at a seeded table, and how often (most correspondence games are
#: two-player ones).
TABLE_SIZES = (2, 2, 2, 3, 4)
#: Rows per insert.
CHUNK = 1000


@dataclass(frozen=True)
class Roster:
    """Who was seeded: players (`id`, `name`, `email`, `token`) and games (`id`, `seats`:
    the players' indexes in `players`, by seat)."""

    players: list[dict[str, Any]]
    games: list[dict[str, Any]]

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(dataclasses.asdict(self)))

    @classmethod
    def load(cls, path: Path) -> Roster:
        return cls(**json.loads(path.read_text()))


def seed(engine: Engine, *, players: int, games: int, now: datetime, rng: random.Random) -> Roster:
    """Write `players` players and `games` running games as of `now` (the development
    clock's time); the roster."""
    roster_players = _players(engine, players)
    roster = Roster(roster_players, _games(engine, roster_players, games, now, rng))
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("ANALYZE"))  # plans for the tables as they are now
    return roster


def _players(engine: Engine, count: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for start in range(0, count, CHUNK):
        rows = [
            {"name": f"load{n}", "email": f"load{n}@load.test", "token": _token()}
            for n in range(start, min(start + CHUNK, count))
        ]
        with Session(engine) as session:
            ids = session.execute(
                insert(table_of(Player)).returning(table_of(Player).c.id),
                [{"name": r["name"], "email": r["email"], "name_skeleton": skeleton(r["name"])}
                 for r in rows],
            ).scalars().all()  # fmt: skip
            session.execute(
                insert(table_of(ApiToken)),
                [
                    {"player_id": pid, "token_hash": hash_token(r["token"]), "label": "load"}
                    for pid, r in zip(ids, rows, strict=True)
                ],
            )
            session.commit()
        found += [{"id": pid, **r} for pid, r in zip(ids, rows, strict=True)]
    return found


def _reminded(begun: datetime, now: datetime) -> list[str]:
    """The reminders of a turn begun at `begun` that were due by `now`: sent already, as
    running workers would have sent them (else the run would begin with a burst of them)."""
    return [r.kind for r in deadlines.reminders(begun, CLOCK["days_per_turn"]) if r.due <= now]


def _token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def _games(
    engine: Engine, players: list[dict[str, Any]], count: int, now: datetime, rng: random.Random
) -> list[dict[str, Any]]:
    options = dataclasses.asdict(Options())
    found: list[dict[str, Any]] = []
    for start in range(0, count, CHUNK):
        tables = [
            rng.sample(range(len(players)), rng.choice(TABLE_SIZES))
            for _ in range(min(CHUNK, count - start))
        ]
        with Session(engine) as session:
            dealt = deal(
                session,
                [{players[i]["name"]: players[i]["id"] for i in table} for table in tables],
                options=options,
                clock=CLOCK,
                now=now,
            )
            rows = []
            for table, game in zip(tables, dealt, strict=True):
                begun = now - timedelta(seconds=rng.uniform(0, 86_400))
                sent = _reminded(begun, now)
                columns = {
                    **game.columns,
                    "started_at": begun,
                    "turn_started_at": begun,
                    "reminded": sent,
                    **alarms(CLOCK, begun, [], sent=sent),
                }
                rows.append(
                    {
                        "creator_id": players[table[0]]["id"],
                        "seats": len(table),
                        "options": options,
                        "invited": [],
                        "clock": CLOCK,
                        "created_at": begun,
                        "version": 1,
                        "player_clocks": {},
                        "clock_holds": [],
                        "computers": [],
                        "computer_turn": False,
                        **columns,
                    }
                )
            assert all(row["status"] == GameStatus.ACTIVE for row in rows)
            ids = session.execute(
                insert(table_of(GameRecord)).returning(table_of(GameRecord).c.id), rows
            ).scalars().all()  # fmt: skip
            seats = []
            for game_id, table, game in zip(ids, tables, dealt, strict=True):
                by_seat = sorted(table, key=lambda i: game.seats[players[i]["name"]])
                seats += [
                    {
                        "game_id": game_id,
                        "player_id": players[i]["id"],
                        "join_order": table.index(i),
                        "seat": game.seats[players[i]["name"]],
                    }
                    for i in table
                ]
                found.append({"id": game_id, "seats": by_seat})
            session.execute(insert(table_of(GameSeat)), seats)
            session.commit()
    return found
