"""The league's public JSON, for its API and pages: leagues, seasons with their divisions
and tables, the rating list and players' profiles, as the models of `server.schemas.leagues`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import and_, func, or_
from sqlmodel import Session, col, select

from cafe.i18n import lazy_gettext
from cafe.league import scheduling
from cafe.league.table import TableRow
from server.domain import NotFound
from server.league import log, ratings
from server.league.counts import Count, season_counts
from server.league.reasons import placement_text
from server.league.standings import division_tables
from server.league.store import league_games
from server.models import (
    GameRecord,
    GameSeat,
    GameStatus,
    League,
    Player,
    Rating,
    RatingPoint,
    Season,
    SeasonMember,
    SeasonStatus,
    TurnKind,
    TurnRecord,
)
from server.schemas.clock import DEFAULT_CLOCK
from server.schemas.leagues import (
    Division,
    LeaguePublic,
    LeagueSummary,
    PlayerLeague,
    PlayerProfile,
    RatingPointPublic,
    RatingRow,
    RecentGame,
    SeasonBrief,
    SeasonLog,
    SeasonLogEntryPublic,
    SeasonMove,
    SeasonPublic,
    StandingRow,
)

#: Finished games a profile lists.
RECENT_GAMES = 10


def _organiser(session: Session, league: League) -> str:
    return session.exec(select(Player.name).where(Player.id == league.organiser_id)).one()


def _count(counts: Mapping[int, Count], season: Season) -> Count:
    """The count of a season read from the table (so it has an id)."""
    assert season.id is not None
    return counts[season.id]


def league_public(session: Session, league: League) -> LeaguePublic:
    """A league with its settings and seasons."""
    seasons = session.exec(
        select(Season).where(Season.league_id == league.id).order_by(col(Season.number))
    ).all()
    counts = season_counts(session, [s.id for s in seasons if s.id is not None])
    return LeaguePublic(
        name=league.name,
        slug=league.slug,
        organiser=_organiser(session, league),
        open=league.open,
        game_size=league.game_size,
        clock=league.clock or DEFAULT_CLOCK,
        options=league.options,
        division_size=league.division_size,
        promote=league.promote,
        relegate=league.relegate,
        invited=league.invited,
        created_at=league.created_at,
        seasons=[
            SeasonBrief(
                number=s.number,
                status=s.status,
                players=_count(counts, s).players,
                left=_count(counts, s).left,
                started_at=s.started_at,
                finished_at=s.finished_at,
                paused_since=s.paused_at if s.status == SeasonStatus.RUNNING else None,
            )
            for s in seasons
        ],
    )


def league_list(session: Session) -> list[LeagueSummary]:
    """Every league, oldest first, with its newest season."""
    leagues = session.exec(
        select(League, Player.name)
        .join(Player, col(Player.id) == League.organiser_id)
        .order_by(col(League.id))
    ).all()
    newest = {
        s.league_id: s for s in session.exec(select(Season).order_by(col(Season.number))).all()
    }
    counts = season_counts(session, [s.id for s in newest.values() if s.id is not None])

    def summary(league: League, organiser: str) -> LeagueSummary:
        assert league.id is not None  # read from the table
        s = newest.get(league.id)
        count = Count() if s is None else _count(counts, s)
        return LeagueSummary(
            name=league.name,
            slug=league.slug,
            organiser=organiser,
            open=league.open,
            game_size=league.game_size,
            season=None if s is None else s.number,
            season_status=None if s is None else s.status,
            players=count.players,
            left=count.left,
        )

    return [summary(league, organiser) for league, organiser in leagues]


def standing_rows(
    rows: list[TableRow], timeouts: dict[str, int], division: int
) -> list[StandingRow]:
    """Division `division`'s ordered table as shown: places for the players still in, none
    for those who left (listed last); `timeouts` each player's time-outs in the season; why
    each plays in it in the season page's words (`reasons.placement_text`)."""
    return [
        StandingRow(
            place=None if row.withdrawn else place,
            player=row.player,
            points=float(row.points),
            score_sum=row.score_sum,
            wins=row.wins,
            played=row.played,
            withdrawn=row.withdrawn,
            left=row.left,
            placed=row.placed,
            placed_from=row.placed_from,
            placed_text=placement_text(row.placed, row.placed_from, division),
            timeouts=timeouts.get(row.player, 0),
        )
        for place, row in enumerate(rows, 1)
    ]


