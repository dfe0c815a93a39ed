"""League benchmark (issue 12 §4): starting a season, reading a division, rating a game.

(a) **Start.** A league of four-player games (division_size 8) with 1,000 registered
players: `server.league.start.start_season` places them in 125 divisions of 8, draws the
schedule and starts its games in one transaction. Each player plays R = ⌈7 / 3⌉ = 3 games,
so a division has 8 · 3 / 4 = 6 games and the season 750 (the issue's "375" counts a
game once per pair of players; the benchmark starts what the schedule says). The baseline,
in the same run and on the same database: four-player games created and started one by
one through the store as players do it (`server.games.store` create_game, join_game × 3,
start_game: five transactions each), with the league's clock — `--sample` of them (75 by
default, `--sample 0` for all), the time scaled to the season's count, since on SQLite
each of those transactions waits for the disk and all 750 take minutes per round. Rounds
alternate the two; every round uses a fresh league (and fresh games), so both see the same
growing store. Target: start ≤ 1.0 × its games one by one — starting a season must cost
no more than its games.

(b) **Standings.** `GET /api/leagues/<slug>/seasons/<n>/divisions/<d>` (one division's
table and games) against `GET /api/games/<id>` (one running game's state, as one of its
players), both through the Flask test client on the store left by (a), alternating, one
request at a time. Target: the division ≤ 2 × the game.

(c) **Ratings.** `server.league.ratings.apply_game` on a finished four-player game's
standings (its players' ratings locked, rated with OpenSkill, written, four history points
added); the transaction around it belongs to the game's finish and is not timed: it has
run a statement before the clock starts (as the finish's compare-and-set has), and commits
after it stops. Target: median
≤ 2 ms of wall time; this process's CPU time is printed beside it, as a check when the
machine is busy.

The season start includes its emails (`server.league.emails.season_started`, one rendered
message per member), as it does in service.

    .venv/bin/python benchmarks/league.py [--players 1000] [--rounds 5] [--sample 75]
        [--reads 200] [--ratings 300] [--postgres postgresql+psycopg://postgres@127.0.0.1:5432/test]

Prints medians, the ratios and the targets; exits 0 whether or not a target is met.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT), str(ROOT / "tests")]  # `benchmarks/server.py` would shadow `server`

from flask import Flask  # noqa: E402
from postgres_support import scratch_postgres  # noqa: E402
from sqlalchemy import Engine, insert, text  # noqa: E402
from sqlmodel import Session, select  # noqa: E402

from cafe import Options  # noqa: E402
from server import migrate  # noqa: E402
from server.app import create_app  # noqa: E402
from server.auth import issue_token  # noqa: E402
from server.config import settings_of  # noqa: E402
from server.db import get_engine  # noqa: E402
from server.games import store as games  # noqa: E402
from server.league import ratings  # noqa: E402
from server.league.start import start_season  # noqa: E402
from server.models import League, Player, Season, SeasonMember  # noqa: E402

DIVISION_SIZE, GAME_SIZE = 8, 4
CLOCK = {"days_per_turn": 3, "timeout": "autoplay", "max_timeouts": 2, "vacation": True}
OPTIONS = {"birthday": None, "coffee_klatsch": False}
TARGETS = {"start": 1.0, "standings": 2.0, "rating_ms": 2.0}


def add_players(engine: Engine, count: int) -> list[Player]:
    """`count` players p0000… and the organiser `org` (first), written in one batch."""
    with Session(engine, expire_on_commit=False) as session:
        players = [Player(name="org", email="org@bench.test")] + [
            Player(name=f"p{n:04d}", email=f"p{n:04d}@bench.test") for n in range(count)
        ]
        session.add_all(players)
        session.commit()
    return players


def registered_season(engine: Engine, organiser: Player, players: list[Player], slug: str) -> int:
    """A new league with season 1 open and every player registered (bulk); the league id."""
    with Session(engine) as session:
        league = League(
            slug=slug,
            name=f"Bench {slug}",
            organiser_id=organiser.id,  # type: ignore[arg-type]
            game_size=GAME_SIZE,
            division_size=DIVISION_SIZE,
            clock=CLOCK,
            options=OPTIONS,
        )
        session.add(league)
        session.flush()
        season = Season(league_id=league.id, number=1)  # type: ignore[arg-type]
        session.add(season)
        session.flush()
        session.execute(
            insert(SeasonMember),
            [{"season_id": season.id, "player_id": p.id} for p in players],
        )
        session.commit()
        assert league.id is not None
        return league.id


def time_start(app: Flask, league_id: int, organiser: Player) -> float:
    """Seconds `start_season` takes on the league's registered season 1."""
    with app.app_context(), Session(get_engine(app)) as session:
        league = session.get(League, league_id)
        assert league is not None
        season = session.exec(select(Season).where(Season.league_id == league_id)).one()
        organiser = session.merge(organiser)
        started = time.perf_counter()
        start_season(
            session, league=league, season=season, player=organiser, config=settings_of(app)
        )
        elapsed = time.perf_counter() - started
        assert season.games_left == season_games(len(players_of(session, season)))
    return elapsed


