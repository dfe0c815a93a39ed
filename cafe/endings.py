"""Why a game ended and how a player left it before the end, as values and in words.

A game ends at the end of the turn after which one of rulebook §10's conditions holds;
`end_condition` names the first that does, in the rules' order. A correspondence game can
also end because everyone but one player left it (resigned, was removed on time, withdrew
from the league's season or was removed from it by its organiser), or because a league's
organiser adjudicated it (ended it with its standings as they were): those endings are the
service's, not the board game's.

"Eliminated" is the bar's rule (§7: a player who cannot pay at the bar is out); a player
who resigns, is removed on time or withdraws is never called eliminated.

The words are said in the language in use when they are asked for (`cafe.i18n`): why a
game ended and how a player left are each one message per sentence, the names inside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

from cafe.board import BAR_VALUES, CHAIRS
from cafe.i18n import N_, gettext, ngettext
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
    REMOVED = "removed"  # removed from the league's season by its organiser, likewise

    @property
    def words(self) -> str:
        """The mark beside the player, in the language in use: `eliminated at the bar`,
        `resigned`, `removed on time`, `withdrew`, `removed by the organiser`."""
        return gettext(_MARKS[self])

    def sentence(self, player: str) -> str:
        """What `player` did, as one sentence in the language in use: `ann resigned`, `ann
        was removed on time`, `ann withdrew from the season`, `ann was removed from the
        season by the organiser`."""
        return gettext(_SENTENCES[self], player=player)


_MARKS = {
    Departure.ELIMINATED: N_("eliminated at the bar"),
    Departure.RESIGNED: N_("resigned"),
    Departure.TIMED_OUT: N_("removed on time"),
    Departure.WITHDREW: N_("withdrew"),
    Departure.REMOVED: N_("removed by the organiser"),
}
_SENTENCES = {
    Departure.ELIMINATED: N_("%(player)s was eliminated at the bar"),
    Departure.RESIGNED: N_("%(player)s resigned"),
    Departure.TIMED_OUT: N_("%(player)s was removed on time"),
    Departure.WITHDREW: N_("%(player)s withdrew from the season"),
    Departure.REMOVED: N_("%(player)s was removed from the season by the organiser"),
}

#: How a turn the service played for a player whose time ran out is marked (a message:
#: said where it is shown, `gettext(TIMEOUT_MARK)`).
TIMEOUT_MARK = N_("played on time-out")


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
    """Why the game in `state` ended (`ending`), as a phrase in the language in use:
    `departures` says how each player who left did (the last to leave is named for
    `OTHERS_LEFT`)."""
    in_game = [state.players[seat] for seat in state.in_game()]
    alone = in_game[0] if len(in_game) == 1 else None
    if ending is Ending.OTHERS_LEFT:
        order = [state.players[seat] for seat in state.elimination_order]
        if not order:
            return gettext("every other player left the game")
        last = order[-1]
        left = departures.get(last, Departure.RESIGNED).sentence(last)
        if alone is None:
            return left
        return gettext(
            "%(left)s, and only %(player)s was still in the game", left=left, player=alone
        )
    if ending is Ending.HAND_EMPTY:
        emptied = [state.players[s] for s in state.in_game() if not state.hands[s]]
        if not emptied:
            return gettext("a player played the last tile of their hand")
        return gettext("%(player)s played the last tile of their hand", player=emptied[0])
    if ending is Ending.LAST_IN_GAME:
        if alone is None:
            return gettext("one player was left (the others were eliminated at the bar)")
        return gettext(
            "only %(player)s was still in the game (the others were eliminated at the bar)",
            player=alone,
        )
    if ending is Ending.ADJUDICATED and state.adjudication:
        return gettext(
            "the league's organiser adjudicated it (%(reason)s), ending it with the standings "
            "as they were",
            reason=state.adjudication,
        )
    if ending is Ending.BAR_FULL:
        return ngettext(
            "the bar is full (its %(num)s stool is taken)",
            "the bar is full (all %(num)s stools are taken)",
            len(BAR_VALUES),
        )
    if ending is Ending.CHAIRS_FULL:
        return ngettext(
            "there is no free chair left (its %(num)s chair is taken)",
            "there is no free chair left (all %(num)s are taken)",
            len(CHAIRS),
        )
    if ending is Ending.BAG_LOW:
        return ngettext(
            "the bag is nearly empty (%(num)s tile or fewer is left)",
            "the bag is nearly empty (%(num)s tiles or fewer are left)",
            BAG_END,
        )
    return gettext(
        "the league's organiser adjudicated it, ending it with the standings as they were"
    )
