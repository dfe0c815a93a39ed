"""The league's emails (issue 12 §3): registration opened, season started, the weekly
league digest, season finished. Queued as notices in the transaction that makes them
true, like the vacation notices: the facts are gathered here in a few queries for the
whole season and stored with each member's row; the worker renders each message with its
builder in `server.league.messages` when it sends it (`server.mail.notices`).

Outbox kinds: `league_registration`, `league_season_started`, `league_digest`,
`league_season_finished`, and the organiser's actions (`server.league.removal`,
`server.league.pause`): `league_removed`, `league_paused`, `league_resumed`. They follow
the players' preferences like the game emails (`server.postbox.kinds.wants`): none goes to a
player who chose `turn_emails = none`. A registration email to someone not yet registered
carries a season reply address
(`server.postbox.addresses.SeasonReplyAddress`): replying `join` registers them
(`server.league.joining`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from datetime import timedelta
from typing import Any

from sqlmodel import Session, col, select

from cafe.league.table import Move
from server.config import Settings
from server.games.notify import recipient
from server.league import ratings
from server.league.facts import LeagueGame, RatingChange, SeasonFacts
from server.league.standings import division_tables
from server.models import (
    GameRecord,
    GameStatus,
    League,
    Placement,
    Player,
    Rating,
    RatingPoint,
    Season,
    SeasonMember,
    SeasonStatus,
)
from server.postbox import addresses, notices
from server.postbox.addresses import SeasonReplyAddress, season_reply_address
from server.postbox.facts import Links
from server.postbox.kinds import EmailKind, wants
from server.schemas.clock import DEFAULT_CLOCK


def season_facts(league: League, season: Season) -> SeasonFacts:
    """The season as its emails name it."""
    return SeasonFacts(
        league=league.name,
        slug=league.slug,
        number=season.number,
        game_size=league.game_size,
        clock=league.clock or DEFAULT_CLOCK,
    )


def season_links(config: Settings, *, season_id: int, player_id: int) -> Links:
    """The links of an email that may be answered with `join`: its reply address names the
    season and the player."""
    address = SeasonReplyAddress(season_id=season_id, player_id=player_id)
    return dataclasses.replace(
        addresses.links(config, player_id=player_id),
        reply_to=season_reply_address(config.secret_key, config.mail_domain, address),
    )


def _send(
    session: Session, config: Settings, kind: EmailKind, player: Player, **facts: Any
) -> None:
    """Queue the notice `kind` to `player` with the facts its builder takes, the player as
    its recipient among them (`server.mail.notices`)."""
    notices.queue(session, config, kind, to=player.email, recipient=recipient(player), **facts)


def wanted(players: Iterable[Player], kind: EmailKind) -> list[Player]:
    """The players who want an email of `kind` (`server.postbox.kinds.wants`)."""
    return [player for player in players if wants(player, kind)]


def registration_opened(
    session: Session,
    *,
    league: League,
    season: Season,
    registered: Sequence[Player],
    invited: Sequence[Player],
    config: Settings,
) -> None:
    """Tell the returning members they are registered (and how to withdraw), and the
    invitees how to join (`cafe league join SLUG`, or reply `join`)."""
    facts = season_facts(league, season)
    assert season.id is not None
    for player in wanted(registered, EmailKind.LEAGUE_REGISTRATION):
        links = addresses.links(config, player_id=player.id)
        _send(
            session,
            config,
            EmailKind.LEAGUE_REGISTRATION,
            player,
            season=facts,
            registered=True,
            links=links,
        )
    for player in wanted(invited, EmailKind.LEAGUE_REGISTRATION):
        assert player.id is not None
        links = season_links(config, season_id=season.id, player_id=player.id)
        _send(
            session,
            config,
            EmailKind.LEAGUE_REGISTRATION,
            player,
            season=facts,
            registered=False,
            links=links,
        )


def members(
    session: Session, season: Season, *, placed: bool = False
) -> list[tuple[SeasonMember, Player]]:
    """The season's members still in it (not withdrawn), by name; `placed`: everyone placed
    in a division instead, those who left since included (each once)."""
    query = (
        select(SeasonMember, Player)
        .join(Player, col(Player.id) == SeasonMember.player_id)
        .where(SeasonMember.season_id == season.id)
        .order_by(col(Player.name))
    )
    if placed:
        query = query.where(col(SeasonMember.division).is_not(None))
    else:
        query = query.where(col(SeasonMember.withdrawn_at).is_(None))
    return list(session.exec(query).all())


def league_games(session: Session, season: Season, *, running: bool) -> list[LeagueGame]:
    """The season's games (`running`: only those still being played) as emails list them;
    the deadline is that of the player to move (read afresh: a pause or resumption has just
    moved them with bulk updates)."""
    query = select(GameRecord).where(GameRecord.season_id == season.id)
    if running:
        query = query.where(GameRecord.status == GameStatus.ACTIVE)
    found = []
    fresh = query.order_by(col(GameRecord.id)).execution_options(populate_existing=True)
    for game in session.exec(fresh):
        assert game.id is not None and game.state is not None
        names = list(game.state["players"])
        found.append(
            LeagueGame(
                id=game.id,
                players=names,
                to_move=names[game.state["to_move"]],
                deadline=game.deadline,
            )
        )
    return found


def _mine(games: Sequence[LeagueGame], name: str) -> list[LeagueGame]:
    return [game for game in games if name in game.players]


def _only_my_deadline(game: LeagueGame, name: str) -> LeagueGame:
    return game if game.to_move == name else dataclasses.replace(game, deadline=None)


def season_started(session: Session, *, league: League, season: Season, config: Settings) -> None:
    """Tell every member their division and why they are in it, their opponents and games
    (with links and first deadlines): the one email of the season's start, which queues no
    email per game."""
    facts = season_facts(league, season)
    everyone = members(session, season)
    games = league_games(session, season, running=False)
    divisions: dict[int, list[str]] = {}
    for member, player in everyone:
        assert member.division is not None
        divisions.setdefault(member.division, []).append(player.name)
    for member, player in everyone:
        if not wants(player, EmailKind.LEAGUE_SEASON_STARTED):
            continue
        assert member.division is not None and season.id is not None and player.id is not None
        _send(
            session,
            config,
            EmailKind.LEAGUE_SEASON_STARTED,
            player,
            season=facts,
            division=member.division,
            placed=member.placed,
            placed_from=member.placed_from,
            refilled=member.placed in (Placement.FILLED, Placement.EVENED),
            players=divisions[member.division],
            games=[_only_my_deadline(g, player.name) for g in _mine(games, player.name)],
            # answerable: a reply of `GAME: TURN` lines plays them (`server.mail.replies`)
            links=season_links(config, season_id=season.id, player_id=player.id),
        )


def weekly_digest(session: Session, *, league: League, season: Season, config: Settings) -> int:
    """Queue the weekly league digest of a running season to every member who takes game
    emails: their division's table and their games waiting for their move. How many."""
    facts = season_facts(league, season)
    tables = division_tables(session, season)
    running = league_games(session, season, running=True)
    queued = 0
    for member, player in members(session, season):
        if not wants(player, EmailKind.LEAGUE_DIGEST) or member.division is None:
            continue
        _send(
            session,
            config,
            EmailKind.LEAGUE_DIGEST,
            player,
            season=facts,
            division=member.division,
            rows=tables[member.division],
            waiting=[game for game in running if game.to_move == player.name],
            links=addresses.links(config, player_id=player.id),
        )
        queued += 1
    return queued


