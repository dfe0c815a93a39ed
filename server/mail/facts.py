"""What an email about a game is made from: small value types, gathered from the database by
the code that renders the email (`server.mail.batch`) and handed to the pure builders of
`server.mail.messages`. The facts a notice is queued with (the recipient, the links, a
vacation's games) are below the domain, in `server.postbox.facts`.

Only public facts go in: names, scores, hands (face up, rulebook §3), the board, the log. The
snapshot's bag is read by the engine to draw the picture but never shown; the seed is set
only once the game is over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from cafe import Game
from cafe.endings import Departure
from cafe.i18n import N_, gettext
from cafe.render import quantities
from server.league.labels import LeagueLabel
from server.models import departure_of


@dataclass(frozen=True, slots=True)
class LoggedTurn:
    """One entry of a game's log as emails tell it."""

    number: int
    player: str
    #: "turn", "resign", "timeout" (a turn played on time-out, or a removal) or "end" (the
    #: league organiser's adjudication, `detail` naming who and why)
    kind: str
    notation: str = ""
    points: int = 0
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def removed(self) -> bool:
        """Whether this entry is the player's removal on time-out."""
        return bool(self.detail.get("removed"))

    @property
    def text(self) -> str:
        """`12. ann played USm@US1 for +6 points`, marked `(played on time-out)` and `and
        was eliminated at the bar` where they apply; or a player leaving: `12. ann
        resigned`, `… was removed on time`, `… withdrew from the season`, `… was removed
        from the season by the organiser`; or the league
        organiser's adjudication (in the language in use)."""
        if self.kind == "end":
            return gettext(
                "%(number)s. adjudicated by %(by)s: %(reason)s",
                number=self.number,
                by=self.detail["by"],
                reason=self.detail["reason"],
            )
        left = departure_of(self.kind, self.detail)
        said = {"number": self.number, "player": self.player}
        if left is not None and left is not Departure.ELIMINATED:
            return gettext(_LEFT[left], **said)
        played = _PLAYED[self.kind == "timeout", left is Departure.ELIMINATED]
        return gettext(played, **said, turn=self.notation, points=quantities.points(self.points))


#: A log entry of a player who left the game, by how they left.
_LEFT = {
    Departure.RESIGNED: N_("%(number)s. %(player)s resigned"),
    Departure.TIMED_OUT: N_("%(number)s. %(player)s was removed on time"),
    Departure.WITHDREW: N_("%(number)s. %(player)s withdrew from the season"),
    Departure.REMOVED: N_("%(number)s. %(player)s was removed from the season by the organiser"),
}
#: A log entry of a turn, by whether it was played on time-out and put its player out.
_PLAYED = {
    (False, False): N_("%(number)s. %(player)s played %(turn)s for %(points)s"),
    (True, False): N_("%(number)s. %(player)s played %(turn)s for %(points)s (played on time-out)"),
    (False, True): N_(
        "%(number)s. %(player)s played %(turn)s for %(points)s and was eliminated at the bar"
    ),
    (True, True): N_(
        "%(number)s. %(player)s played %(turn)s for %(points)s (played on time-out) and was "
        "eliminated at the bar"
    ),
}


@dataclass(frozen=True, slots=True)
class EarlierTurn:
    """The recipient's turn that a reply to an email came too late for: the log entry, how
    it came in (`server.models.TurnSource`: `api`, `web`, `email`; None for a time-out or
    an entry from before sources were kept) and when."""

    turn: LoggedTurn
    source: str | None
    at: datetime


@dataclass(frozen=True, slots=True)
class OfferedTurn:
    """A hinted turn an email offers, to be chosen by its number."""

    turn: str
    points: int


@dataclass(frozen=True)
class GameFacts:
    """A started game at one version: the engine snapshot and the public facts around it.

    `recent` is the end of the log (at least the last round); `seed_hex`, `standings` and
    `ending` (why it ended, a `cafe.endings.Ending`) are set only once the game is over;
    `league` names a league game's league, season and division. `deadline` is the running
    turn's (None without a clock), `away` the players on vacation now with its end, `clock`
    the time control, `timeouts` each player's time-outs in a row and `turn_count` the
    entries of the log.
    `engine` is the snapshot loaded once, for every email of a change to read (never to
    play on).
    """

    id: int
    version: int
    state: Mapping[str, Any]
    commitment: str | None = None
    seed_hex: str | None = None
    standings: Sequence[Mapping[str, Any]] = ()
    recent: Sequence[LoggedTurn] = ()
    deadline: datetime | None = None
    away: Mapping[str, datetime] = field(default_factory=dict)
    clock: Mapping[str, Any] | None = None
    timeouts: Mapping[str, int] = field(default_factory=dict)
    turn_count: int = 0
    ending: str | None = None
    league: LeagueLabel | None = None

    @property
    def turn(self) -> int:
        """The number of the turn to play now, as players count (not the row's version)."""
        return self.turn_count + 1

    @cached_property
    def engine(self) -> Game:
        """The engine's game in this state (loaded on first use)."""
        return Game.from_position(dict(self.state))

    def since_last_turn(self, name: str) -> list[LoggedTurn]:
        """The entries of `recent` after `name`'s own last turn (all of them if none)."""
        mine = [i for i, entry in enumerate(self.recent) if entry.player == name]
        return list(self.recent[mine[-1] + 1 :] if mine else self.recent)


@dataclass(frozen=True, slots=True)
class DigestGame:
    """One game in a daily digest: the state now, and what happened since the last digest."""

    game: GameFacts
    your_turn: bool
    best: OfferedTurn | None
    played: Sequence[LoggedTurn] = ()
