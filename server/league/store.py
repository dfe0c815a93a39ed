"""Leagues and their seasons' registration: create a league, open a season, register,
withdraw, invite (docs/league.md).

Starting a season is `server.league.start`, a finished game's effect on the standings
`server.league.results`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from cafe.i18n import N_, Message, Text, lazy_gettext
from server.config import Settings
from server.domain import Conflict, Forbidden, NotFound, Refused
from server.games.store import refuse_unknown
from server.league import emails
from server.models import (
    GameRecord,
    GameSeat,
    GameStatus,
    League,
    MemberLeft,
    Player,
    Season,
    SeasonMember,
    SeasonStatus,
)


def load_league(session: Session, slug: str) -> League:
    """The league with this slug, or a 404."""
    league = session.exec(select(League).where(League.slug == slug)).first()
    if league is None:
        raise NotFound(
            "league_not_found",
            lazy_gettext("there is no league %(league)s; see GET /api/leagues", league=repr(slug)),
        )
    return league


def _no_season(league: League, number: int) -> NotFound:
    return NotFound(
        "season_not_found",
        lazy_gettext(
            "league %(league)s has no season %(season)s; see its seasons",
            league=league.slug,
            season=number,
        ),
    )


def load_season(session: Session, league: League, number: int, *, lock: bool = False) -> Season:
    """The league's season `number`, or a 404; `lock`: its row locked for an update."""
    query = select(Season).where(Season.league_id == league.id, Season.number == number)
    season = session.exec(
        (query.with_for_update() if lock else query).execution_options(populate_existing=True)
    ).first()
    if season is None:
        raise _no_season(league, number)
    return season


def load_league_season(session: Session, slug: str, number: int) -> tuple[League, Season]:
    """The league with this slug and its season `number` in one query (the pages read
    often: a division's table), or the same 404s as `load_league` and `load_season`."""
    found = session.exec(
        select(League, Season)
        .outerjoin(Season, (col(Season.league_id) == League.id) & (col(Season.number) == number))
        .where(League.slug == slug)
    ).first()
    if found is None:
        load_league(session, slug)  # the league's 404
    assert found is not None
    league, season = found
    if season is None:
        return league, load_season(session, league, number)  # the season's 404
    return league, season


def latest_season(session: Session, league: League) -> Season | None:
    """The league's newest season, if any."""
    return session.exec(
        select(Season).where(Season.league_id == league.id).order_by(col(Season.number).desc())
    ).first()


#: What a season is doing, as a whole sentence: a status is a code, never a word inside
#: a translated one.
_SEASON_IS = {
    SeasonStatus.REGISTRATION: N_("season %(season)s of %(league)s is open for registration"),
    SeasonStatus.RUNNING: N_("season %(season)s of %(league)s is running"),
    SeasonStatus.FINISHED: N_("season %(season)s of %(league)s is finished"),
}


def season_is(season: Season, league: League) -> Text:
    """`season 2 of tuesday is running` (open for registration, finished), to be said in
    the reader's language: the start of a refusal about the season's state."""
    return Text(_SEASON_IS[SeasonStatus(season.status)], season=season.number, league=league.slug)


def organiser_only(league: League, player: Player, refusal: Message) -> None:
    """A 403 unless `player` organises the league; `refusal` says what only the organiser
    may do ("only the organiser of %(league)s can start a season")."""
    if league.organiser_id != player.id:
        raise Forbidden("not_organiser", refusal)


def create_league(session: Session, *, organiser: Player, settings: dict[str, Any]) -> League:
    """A new league organised by `organiser`; a 409 if its slug is taken."""
    assert organiser.id is not None
    moving = settings["promote"] + settings["relegate"]
    if moving > settings["division_size"]:
        raise Refused(
            "invalid_league",
            lazy_gettext(
                "promote + relegate (%(moving)s) is more than a division of %(size)s holds",
                moving=moving,
                size=settings["division_size"],
            ),
        )
    league = League(organiser_id=organiser.id, **settings)
    session.add(league)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise Conflict(
            "slug_taken",
            lazy_gettext(
                "a league named %(league)s exists; choose another slug",
                league=repr(settings["slug"]),
            ),
        ) from None
    return league


def open_season(session: Session, *, league: League, player: Player, config: Settings) -> Season:
    """Open registration for the league's next season (the organiser): the members of the
    last one are registered, and told so; invitees who are not are invited to join."""
    organiser_only(
        league,
        player,
        lazy_gettext("only the organiser of %(league)s can open a season", league=league.slug),
    )
    previous = latest_season(session, league)
    if previous is not None and previous.status != SeasonStatus.FINISHED:
        raise Conflict(
            "season_not_finished",
            lazy_gettext(
                "%(state)s; a new season opens once it is finished",
                state=season_is(previous, league),
            ),
        )
    assert league.id is not None
    season = Season(league_id=league.id, number=1 if previous is None else previous.number + 1)
    session.add(season)
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise Conflict(
            "season_exists", lazy_gettext("another season was opened at the same moment")
        ) from None
    assert season.id is not None
    returning: list[Player] = []
    if previous is not None:
        returning = list(
            session.exec(
                select(Player)
                .join(SeasonMember, col(SeasonMember.player_id) == Player.id)
                .where(
                    SeasonMember.season_id == previous.id, col(SeasonMember.withdrawn_at).is_(None)
                )
                .order_by(col(Player.name))
            ).all()
        )
        for p in returning:
            assert p.id is not None  # read from the table
            session.add(SeasonMember(season_id=season.id, player_id=p.id))
    known = {p.name for p in returning}
    invitees = [] if league.open else sorted(set(league.invited) - known)
    invited = session.exec(select(Player).where(col(Player.name).in_(invitees))).all()
    emails.registration_opened(
        session, league=league, season=season, registered=returning, invited=invited, config=config
    )
    session.commit()
    return season