def players_of(session: Session, season: Season) -> list[int]:
    """The season's members' ids."""
    return list(
        session.exec(select(SeasonMember.player_id).where(SeasonMember.season_id == season.id))
    )


def time_games_one_by_one(app: Flask, players: list[Player], count: int) -> float:
    """Seconds to create and start `count` four-player games through the store, each game
    by four consecutive players (the first creates it and starts it)."""
    with app.app_context(), Session(get_engine(app)) as session:
        seated = [session.merge(p) for p in players]
        started = time.perf_counter()
        for number in range(count):
            table = [seated[(number * GAME_SIZE + k) % len(seated)] for k in range(GAME_SIZE)]
            game = games_create(session, table[0], app)
            assert game.id is not None
            for player in table[1:]:
                games.join_game(session, game_id=game.id, player=player, config=settings_of(app))
            games.start_game(session, game_id=game.id, player=table[0], config=settings_of(app))
        return time.perf_counter() - started


def games_create(session: Session, creator: Player, app: Flask) -> Any:
    """A new open four-player game with the league's clock, as `POST /api/games` makes it."""
    return games.create_game(
        session,
        creator=creator,
        seats=GAME_SIZE,
        options=Options(),
        invite=[],
        clock=CLOCK,
        config=settings_of(app),
    )


def season_games(players: int) -> int:
    """The games of a season of `players` in full divisions of eight: six each."""
    return players // DIVISION_SIZE * (DIVISION_SIZE * 3 // GAME_SIZE)


def median_ms(call: Callable[[], Any], times: int) -> float:
    """The median of `times` timed calls, in milliseconds."""
    taken = []
    for _ in range(times):
        started = time.perf_counter()
        call()
        taken.append(time.perf_counter() - started)
    return statistics.median(taken) * 1000


def measure_start(
    app: Flask, players: list[Player], rounds: int, sample: int
) -> tuple[float, float, str]:
    """(a): the medians of start_season and of its games one by one (`sample` of them,
    scaled to the season's count; 0: all); a league's slug."""
    engine = get_engine(app)
    organiser, members = players[0], players[1:]
    season_times, game_times = [], []
    slug = ""
    for number in range(rounds):
        slug = f"bench{number}"
        league_id = registered_season(engine, organiser, members, slug)
        count = season_games(len(members))
        made = min(sample or count, count)
        if number % 2:
            game_times.append(time_games_one_by_one(app, members, made) * count / made)
            season_times.append(time_start(app, league_id, organiser))
        else:
            season_times.append(time_start(app, league_id, organiser))
            game_times.append(time_games_one_by_one(app, members, made) * count / made)
    return statistics.median(season_times), statistics.median(game_times), slug


