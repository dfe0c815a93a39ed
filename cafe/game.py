"""``Game``: the public face of the engine — deal, play, ask, and read a game.

A ``Game`` wraps the mutable ``State`` and keeps the history of played turns. Everything a
caller may change goes through ``play``, which either applies a whole legal turn or raises
a ``CafeError`` and changes nothing.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cafe import fairbag, position
from cafe.endings import Departure, Ending, end_condition, why
from cafe.errors import CafeError, GameOverError, InvalidPositionError
from cafe.i18n import gettext, lazy_gettext
from cafe.movegen import Found, ScoredTurn, as_turn, find_turns
from cafe.notation import Turn, TurnKind
from cafe.players import check_players
from cafe.results import TurnResult
from cafe.rules import apply_resignation, apply_turn
from cafe.standings import Standing, standings
from cafe.state import Options, Seating, State

HAND_SIZE = 5


@dataclass(frozen=True, slots=True)
class Hint:
    """A suggested turn and the points it scores now.

    ``lowers_limit`` is how much the turn would lower the player's hand limit (completed
    single-nation tables, rulebook §9; ``noshrink`` keeps it). ``may_name_birthday`` says
    the turn may also name the birthday nation (``birthday=XX``, §11): the player has
    reached the threshold, or this turn's points reach it.
    """

    turn: Turn
    points: int
    lowers_limit: int = 0
    may_name_birthday: bool = False

    def __str__(self) -> str:
        return f"{self.turn} ({self.points:+d})"


class Game:
    """One game of Café International (cafe/rulebook.md)."""

    def __init__(self, state: State) -> None:
        self._state = state
        self._history: list[TurnResult] = []
        self._deal: list[list[str]] | None = None
        self._resignations: list[tuple[int, str]] = []
        self._timeout_turns: set[int] = set()
        self._timed_out: set[str] = set()
        self._legal: list[Found] | None = None

    # --- making games ----------------------------------------------------------------

    @classmethod
    def new(
        cls,
        players: list[str] | tuple[str, ...],
        *,
        seed: bytes | str | int | None = None,
        options: Options | None = None,
    ) -> Game:
        """Deal a new game: seat order and bag from the seed (``cafe.fairbag``)."""
        names = check_players(players)
        secret = fairbag.seed_bytes(seed)
        return cls._from_bag(
            fairbag.seat_order(names, secret),
            fairbag.bag_order(secret),
            options or Options(),
            seed=secret,
            commitment=fairbag.commitment(secret),
        )

    @classmethod
    def _from_bag(
        cls,
        seats: list[str],
        bag: list[str],
        options: Options,
        *,
        seed: bytes | None,
        commitment: str,
    ) -> Game:
        """Deal from a given bag, top first: for ``new``, and for ``cafe.record``, which
        rebuilds the bag of a game in progress from its recorded deal and draws."""
        seats = check_players(seats)
        hands = [bag[i * HAND_SIZE : (i + 1) * HAND_SIZE] for i in range(len(seats))]
        state = State(
            players=tuple(seats),
            to_move=0,
            scores=[0] * len(seats),
            hands=[list(hand) for hand in hands],
            hand_limits=[HAND_SIZE] * len(seats),
            eliminated=[False] * len(seats),
            seating=Seating(),
            bar=[],
            bag=bag[len(seats) * HAND_SIZE :],
            options=options,
            seed=seed,
            commitment=commitment,
        )
        game = cls(state)
        game._deal = [list(hand) for hand in hands]
        return game

    @classmethod
    def from_position(cls, source: dict[str, Any] | str) -> Game:
        """A game from a position (docs/formats.md), as a dict or JSON text."""
        if isinstance(source, str):
            try:
                source = json.loads(source)
            except json.JSONDecodeError as error:
                raise InvalidPositionError(f"position is not valid JSON: {error}") from None
        return cls(position.load(source))  # type: ignore[arg-type]  # JSON: `load` checks it

    @classmethod
    def from_record(cls, text: str) -> Game:
        """Replay a game record (``cafe.record``); a damaged record names its line."""
        from cafe.record import replay  # noqa: PLC0415 (cafe.record builds on Game)

        return replay(text)

    def to_position(self) -> dict[str, Any]:
        return position.dump(self._state)

    def to_record(self, *, reveal_seed: bool | None = None, **about: str | None) -> str:
        """The game record; the seed is revealed only once the game is over, unless told.
        ``about``: ``event``, ``site``, ``date`` and ``game_id`` for the Event, Site, Date
        and Game tags."""
        from cafe.record import write  # noqa: PLC0415 (cafe.record builds on Game)

        reveal = self.is_over if reveal_seed is None else reveal_seed
        return write(self, reveal_seed=reveal, **about)

    def copy(self) -> Game:
        """An independent game in the same state, with the same history."""
        other = Game(self._state.copy())
        other._history = list(self._history)
        other._resignations = list(self._resignations)
        other._timeout_turns = set(self._timeout_turns)
        other._timed_out = set(self._timed_out)
        other._deal = self._deal
        return other

    def position_copy(self) -> Game:
        """The game ``Game.from_position(self.to_position())`` gives — this position and
        nothing else: no history, no seed, no commitment — without writing the position
        out and checking it back in (a service that keeps the game it just stored need not
        read it again for the next turn)."""
        state = self._state.copy()
        state.seed = None
        state.commitment = None
        return Game(state)

    # --- playing ---------------------------------------------------------------------

    def play(self, turn: str | Turn, *, timeout: bool = False) -> TurnResult:
        """Play a turn for the player to move; a refused turn raises and changes nothing.
        ``timeout``: played for the player when their time ran out (records mark it)."""
        if isinstance(turn, str):
            turn = Turn.parse(turn)
        elif not isinstance(turn, Turn):
            raise CafeError(
                lazy_gettext("a turn is text or a Turn, not %(type)s", type=type(turn).__name__)
            )
        result = apply_turn(self._state, turn)
        self._history.append(result)
        if timeout:
            self._timeout_turns.add(len(self._history))
        self._legal = None
        return result

    def resign(self, player: int | str, *, timeout: bool = False) -> None:
        """Take a player (seat or name) out of the game for good (see ``cafe.rules``);
        ``timeout``: removed because their time ran out (records mark it)."""
        seat = self._seat_of(player)
        apply_resignation(self._state, seat)
        name = self._state.players[seat]
        self._resignations.append((len(self._history), name))
        if timeout:
            self._timed_out.add(name)
        self._legal = None

    def adjudicate(self, reason: str) -> None:
        """End the game here, for a reason outside the rules (a correspondence league's
        organiser ends a game that is stuck): the standings are the position's as they are,
        with the penalties for the tiles in hand as at any end (rulebook §10). Not in the
        board game's rules. ``reason``, one line, is kept for the record."""
        if self._state.over:
            raise GameOverError(lazy_gettext("the game is over: there is nothing to adjudicate"))
        text = " ".join(reason.split())
        if not text:
            raise CafeError(lazy_gettext("an adjudication needs its reason"))
        self._state.over = True
        self._state.adjudication = text
        self._legal = None

    def _seat_of(self, player: int | str) -> int:
        players = self._state.players
        if isinstance(player, str):
            if player not in players:
                raise CafeError(
                    lazy_gettext(
                        "%(player)s does not play in this game (%(players)s)",
                        player=repr(player),
                        players=", ".join(players),
                    )
                )
            return players.index(player)
        if not 0 <= player < len(players):
            raise CafeError(
                lazy_gettext(
                    "seat %(seat)s: this game has seats 0 to %(last)s",
                    seat=player,
                    last=len(players) - 1,
                )
            )
        return player

    def legal_turns(self) -> list[Turn]:
        """Every legal turn of the player to move (modifiers aside)."""
        return [as_turn(found) for found, _ in self._scored()]

    def scored_turns(self) -> list[ScoredTurn]:
        """Every legal turn with the points it scores."""
        return [(as_turn(found), points) for found, points in self._scored()]

    def hints(self, n: int = 3) -> list[Hint]:
        """The ``n`` best turns by points, best first (`best_turns`), each with what else it
        would change: how much it lowers the hand limit, whether it may name the birthday
        nation."""
        return [self._hint(turn, points) for turn, points in self.best_turns(n)]

    def best_turns(self, n: int = 3) -> list[ScoredTurn]:
        """The turns of `hints`, in its order, with their points alone: a bar turn that
        would eliminate the player ranks below other turns of equal points; ties go in order
        of their text. Cheaper than `hints` for callers that show only turn and points (the
        hand-limit count plays each seating turn on a copy of the game)."""
        scored = self._scored()
        if n < 1 or not scored:
            return []
        state = self._state
        value = state.next_stool_value
        ruinous = value is not None and state.scores[state.to_move] + value < 0
        # Text is costly to build: only the turns scoring at least the n-th best need it.
        cutoff = heapq.nlargest(n, (points for _, points in scored))[-1]
        best = [(as_turn(found), points) for found, points in scored if points >= cutoff]

        def rank(item: ScoredTurn) -> tuple[int, bool, str]:
            turn, points = item
            return (-points, ruinous and turn.kind is TurnKind.BAR, str(turn))

        best.sort(key=rank)
        return best[:n]

    def _hint(self, turn: Turn, points: int) -> Hint:
        """The hint with what the turn would change besides points (played on a copy)."""
        state = self._state
        lowers = 0
        if turn.kind is TurnKind.SEAT:
            completed = len(apply_turn(state.copy(), turn).completed)
            lowers = min(completed, state.hand_limits[state.to_move])
        return Hint(turn, points, lowers, self.may_name_birthday(points))

    def may_name_birthday(self, points: int = 0) -> bool:
        """Whether the player to move may name the birthday nation (rulebook §11) on a turn
        scoring ``points``: the variant is on, no nation is named yet, and they are the first
        to reach the threshold (before or with this turn)."""
        state = self._state
        threshold = state.options.birthday
        if threshold is None or state.birthday_nation is not None or self.is_over:
            return False
        holder = state.birthday_player
        if holder is None:
            return state.scores[state.to_move] + points >= threshold
        return holder == state.to_move

    def _scored(self) -> list[Found]:
        if self.is_over:
            return []
        if self._legal is None:
            self._legal = find_turns(self._state)
        return self._legal

    # --- reading ---------------------------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        return self._state.players

    @property
    def to_move(self) -> int:
        return self._state.to_move

    @property
    def player_to_move(self) -> str:
        return self._state.players[self._state.to_move]

    @property
    def scores(self) -> list[int]:
        return list(self._state.scores)

    @property
    def hands(self) -> list[list[str]]:
        return [list(hand) for hand in self._state.hands]

    @property
    def hand_limits(self) -> list[int]:
        return list(self._state.hand_limits)

    @property
    def eliminated(self) -> list[bool]:
        return list(self._state.eliminated)

    @property
    def chair_tiles(self) -> dict[int, str]:
        """Seated tiles by chair number as positions write them: every joker with its nation
        (``Jf=FR``)."""
        return position.chair_texts(self._state.seating)

    @property
    def bar(self) -> list[str]:
        return list(self._state.bar)

    @property
    def next_stool_value(self) -> int | None:
        return self._state.next_stool_value

    @property
    def bag_size(self) -> int:
        return len(self._state.bag)

    @property
    def options(self) -> Options:
        return self._state.options

    @property
    def birthday_nation(self) -> str | None:
        return self._state.birthday_nation

    @property
    def birthday_player(self) -> int | None:
        return self._state.birthday_player

    @property
    def is_over(self) -> bool:
        return self._state.over

    @property
    def commitment(self) -> str | None:
        """SHA-256 hex of the seed, public from the deal (``None`` for a loaded position)."""
        return self._state.commitment

    @property
    def seed(self) -> bytes | None:
        """The secret seed: reveal it only once the game is over."""
        return self._state.seed

    @property
    def history(self) -> list[TurnResult]:
        return list(self._history)

    @property
    def resignations(self) -> list[tuple[int, str]]:
        """Who resigned, each with the number of turns played before."""
        return list(self._resignations)

    @property
    def timeout_turns(self) -> frozenset[int]:
        """The numbers of the turns (counted from 1) played for a player on time-out."""
        return frozenset(self._timeout_turns)

    @property
    def timed_out(self) -> frozenset[str]:
        """The players among ``resignations`` who were removed on time-out."""
        return frozenset(self._timed_out)

    @property
    def adjudication(self) -> str | None:
        """Why the game was ended by adjudication (``adjudicate``); None if it was not."""
        return self._state.adjudication

    @property
    def deal(self) -> list[list[str]] | None:
        """The hands dealt at the start in seat order (``None`` for a loaded position)."""
        return None if self._deal is None else [list(hand) for hand in self._deal]

    def standings(self) -> list[Standing]:
        """Places with end-of-game penalties applied (rulebook §10); ties share a place."""
        return standings(self._state)

    @property
    def ending(self) -> Ending | None:
        """Why the game ended (None while it runs): its adjudication, the last opponent's
        leaving if a resignation or removal ended it, else the first of §10's conditions
        that holds."""
        if not self.is_over:
            return None
        if self._state.adjudication is not None:
            return Ending.ADJUDICATED
        if self._resignations and self._resignations[-1][0] == len(self._history):
            return Ending.OTHERS_LEFT
        return end_condition(self._state)

    def why_over(
        self, ending: Ending | None = None, departures: Mapping[str, Departure] | None = None
    ) -> str:
        """Why the game ended, in words: `ending` (default: `self.ending`, which a
        position without its history may not know), with `departures` saying how each
        player who left did."""
        found = ending or self.ending
        if found is None:
            return gettext("the game is not over")
        return why(found, self._state, departures or {})

    def __repr__(self) -> str:
        status = "over" if self.is_over else f"{self.player_to_move} to move"
        return f"<Game {', '.join(self.players)}: {status}, scores {self._state.scores}>"