def rating_changes(
    session: Session, season: Season, player_ids: Sequence[int]
) -> dict[int, RatingChange]:
    """Each player's rating now and before the first game of the season counted in it (the
    model's defaults for a player rated first in it)."""
    game_ids = set(
        session.exec(select(GameRecord.id).where(GameRecord.season_id == season.id)).all()
    )
    before: dict[int, ratings.Skill] = {}
    done: set[int] = set()
    for point in session.exec(
        select(RatingPoint)
        .where(col(RatingPoint.player_id).in_(player_ids))
        .order_by(col(RatingPoint.id))
    ):
        if point.player_id in done:
            continue
        if point.game_id in game_ids:
            done.add(point.player_id)
        else:
            before[point.player_id] = ratings.Skill(point.mu, point.sigma)
    now = {
        row.player_id: row
        for row in session.exec(select(Rating).where(col(Rating.player_id).in_(player_ids)))
    }
    return {
        pid: RatingChange(
            before=before.get(pid, ratings.DEFAULT), after=ratings.skill_of(now.get(pid))
        )
        for pid in player_ids
    }


def season_finished(session: Session, *, league: League, season: Season, config: Settings) -> None:
    """Send every member placed in the season — those who left it too, marked so — the final
    table, who moves up and down as things stand, and their new rating."""
    facts = season_facts(league, season)
    tables = division_tables(session, season)
    moves = [Move(m["player"], m["from_division"], m["to_division"]) for m in season.moves or []]
    everyone = members(session, season, placed=True)
    told = [(m, p) for m, p in everyone if wants(p, EmailKind.LEAGUE_SEASON_FINISHED)]
    changes = rating_changes(session, season, [p.id for _, p in told if p.id is not None])
    for member, player in told:
        assert member.division is not None and player.id is not None
        _send(
            session,
            config,
            EmailKind.LEAGUE_SEASON_FINISHED,
            player,
            season=facts,
            division=member.division,
            rows=tables[member.division],
            moves=moves,
            rating=changes[player.id],
            links=addresses.links(config, player_id=player.id),
        )


def removed_by_organiser(
    session: Session,
    *,
    league: League,
    season: Season,
    player: Player,
    reason: str,
    resigned: Sequence[int],
    config: Settings,
) -> None:
    """Tell the removed player they were removed, why, and which games were resigned."""
    if not wants(player, EmailKind.LEAGUE_REMOVED):
        return
    _send(
        session,
        config,
        EmailKind.LEAGUE_REMOVED,
        player,
        season=season_facts(league, season),
        reason=reason,
        running=season.status == SeasonStatus.RUNNING,
        resigned=resigned,
        links=addresses.links(config, player_id=player.id),
    )


def season_paused(
    session: Session,
    *,
    league: League,
    season: Season,
    reason: str,
    config: Settings,
) -> None:
    """Tell every member still in the season that its clocks are stopped, and why."""
    facts = season_facts(league, season)
    for _, player in members(session, season):
        if not wants(player, EmailKind.LEAGUE_PAUSED):
            continue
        links = addresses.links(config, player_id=player.id)
        _send(
            session,
            config,
            EmailKind.LEAGUE_PAUSED,
            player,
            season=facts,
            reason=reason,
            links=links,
        )


def season_resumed(
    session: Session,
    *,
    league: League,
    season: Season,
    paused: timedelta,
    config: Settings,
) -> None:
    """Tell every member still in the season that its clocks run again, with the new
    deadlines of the games waiting for their move."""
    facts = season_facts(league, season)
    running = league_games(session, season, running=True)
    for _, player in members(session, season):
        if not wants(player, EmailKind.LEAGUE_RESUMED):
            continue
        _send(
            session,
            config,
            EmailKind.LEAGUE_RESUMED,
            player,
            season=facts,
            paused_for=paused,
            waiting=[game for game in running if game.to_move == player.name],
            links=addresses.links(config, player_id=player.id),
        )
