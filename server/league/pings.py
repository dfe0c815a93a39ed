"""A season's start and end told on its members' channels that take `league` (issue 26),
and on the league's own channels that take it, in the transaction that makes them true,
beside its emails (`server.league.emails`): the members its start email goes to, and at its
end everyone placed in it (those who left since too), as the final table's email. The ping
is said in each owner's language when the worker sends it (`server.jobs.deliveries`), from
the facts stored with it.
"""

from __future__ import annotations

from sqlmodel import Session

from server.league.emails import members
from server.models import League, Season
from server.postbox import pings
from server.postbox.pings import SEASON_FINISHED, SEASON_STARTED, ChannelEvent


def season_started(session: Session, *, league: League, season: Season) -> None:
    """Queue the `league` pings of the season's start."""
    _queue(session, league, season, SEASON_STARTED, placed=False)


def season_finished(session: Session, *, league: League, season: Season) -> None:
    """Queue the `league` pings of the season's end."""
    _queue(session, league, season, SEASON_FINISHED, placed=True)


def _queue(session: Session, league: League, season: Season, status: str, *, placed: bool) -> None:
    assert league.id is not None
    everyone = members(session, season, placed=placed)
    facts = {"league": league.name, "slug": league.slug, "season": season.number, "status": status}
    pings.queue_for_players(
        session,
        [player.id for _, player in everyone if player.id is not None],
        ChannelEvent.LEAGUE,
        payload=facts,
    )
    pings.queue_for_league(session, league.id, ChannelEvent.LEAGUE, payload=facts)
