"""Final places (RULES.md §10): penalties for tiles in hand, shared places for equal scores,
players out of the game (eliminated at the bar, or resigned or removed on time) below
everyone still in it, those out later above those out earlier. `eliminated` marks them
all: the record and the views say which it was."""

from __future__ import annotations

from dataclasses import dataclass

from cafe.state import State
from cafe.tiles import is_joker

TILE_PENALTY = 5
JOKER_PENALTY = 10


@dataclass(frozen=True, slots=True)
class Standing:
    place: int
    seat: int
    player: str
    score: int
    penalty: int
    final: int
    eliminated: bool


def hand_penalty(hand: list[str]) -> int:
    """What the tiles left in a hand cost at the end (a negative number or 0)."""
    return -sum(JOKER_PENALTY if is_joker(tile) else TILE_PENALTY for tile in hand)


def standings(state: State) -> list[Standing]:
    in_game = [(state.scores[s] + hand_penalty(state.hands[s]), s) for s in state.in_game()]
    in_game.sort(key=lambda item: (-item[0], item[1]))
    result = []
    for final, seat in in_game:
        place = 1 + sum(1 for other, _ in in_game if other > final)
        penalty = final - state.scores[seat]
        result.append(
            Standing(place, seat, state.players[seat], state.scores[seat], penalty, final, False)
        )
    order = [s for s in state.elimination_order if state.eliminated[s]]
    order += [s for s, out in enumerate(state.eliminated) if out and s not in order]
    for rank, seat in enumerate(reversed(order)):
        score = state.scores[seat]
        place = len(in_game) + rank + 1
        result.append(Standing(place, seat, state.players[seat], score, 0, score, True))
    return result
