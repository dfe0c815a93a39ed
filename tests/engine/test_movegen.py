"""Legal-turn generation checked against brute force: every turn ``play`` accepts is listed
(up to the equivalences the rules allow), and every listed turn is accepted with the listed
points."""

from __future__ import annotations

from itertools import permutations

import pytest

from cafe import CafeError, Game, Options, Turn
from cafe.board import CHAIRS, TABLES
from cafe.bots import RandomBot
from cafe.tiles import is_joker


def _placements(game: Game, tile: str) -> list[str]:
    taken = game.chair_tiles
    texts = []
    for number, chair in CHAIRS.items():
        nations = sorted(chair.nations)
        if number in taken or not (is_joker(tile) or tile[:2] in nations):
            continue
        if is_joker(tile) and len(nations) == 2:
            texts += [f"{tile}={nation}@#{number}" for nation in nations]
        else:
            texts.append(f"{tile}@#{number}")
    return texts


def _klatsch_candidates(game: Game, hand: list[str]) -> list[str]:
    taken = game.chair_tiles
    texts = []
    for table in TABLES.values():
        free = [c for c in table.chairs if c not in taken]
        if len(free) < 3:
            continue
        for tiles in set(permutations(hand, len(free))):
            per_chair = [
                _placements_on(tile, chair) for tile, chair in zip(tiles, free, strict=True)
            ]
            combos = [""]
            for options in per_chair:
                combos = [f"{done} {option}".strip() for done in combos for option in options]
            texts += combos
    return texts


def _placements_on(tile: str, chair: int) -> list[str]:
    nations = sorted(CHAIRS[chair].nations)
    if is_joker(tile) and len(nations) == 2:
        return [f"{tile}={nation}@#{chair}" for nation in nations]
    return [f"{tile}@#{chair}"]


def brute_force(game: Game) -> dict[Turn, int]:
    """Every turn ``play`` accepts, by trying every candidate on a copy."""
    hand = game.hands[game.to_move]
    singles = [p for tile in sorted(set(hand)) for p in _placements(game, tile)]
    candidates = list(singles)
    for first in singles:
        for second in singles:
            if first.split("@")[1] != second.split("@")[1]:
                candidates.append(f"{first} {second}")
    candidates += [f"bar {tile}" for tile in set(hand)]
    candidates += [
        f"swap {tile}@#{chair}"
        for chair, seated in game.chair_tiles.items()
        if is_joker(seated)
        for tile in set(hand)
    ]
    if game.options.coffee_klatsch:
        candidates += _klatsch_candidates(game, hand)
    accepted: dict[Turn, int] = {}
    for text in candidates:
        trial = game.copy()
        try:
            result = trial.play(text)
        except CafeError:
            continue
        accepted[Turn.parse(text)] = result.points
    return accepted


def _check(game: Game) -> None:
    listed = dict(game.scored_turns())
    assert len(listed) == len(game.scored_turns()), "a turn is listed twice"
    for turn, points in listed.items():
        assert game.copy().play(turn).points == points, turn
    for turn, points in brute_force(game).items():
        if turn in listed:
            assert listed[turn] == points, turn
            continue
        reverse = Turn.seat(*reversed(turn.placements)) if len(turn.placements) == 2 else None
        assert reverse in listed, f"legal turn {turn} ({points}) not listed"
        assert listed[reverse] == points, f"{turn}: orders score differently, one missing"


def _positions(seed: int, players: int, options: Options, every: int) -> list[Game]:
    game = Game.new(["ann", "bob", "cid", "dan"][:players], seed=seed, options=options)
    bot = RandomBot(seed)
    found = []
    while not game.is_over:
        if len(game.history) % every == 0:
            found.append(game.copy())
        game.play(bot.choose(game))
    return found


@pytest.mark.parametrize(
    ("seed", "players", "options"),
    [
        (1, 2, Options()),
        (2, 3, Options()),
        (3, 4, Options()),
        (4, 3, Options(birthday=15)),
        (5, 4, Options(coffee_klatsch=True)),
    ],
)
def test_legal_turns_match_brute_force(seed: int, players: int, options: Options) -> None:
    for game in _positions(seed, players, options, every=9):
        _check(game)


def test_hand_with_jokers_matches_brute_force() -> None:
    """Jokers may sit anywhere: the widest generation, checked on a busy board."""
    game = Game.new(["ann", "bob"], seed=7)
    bot = RandomBot(7)
    for _ in range(14):
        game.play(bot.choose(game))
    position = game.to_position()
    seat = position["to_move"]
    hand = position["hands"][seat]
    jokers = ["Jf", "Jm"]
    for holder in (position["bag"], *position["hands"]):
        for joker in list(jokers):
            if joker in holder and holder is not hand:
                holder.remove(joker)
                holder.append(hand.pop(0))
                hand.append(joker)
                jokers.remove(joker)
    _check(Game.from_position(position))


@pytest.mark.parametrize(
    ("seed", "players", "options"),
    [(11, 2, Options()), (12, 3, Options(birthday=15)), (13, 4, Options(coffee_klatsch=True))],
)
def test_best_turns_are_the_hints_turns_and_points(
    seed: int, players: int, options: Options
) -> None:
    for game in _positions(seed, players, options, every=3):
        for n in (1, 3, 8):
            hints = [(hint.turn, hint.points) for hint in game.hints(n)]
            assert game.best_turns(n) == hints
