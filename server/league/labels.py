"""Which league, season and division a game belongs to, as every view of the game names it:
the game's page, its emails, the API (and so `cafe show` and `cafe games`) and its record's
`Event` tag, each linking to the season's page."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlmodel import Session, col, select

from cafe.i18n import DEFAULT, speaking
from cafe.render.quantities import season_path, season_place, season_short_path
from server.models import GameRecord, League, Season


@dataclass(frozen=True, slots=True)
class LeagueLabel:
    """A league game's league (its name and slug), season and division."""

    name: str
    slug: str
    season: int
    division: int

    @property
    def text(self) -> str:
        """`Spring League, season 2, division 1`, in the language in use."""
        return season_place(self.name, self.season, self.division)

    @property
    def event(self) -> str:
        """The game record's `Event` tag: `Spring League, season 2, division 1` in English
        whoever asks, as the whole record is written (`cafe.record`)."""
        with speaking(DEFAULT):
            return self.text

    @property
    def path(self) -> str:
        """The season's page: `/leagues/spring/seasons/2`."""
        return season_path(self.slug, self.season)

    @property
    def short_path(self) -> str:
        """The short path that leads to it, for plain-text email: `/leagues/spring/2`."""
        return season_short_path(self.slug, self.season)


def labels(session: Session, games: Iterable[GameRecord]) -> dict[int, LeagueLabel]:
    """The label of each league game among `games`, by game id, in one query (none when no
    game is a league game)."""
    league_games = [g for g in games if g.season_id is not None and g.id is not None]
    if not league_games:
        return {}
    seasons = {g.season_id for g in league_games}
    found = {
        season_id: (name, slug, number)
        for season_id, name, slug, number in session.exec(
            select(Season.id, League.name, League.slug, Season.number)
            .join(League, col(League.id) == Season.league_id)
            .where(col(Season.id).in_(seasons))
        )
    }
    return {
        game.id: LeagueLabel(*found[game.season_id], division=game.division or 1)  # type: ignore[misc]  # the row unpacks to the label's fields
        for game in league_games
        if game.season_id in found
    }


def label(session: Session, game: GameRecord) -> LeagueLabel | None:
    """The game's label, or None for a game outside a league."""
    return labels(session, [game]).get(game.id) if game.id is not None else None
