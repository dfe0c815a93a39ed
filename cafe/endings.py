"""Why a game ended and how a player left it before the end, as values and in words.

A game ends at the end of the turn after which one of rulebook §10's conditions holds;
`end_condition` names the first that does, in the rules' order. A correspondence game can
also end because everyone but one player left it (resigned, was removed on time, or
withdrew from the league's season), or because a league's organiser adjudicated it (ended
it with its standings as they were): those endings are the service's, not the board game's.

"Eliminated" is the bar's rule (§7: a player who cannot pay at the bar is out); a player
who resigns, is removed on time or withdraws is never called eliminated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

from cafe.board import BAR_VALUES, CHAIRS
from cafe.state import State

#: The bag's size at which a game ends (§10.3).
BAG_END = 4


class Ending(StrEnum):
    """Why a game ended."""

    BAR_FULL = "bar_full"  # §10.1: all 20 bar stools are taken
    CHAIRS_FULL = "chairs_full"  # §10.2: all 68 chairs are taken
    BAG_LOW = "bag_low"  # §10.3: the bag holds 4 tiles or fewer
    HAND_EMPTY = "hand_empty"  # §10.4: a player's hand is empty after refilling
    LAST_IN_GAME = "last_in_game"  # §10.5: the others were eliminated at the bar
    OTHERS_LEFT = "others_left"  # the last opponent left: resigned, removed or withdrew
    ADJUDICATED = "adjudicated"  # a league's organiser ended it as it stood


class Departure(StrEnum):
    """How a player left a game before its end."""

    ELIMINATED = "eliminated"  # could not pay at the bar (§7)
    RESIGNED = "resigned"
    TIMED_OUT = "timed_out"  # removed by the service when their time ran out
    WITHDREW = "withdrew"  # withdrew from the league's season, resigning its games

    @property
    def words(self) -> str:
        """The mark beside the player: `eliminated at the bar`, `resigned`, `removed on
        time`, `withdrew`."""
        return _MARKS[self]

    @property
    def predicate(self) -> str:
        """What the player did, after their name: `resigned`, `was removed on time`, …"""
        return _PREDICATES[self]


_MARKS = {
    Departure.ELIMINATED: "eliminated at the bar",
    Departure.RESIGNED: "resigned",
    Departure.TIMED_OUT: "removed on time",
    Departure.WITHDREW: "withdrew",
}
_PREDICATES = {
    Departure.ELIMINATED: "was eliminated at the bar",
    Departure.RESIGNED: "resigned",
    Departure.TIMED_OUT: "was removed on time",
    Departure.WITHDREW: "withdrew from the season",
}

#: How a turn the service played for a player whose time ran out is marked.
TIMEOUT_MARK = "played on time-out"


def end_condition(state: State) -> Ending | None:
    """The first of §10's conditions that holds in `state` (None: the game goes on)."""
    in_game = state.in_game()
    if state.next_stool_value is None:
        return Ending.BAR_FULL
    if state.seating.seated == len(CHAIRS):
        return Ending.CHAIRS_FULL
    if len(state.bag) <= BAG_END:
        return Ending.BAG_LOW
    if any(not state.hands[seat] for seat in in_game):
        return Ending.HAND_EMPTY
    if len(in_game) <= 1:
        return Ending.LAST_IN_GAME
    return None


def departures_in(standings: Iterable[Mapping[str, Any]]) -> dict[str, Departure]:
    """How each player who left did, by name, from final standings written as JSON (lines
    with `player` and `left`, as the service stores and shows them)."""
    return {line["player"]: Departure(line["left"]) for line in standings if line.get("left")}


def why(ending: Ending, state: State, departures: Mapping[str, Departure]) -> str:
    """Why the game in `state` ended (`ending`), as a phrase: `departures` says how each
    player who left did (the last to leave is named for `OTHERS_LEFT`)."""
    in_game = [state.players[seat] for seat in state.in_game()]
    still_in = f"only {in_game[0]} was still in the game" if len(in_game) == 1 else ""
    if ending is Ending.OTHERS_LEFT:
        order = [state.players[seat] for seat in state.elimination_order]
        last = order[-1] if order else None
        how = departures.get(last, Departure.RESIGNED) if last else None
        if last is None or how is None:
            return "every other player left the game"
        return f"{last} {how.predicate}" + (f", and {still_in}" if still_in else "")
    if ending is Ending.HAND_EMPTY:
        emptied = [state.players[s] for s in state.in_game() if not state.hands[s]]
        return f"{emptied[0] if emptied else 'a player'} played the last tile of their hand"
    if ending is Ending.LAST_IN_GAME:
        return (still_in or "one player was left") + " (the others were eliminated at the bar)"
    if ending is Ending.ADJUDICATED and state.adjudication:
        return (
            f"the league's organiser adjudicated it ({state.adjudication}), ending it with the "
            "standings as they were"
        )
    return _WHY[ending]


_WHY = {
    Ending.BAR_FULL: f"the bar is full (all {len(BAR_VALUES)} stools are taken)",
    Ending.CHAIRS_FULL: f"there is no free chair left (all {len(CHAIRS)} are taken)",
    Ending.BAG_LOW: f"the bag is nearly empty ({BAG_END} tiles or fewer are left)",
    Ending.ADJUDICATED: "the league's organiser adjudicated it, ending it with the standings "
    "as they were",
}