def season_timeouts(session: Session, season_id: int, division: int | None) -> dict[str, int]:
    """Each player's time-outs in the season's games (of one division): the log's entries
    of kind `timeout`, turns played for them and removals alike, in one query."""
    query = (
        select(Player.name, func.count())
        .select_from(TurnRecord)
        .join(GameRecord, col(GameRecord.id) == TurnRecord.game_id)
        .join(
            GameSeat,
            (col(GameSeat.game_id) == TurnRecord.game_id) & (col(GameSeat.seat) == TurnRecord.seat),
        )
        .join(Player, col(Player.id) == GameSeat.player_id)
        .where(GameRecord.season_id == season_id, TurnRecord.kind == TurnKind.TIMEOUT)
        .group_by(col(Player.name))
    )
    if division is not None:
        query = query.where(GameRecord.division == division)
    return dict(session.exec(query).all())


def season_public(
    session: Session, league: League, season: Season, division: int | None = None
) -> SeasonPublic:
    """A season: who registered, and once started its divisions, games and tables; the
    seed and the moves once it is finished. `division`: only that one, with only its
    members as `registered` and `withdrawn` — a division's page reads its own rows and
    games, not the whole season's (issue 12 §4: ≤ 2 × a game's state)."""
    assert season.id is not None
    tables = division_tables(session, season, division)
    if division is not None and not tables:
        raise NotFound(
            "division_not_found",
            lazy_gettext(
                "season %(season)s of %(league)s has no division %(division)s",
                season=season.number,
                league=league.slug,
                division=division,
            ),
        )
    if division is None:
        members = session.exec(
            select(Player.name, SeasonMember.withdrawn_at)
            .join(Player, col(Player.id) == SeasonMember.player_id)
            .where(SeasonMember.season_id == season.id)
            .order_by(col(Player.name))
        ).all()
        registered = [name for name, out in members if out is None]
        withdrawn = [name for name, out in members if out is not None]
    else:
        rows = sorted(tables[division], key=lambda row: row.player)
        registered = [row.player for row in rows if not row.withdrawn]
        withdrawn = [row.player for row in rows if row.withdrawn]
    games = league_games(session, season.id, division)
    timeouts = season_timeouts(session, season.id, division) if tables else {}
    finished = season.status == SeasonStatus.FINISHED
    return SeasonPublic(
        league=league.slug,
        number=season.number,
        status=season.status,
        registered=registered,
        withdrawn=withdrawn,
        seed_commitment=season.commitment,
        seed=season.seed_hex if finished else None,
        divisions=[
            Division(
                number=number,
                players=sorted(row.player for row in rows),
                rounds=scheduling.default_rounds(len(rows), league.game_size),
                games=games.get(number, []),
                standings=standing_rows(rows, timeouts, number),
            )
            for number, rows in tables.items()
        ],
        moves=None
        if not finished
        else [
            SeasonMove(
                **move, direction="up" if move["to_division"] < move["from_division"] else "down"
            )
            for move in season.moves or []
        ],
        created_at=season.created_at,
        started_at=season.started_at,
        finished_at=season.finished_at,
        paused_since=season.paused_at if season.status == SeasonStatus.RUNNING else None,
    )


def rating_row(name: str, row: Rating | None) -> RatingRow:
    """A player's rating as shown (the defaults without a rated game)."""
    skill = ratings.skill_of(row)
    return RatingRow(
        player=name,
        mu=skill.mu,
        sigma=skill.sigma,
        ordinal=skill.ordinal,
        games=0 if row is None else row.games,
    )


def _ordinal() -> Any:
    """The ordinal (mu − 3·sigma) as the database computes it, so that sorting and ranking
    agree to the last bit."""
    return col(Rating.mu) - 3 * col(Rating.sigma)