def _may_register(league: League, player: Player) -> None:
    if not league.open and player.name not in league.invited and league.organiser_id != player.id:
        raise Forbidden(
            "not_invited",
            lazy_gettext(
                "%(league)s is by invitation; ask its organiser to invite you", league=league.slug
            ),
        )


def register(session: Session, *, league: League, number: int, player: Player) -> Season:
    """The caller signs up for the season (open for registration). The season's row is
    locked for it (on PostgreSQL), so a registration never lands in a season that started
    meanwhile."""
    season = load_season(session, league, number, lock=True)
    add_member(session, league=league, season=season, player=player)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise Conflict("already_registered", _registered(number, league)) from None
    return season


def _registered(number: int, league: League) -> Text:
    return lazy_gettext(
        "you are registered for season %(season)s of %(league)s", season=number, league=league.slug
    )


def add_member(session: Session, *, league: League, season: Season, player: Player) -> None:
    """Register the player for the season (its row locked by the caller), in the caller's
    transaction: a 409 unless it is open for registration or if they are registered, a 403
    if the league is by invitation and they are not invited, or if the organiser removed
    them from this season."""
    number = season.number
    if season.status != SeasonStatus.REGISTRATION:
        raise Conflict("registration_closed", season_is(season, league))
    _may_register(league, player)
    member = session.exec(
        select(SeasonMember).where(
            SeasonMember.season_id == season.id, SeasonMember.player_id == player.id
        )
    ).first()
    if member is not None and member.withdrawn_at is None:
        raise Conflict("already_registered", _registered(number, league))
    if member is not None and member.removed_reason is not None:
        raise Forbidden(
            "removed_by_organiser",
            lazy_gettext(
                "the organiser removed you from season %(season)s of %(league)s (%(reason)s); "
                "ask them, or join the next season",
                season=number,
                league=league.slug,
                reason=member.removed_reason,
            ),
        )
    if member is None:
        assert season.id is not None and player.id is not None
        session.add(SeasonMember(season_id=season.id, player_id=player.id))
    else:
        member.withdrawn_at = member.departure = None
        session.add(member)


def mark_left(member: SeasonMember, how: MemberLeft, at: datetime) -> None:
    """Record that the member left the season, when and how (in the caller's transaction):
    the one place that writes it (`server.league.withdrawal`)."""
    member.withdrawn_at = at
    member.departure = how


def invite(
    session: Session, *, league: League, player: Player, names: list[str], config: Settings
) -> list[str]:
    """The organiser invites players to an invitation-only league (and, if a season is
    open for registration, they hear of it)."""
    organiser_only(
        league,
        player,
        lazy_gettext("only the organiser of %(league)s can invite players", league=league.slug),
    )
    if league.open:
        raise Conflict(
            "league_open",
            lazy_gettext("%(league)s is open: anyone may register", league=league.slug),
        )
    found = session.exec(select(Player).where(col(Player.name).in_(names))).all()
    refuse_unknown(names, (p.name for p in found))
    new = [p for p in found if p.name not in league.invited]
    league.invited = sorted(set(league.invited) | {p.name for p in found})
    session.add(league)
    season = latest_season(session, league)
    if new and season is not None and season.status == SeasonStatus.REGISTRATION:
        emails.registration_opened(
            session, league=league, season=season, registered=[], invited=new, config=config
        )
    session.commit()
    return league.invited


def league_games(
    session: Session, season_id: int, division: int | None = None
) -> dict[int, list[int]]:
    """The season's game ids by division (`division`: only that one's)."""
    query = select(GameRecord.division, GameRecord.id).where(GameRecord.season_id == season_id)
    if division is not None:
        query = query.where(GameRecord.division == division)
    rows = session.exec(query.order_by(col(GameRecord.id))).all()
    games: dict[int, list[int]] = {}
    for number, game_id in rows:
        assert number is not None and game_id is not None
        games.setdefault(number, []).append(game_id)
    return games


def running_games_of(session: Session, *, season_id: int, player_id: int) -> list[GameRecord]:
    """The player's running games of the season."""
    return list(
        session.exec(
            select(GameRecord)
            .join(GameSeat, col(GameSeat.game_id) == GameRecord.id)
            .where(
                GameRecord.season_id == season_id,
                GameSeat.player_id == player_id,
                GameRecord.status == GameStatus.ACTIVE,
            )
            .order_by(col(GameRecord.id))
        ).all()
    )
