"""The facts of a league's emails that the league gathers (`server.league.emails`) and its
email builders take (`server.league.messages`): small value types, stored as a notice's
JSON facts and handed back to the builder when the worker renders it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from server.league.ratings import Skill


@dataclass(frozen=True, slots=True)
class SeasonFacts:
    """A league season as its emails name it: the league, the season's number, its clock."""

    league: str  # the league's name
    slug: str
    number: int
    game_size: int
    clock: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class LeagueGame:
    """One of the recipient's league games: its players, who is to move, and the
    recipient's deadline when it is their move (None otherwise, or without a clock)."""

    id: int
    players: Sequence[str]
    to_move: str
    deadline: datetime | None = None


@dataclass(frozen=True, slots=True)
class RatingChange:
    """A player's rating before the season and after it."""

    before: Skill
    after: Skill