def rating_list(session: Session, *, limit: int, offset: int) -> tuple[list[RatingRow], int]:
    """A page of the rated players, best ordinal first (then by name), and how many there
    are."""
    rows = session.exec(
        select(Rating, Player.name)
        .join(Player, col(Player.id) == Rating.player_id)
        .where(col(Rating.games) > 0)
        .order_by(_ordinal().desc(), col(Player.name))
        .limit(limit)
        .offset(offset)
    ).all()
    total = session.exec(
        select(func.count()).select_from(Rating).where(col(Rating.games) > 0)
    ).one()
    return [rating_row(name, row) for row, name in rows], total


def rank_of(session: Session, player: Player) -> int | None:
    """The player's place in the rating list (1 = best), or None before a rated game."""
    mine = session.exec(
        select(_ordinal()).where(Rating.player_id == player.id, col(Rating.games) > 0)
    ).first()
    if mine is None:
        return None
    ahead = session.exec(
        select(func.count())
        .select_from(Rating)
        .join(Player, col(Player.id) == Rating.player_id)
        .where(
            col(Rating.games) > 0,
            or_(_ordinal() > mine, and_(_ordinal() == mine, col(Player.name) < player.name)),
        )
    ).one()
    return ahead + 1


def leagues_of(session: Session, player: Player) -> list[PlayerLeague]:
    """The leagues the player is a member of, each by its newest season they registered
    for (and did not withdraw from), by slug."""
    leagues = session.exec(
        select(League.slug, League.name, Season.number, SeasonMember.division)
        .join(Season, col(Season.league_id) == League.id)
        .join(SeasonMember, col(SeasonMember.season_id) == Season.id)
        .where(SeasonMember.player_id == player.id, col(SeasonMember.withdrawn_at).is_(None))
        .order_by(col(League.slug), col(Season.number).desc())
    ).all()
    newest: dict[str, PlayerLeague] = {}
    for slug, league_name, number, division in leagues:
        newest.setdefault(
            slug, PlayerLeague(slug=slug, name=league_name, season=number, division=division)
        )
    return list(newest.values())


def player_profile(session: Session, name: str) -> PlayerProfile:
    """What anyone may see of the player named `name` (ignoring case), or a 404."""
    player = session.exec(select(Player).where(func.lower(Player.name) == name.lower())).first()
    if player is None:
        raise NotFound(
            "player_not_found", lazy_gettext("there is no player named %(name)s", name=repr(name))
        )
    history = session.exec(
        select(RatingPoint).where(RatingPoint.player_id == player.id).order_by(col(RatingPoint.id))
    ).all()
    games = session.exec(
        select(GameRecord)
        .join(GameSeat, col(GameSeat.game_id) == GameRecord.id)
        .where(
            GameSeat.player_id == player.id,
            GameRecord.status == GameStatus.FINISHED,
            col(GameRecord.private).is_(False),
        )
        .order_by(col(GameRecord.finished_at).desc(), col(GameRecord.id).desc())
        .limit(RECENT_GAMES)
    ).all()
    return PlayerProfile(
        name=player.name,
        rating=rating_row(player.name, session.get(Rating, player.id)),
        rank=rank_of(session, player),
        history=[
            RatingPointPublic(
                game=point.game_id,
                finished_at=point.finished_at,
                mu=point.mu,
                sigma=point.sigma,
                ordinal=ratings.Skill(point.mu, point.sigma).ordinal,
            )
            for point in history
        ],
        leagues=leagues_of(session, player),
        recent_games=[_recent(game, player.name) for game in games],
    )


def _recent(game: GameRecord, name: str) -> RecentGame:
    line = next((s for s in game.standings or [] if s["player"] == name), None)
    assert game.id is not None and game.state is not None
    return RecentGame(
        id=game.id,
        players=list(game.state["players"]),
        place=None if line is None else line["place"],
        final=None if line is None else line["final"],
        finished_at=game.finished_at,
    )


def season_log(session: Session, league: League, season: Season) -> SeasonLog:
    """The season's log of its organiser's actions, oldest first."""
    return SeasonLog(
        league=league.slug,
        season=season.number,
        status=season.status,
        paused_since=season.paused_at if season.status == SeasonStatus.RUNNING else None,
        entries=[SeasonLogEntryPublic.model_validate(line) for line in log.lines(session, season)],
    )