def measure_reads(app: Flask, slug: str, reads: int) -> tuple[float, float]:
    """(b): the median GET of division 1 of the league's season 1, and of one of its games."""
    client = app.test_client()
    with app.app_context():
        division = client.get(f"/api/leagues/{slug}/seasons/1/divisions/1")
        assert division.status_code == 200, division.json
        game_id = division.json["divisions"][0]["games"][0]  # type: ignore[index]
        name = division.json["divisions"][0]["players"][0]  # type: ignore[index]
        with Session(get_engine(app)) as session:
            player = session.exec(select(Player).where(Player.name == name)).one()
            _, token = issue_token(session, player=player, label="bench")
            session.commit()
    headers = {"Authorization": f"Bearer {token}"}

    def get_division() -> None:
        assert client.get(f"/api/leagues/{slug}/seasons/1/divisions/1").status_code == 200

    def get_game() -> None:
        assert client.get(f"/api/games/{game_id}", headers=headers).status_code == 200

    division_ms, game_ms = [], []
    for _ in range(5):  # alternate in blocks, so a busy moment hits both alike
        division_ms.append(median_ms(get_division, reads // 5))
        game_ms.append(median_ms(get_game, reads // 5))
    return statistics.median(division_ms), statistics.median(game_ms)


def measure_ratings(app: Flask, players: list[Player], count: int) -> tuple[float, float]:
    """(c): the median apply_game on a four-player game's standings, in milliseconds of
    wall time and of this process's CPU time."""
    engine = get_engine(app)
    taken, cpu = [], []
    with app.app_context(), Session(engine) as session:
        for number in range(count):
            table = [players[1 + (number * GAME_SIZE + k) % (len(players) - 1)] for k in range(4)]
            standings = [
                {"place": place, "player": p.name, "score": 40 - 5 * place}
                for place, p in enumerate(table, 1)
            ]
            # the finish's transaction is under way when the ratings are updated (its
            # compare-and-set ran first): the connection's checkout, its ping and the BEGIN
            # the driver sends before a transaction's first statement are not theirs
            session.execute(text("SELECT 1"))
            started, processed = time.perf_counter(), time.process_time()
            ratings.apply_game(
                session, game_id=1 + number, standings=standings, finished_at=ratings.utcnow()
            )
            taken.append(time.perf_counter() - started)
            cpu.append(time.process_time() - processed)
            session.commit()
    return statistics.median(taken) * 1000, statistics.median(cpu) * 1000


def measure(url: str, args: argparse.Namespace) -> None:
    migrate.upgrade(url)
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "bench" * 8, "LOG_LEVEL": "ERROR"})
    players = add_players(get_engine(app), args.players)
    if url.startswith("postgresql"):
        with get_engine(app).begin() as connection:
            connection.execute(text("ANALYZE"))
    season, one_by_one, slug = measure_start(app, players, args.rounds, args.sample)
    count = season_games(args.players)
    print(f"start_season, {args.players} players, {count} games: median {season:7.3f} s")
    sampled = f"{min(args.sample or count, count)} timed, scaled"
    print(f"{count} games created and started one by one ({sampled}): median {one_by_one:7.3f} s")
    verdict = "ok" if season / one_by_one <= TARGETS["start"] else "over target"
    print(f"  ratio {season / one_by_one:.2f} (target ≤ {TARGETS['start']}): {verdict}")
    division, game = measure_reads(app, slug, args.reads)
    print(f"GET one division's standings: median {division:6.2f} ms")
    print(f"GET one game's state:         median {game:6.2f} ms")
    verdict = "ok" if division / game <= TARGETS["standings"] else "over target"
    print(f"  ratio {division / game:.2f} (target ≤ {TARGETS['standings']}): {verdict}")
    rating, cpu = measure_ratings(app, players, min(args.ratings, count))
    verdict = "ok" if rating <= TARGETS["rating_ms"] else "over target"
    print(
        f"ratings.apply_game, 4 players: median {rating:.2f} ms (CPU {cpu:.2f} ms) "
        f"(target ≤ {TARGETS['rating_ms']} ms): {verdict}"
    )
    get_engine(app).dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sample", type=int, default=75, help="baseline games timed; 0: all")
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--ratings", type=int, default=300)
    parser.add_argument("--postgres", help="a PostgreSQL server's URL: use it, not SQLite")
    args = parser.parse_args()
    if args.postgres:
        with scratch_postgres(args.postgres, "cafe_bench") as url:
            print("PostgreSQL")
            measure(url, args)
        return
    with tempfile.TemporaryDirectory() as folder:
        print("SQLite")
        measure(f"sqlite:///{folder}/league.db", args)


if __name__ == "__main__":
    main()
