"""Starting a season (docs/league.md): place the registered players in divisions, draw the
schedule from the season's secret seed, and start every game of it at once with the
league's clock and options — in one transaction, so a season starts whole or not at all.
Each member hears of it in one email (`emails.season_started`), not one per game, and on
their channels that take `league` (`pings.season_started`).

The schedule is public once the season is over: division `d`'s games are
`cafe.league.schedule(players, game_size, seed=cafe.league.division_seed(seed, d))`
with the division's players as placed, so anyone can recompute it from the revealed seed
and check the seed against the commitment published at the start.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

from cafe.fairbag import commitment
from cafe.i18n import lazy_gettext, lazy_ngettext
from cafe.league import scheduling, table
from server.config import Settings
from server.domain import Conflict
from server.games.store import deal
from server.league import emails, pings, ratings
from server.league.standings import final_tables
from server.league.store import organiser_only, season_is
from server.models import (
    GameRecord,
    GameSeat,
    League,
    Placement,
    Player,
    Rating,
    Season,
    SeasonMember,
    SeasonStatus,
    utcnow,
)

#: How often members get the league digest while a season runs.
DIGEST_EVERY = timedelta(days=7)


def _by_rating(session: Session, players: list[Player]) -> list[Player]:
    """Players best rating first (ordinal; unrated players as new ones), then by name."""
    stored = {
        row.player_id: ratings.Skill(row.mu, row.sigma)
        for row in session.exec(
            select(Rating).where(col(Rating.player_id).in_([p.id for p in players]))
        )
    }

    def rank(player: Player) -> tuple[float, str]:
        assert player.id is not None  # read from the table
        return -stored.get(player.id, ratings.DEFAULT).ordinal, player.name

    return sorted(players, key=rank)


def _previous(session: Session, league: League, number: int) -> Season | None:
    return session.exec(
        select(Season).where(Season.league_id == league.id, Season.number == number - 1)
    ).first()


def place(
    session: Session, league: League, season: Season, players: list[Player]
) -> tuple[list[list[str]], dict[str, table.Placed]]:
    """The divisions of the season, top first, and why each player is where they are: by
    rating in the first season, else by the last season's final tables with its moves
    (`table.next_divisions`, `table.placements`)."""
    previous = _previous(session, league, season.number)
    if previous is None or previous.status != SeasonStatus.FINISHED:
        divisions = table.first_divisions(
            [p.name for p in _by_rating(session, players)], league.division_size
        )
        return divisions, {p.name: table.Placed(Placement.RATING) for p in players}
    tables = final_tables(session, previous)
    before = {row.player for rows in tables for row in rows if not row.withdrawn}
    names = {p.name for p in players}
    moves = [
        table.Move(m["player"], m["from_division"], m["to_division"]) for m in previous.moves or []
    ]
    newcomers = [p.name for p in _by_rating(session, players) if p.name not in before]
    divisions = table.next_divisions(
        tables,
        moves,
        leaving=before - names,
        newcomers=newcomers,
        division_size=league.division_size,
    )
    return divisions, table.placements(tables, moves, divisions, newcomers=set(newcomers))


def _claim(
    session: Session, league: League, season: Season, *, seed: bytes, now: datetime, games: int
) -> None:
    """Compare-and-set the season from registration to running with its `games`, before
    anything else is written: of two starts at once, one wins and the other is told so,
    with nothing done."""
    claimed = session.exec(
        update(Season)
        .where(col(Season.id) == season.id, col(Season.status) == SeasonStatus.REGISTRATION)
        .values(
            status=SeasonStatus.RUNNING,
            seed_hex=seed.hex(),
            commitment=commitment(seed),
            started_at=now,
            digest_due=now + DIGEST_EVERY,
            games_left=games,
        )
        .execution_options(synchronize_session=False)
    )
    if claimed.rowcount != 1:
        session.rollback()
        raise Conflict(
            "season_not_open",
            lazy_gettext(
                "season %(season)s of %(league)s has started",
                season=season.number,
                league=league.slug,
            ),
        )


def start_season(
    session: Session, *, league: League, season: Season, player: Player, config: Settings
) -> Season:
    """Start the season (the organiser): divisions, schedule, and every game dealt and
    running; each member gets one email with their division and games (no "game started"
    or "your turn" email per game: issue 20 §17)."""
    organiser_only(
        league,
        player,
        lazy_gettext("only the organiser of %(league)s can start a season", league=league.slug),
    )
    if season.status != SeasonStatus.REGISTRATION:
        raise Conflict("season_not_open", season_is(season, league))
    members = list(
        session.exec(
            select(SeasonMember, Player)
            .join(Player, col(Player.id) == SeasonMember.player_id)
            .where(SeasonMember.season_id == season.id, col(SeasonMember.withdrawn_at).is_(None))
        ).all()
    )
    if len(members) < league.game_size:
        raise Conflict(
            "not_enough_players",
            lazy_ngettext(
                "%(num)s registered for season %(season)s of %(league)s; "
                "a season needs at least %(size)s (the game size)",
                "%(num)s registered for season %(season)s of %(league)s; "
                "a season needs at least %(size)s (the game size)",
                len(members),
                season=season.number,
                league=league.slug,
                size=league.game_size,
            ),
        )
    players = {p.name: p for _, p in members}
    ids = {p.name: member.player_id for member, p in members}
    divisions, placed = place(session, league, season, list(players.values()))
    seed = secrets.token_bytes(32)
    now = utcnow()
    scheduled = [
        (number, game)
        for number, names in enumerate(divisions, 1)
        for game in scheduling.schedule(
            names, league.game_size, seed=scheduling.division_seed(seed, number)
        )
    ]
    _claim(session, league, season, seed=seed, now=now, games=len(scheduled))
    dealt = deal(
        session,
        [{name: ids[name] for name in names} for _, names in scheduled],
        options=league.options,
        clock=league.clock,
        now=now,
    )
    records = [
        (
            GameRecord(
                creator_id=league.organiser_id,
                seats=len(names),
                options=dict(league.options),
                clock=league.clock,
                rated=True,
                season_id=season.id,
                division=number,
                version=1,
                **game.columns,
            ),
            game,
            names,
        )
        for (number, names), game in zip(scheduled, dealt, strict=True)
    ]
    session.add_all(record for record, _, _ in records)
    session.flush()
    seats = []
    for record, game, names in records:
        assert record.id is not None
        seats += [
            GameSeat(
                game_id=record.id,
                player_id=ids[name],
                join_order=order,
                seat=game.seats[name],
            )
            for order, name in enumerate(names)
        ]
    session.add_all(seats)
    division_of = {name: number for number, names in enumerate(divisions, 1) for name in names}
    for member, player_row in members:
        member.division = division_of[player_row.name]
        member.placed = Placement(placed[player_row.name].reason)
        member.placed_from = placed[player_row.name].from_division
    session.add_all(member for member, _ in members)
    session.flush()
    session.refresh(season)
    emails.season_started(session, league=league, season=season, config=config)
    pings.season_started(session, league=league, season=season)
    session.commit()
    return season
