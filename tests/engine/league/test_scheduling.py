"""The league schedule (docs/league.md, "Schedule") and division sizes: properties over every
division size and game size, many seeds; determinism from the published seed."""

from __future__ import annotations

import hashlib
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.fairbag import shuffled
from cafe.league.scheduling import (
    _Draws,
    default_rounds,
    division_sizes,
    game_sizes,
    pair_counts,
    schedule,
    seed_commitment,
)

SEEDS = [f"season-{i}".encode() for i in range(50)]


def names(n: int) -> list[str]:
    return [f"player{i:02d}" for i in range(n)]


def check(games: list[tuple[str, ...]], players: list[str], g: int, rounds: int) -> None:
    """Every promise of docs/league.md about one division's schedule."""
    played = Counter(p for game in games for p in game)
    assert played == dict.fromkeys(players, rounds)
    assert all(len(set(game)) == len(game) for game in games)
    assert all(list(game) == sorted(game) for game in games)
    assert games == sorted(games)
    sizes = sorted((len(game) for game in games), reverse=True)
    assert sizes == game_sizes(len(players), g, rounds)
    assert set(sizes) <= {g, g - 1}
    assert sizes.count(g - 1) == -len(players) * rounds % g  # the fewest short games
    counts = pair_counts(games)
    meetings = [counts.get(pair, 0) for pair in combinations(sorted(players), 2)]
    assert max(meetings) - min(meetings) <= 2


def test_default_rounds() -> None:
    assert default_rounds(8, 4) == 3
    assert default_rounds(4, 4) == 1
    assert default_rounds(5, 4) == 2
    assert default_rounds(12, 4) == 4
    assert default_rounds(8, 3) == 4
    assert default_rounds(9, 3) == 4
    assert default_rounds(7, 2) == 6
    assert default_rounds(2, 2) == 1


@pytest.mark.parametrize("g", [3, 4])
@pytest.mark.parametrize("n", range(4, 13))
def test_schedule_keeps_every_promise(n: int, g: int) -> None:
    players = names(n)
    rounds = default_rounds(n, g)
    for seed in SEEDS:
        check(schedule(players, g, seed=seed), players, g, rounds)


@pytest.mark.parametrize("n", range(2, 13))
def test_two_player_games_are_a_round_robin(n: int) -> None:
    players = names(n)
    for seed in SEEDS[:10]:
        games = schedule(players, 2, seed=seed)
        check(games, players, 2, n - 1)
        assert sorted(games) == list(combinations(players, 2))


def test_small_divisions_down_to_one_game() -> None:
    for g in (2, 3, 4):
        for n in range(g, 5):
            players = names(n)
            check(schedule(players, g, seed=b"s"), players, g, default_rounds(n, g))
    assert schedule(["c", "a", "d", "b"], 4, seed=b"x") == [("a", "b", "c", "d")]


@settings(max_examples=150, deadline=None)
@given(
    g=st.sampled_from([2, 3, 4]),
    n=st.integers(2, 12),
    rounds=st.integers(1, 9),
    seed=st.binary(max_size=8),
)
def test_any_number_of_rounds(g: int, n: int, rounds: int, seed: bytes) -> None:
    players = names(n)
    if n < g:
        with pytest.raises(ValueError, match="cannot fill"):
            schedule(players, g, rounds, seed=seed)
        return
    slots = n * rounds
    short = -slots % g
    if (g == 2 and short) or short > -(-slots // g):
        with pytest.raises(ValueError, match=r"rounds|even"):
            schedule(players, g, rounds, seed=seed)
        return
    check(schedule(players, g, rounds, seed=seed), players, g, rounds)


def test_two_player_double_round_robin_and_partial_rounds() -> None:
    players = names(6)
    games = schedule(players, 2, 10, seed=b"x")
    check(games, players, 2, 10)
    assert set(pair_counts(games).values()) == {2}
    partial = pair_counts(schedule(players, 2, 3, seed=b"x"))
    assert set(partial.values()) == {1}
    assert len(partial) == 9


def test_same_seed_same_schedule_whatever_the_input_order() -> None:
    players = names(10)
    first = schedule(players, 4, seed=b"published")
    assert schedule(list(reversed(players)), 4, seed=b"published") == first
    assert schedule(tuple(sorted(players, key=hash)), 4, seed=b"published") == first
    assert schedule(players, 4, default_rounds(10, 4), seed=b"published") == first


def test_different_seeds_usually_differ() -> None:
    for n, g in [(8, 4), (9, 3), (12, 4), (8, 2)]:
        players = names(n)
        distinct = {tuple(schedule(players, g, 2 if g == 2 else None, seed=s)) for s in SEEDS}
        assert len(distinct) >= 40, (n, g)


def test_a_published_schedule_stays_the_same() -> None:
    """Changing the algorithm changes every published season: this pins it."""
    players = ["Ada", "Bea", "Cy", "Dee", "Eve", "Flo", "Gus", "Hal"]
    assert schedule(players, 4, seed=b"league 1 season 1") == PINNED_8_4
    assert schedule(players[:7], 3, seed=b"league 2 season 3") == PINNED_7_3


PINNED_8_4 = [
    ("Ada", "Bea", "Cy", "Dee"),
    ("Ada", "Bea", "Gus", "Hal"),
    ("Ada", "Dee", "Flo", "Gus"),
    ("Bea", "Cy", "Eve", "Flo"),
    ("Cy", "Eve", "Gus", "Hal"),
    ("Dee", "Eve", "Flo", "Hal"),
]
PINNED_7_3 = [  # a Fano plane: every two players meet exactly once
    ("Ada", "Bea", "Cy"),
    ("Ada", "Dee", "Gus"),
    ("Ada", "Eve", "Flo"),
    ("Bea", "Dee", "Eve"),
    ("Bea", "Flo", "Gus"),
    ("Cy", "Dee", "Flo"),
    ("Cy", "Eve", "Gus"),
]


def test_the_stream_is_fairbags() -> None:
    items = list(range(20))
    draws = _Draws(b"seed", b"seats")
    draws.shuffle(items)
    assert items == shuffled(list(range(20)), b"seed", b"seats")


def test_impossible_input_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot fill a game of 4"):
        schedule(names(3), 4, seed=b"")
    with pytest.raises(ValueError, match="2, 3 or 4 players"):
        schedule(names(6), 5, seed=b"")
    with pytest.raises(ValueError, match="2, 3 or 4 players"):
        schedule(names(6), 1, seed=b"")
    with pytest.raises(ValueError, match="at least one game"):
        schedule(names(6), 3, 0, seed=b"")
    with pytest.raises(ValueError, match="twice"):
        schedule(["a", "b", "a", "c"], 3, seed=b"")
    with pytest.raises(ValueError, match="choose another number of rounds"):
        schedule(names(5), 4, 1, seed=b"")
    with pytest.raises(ValueError, match="even"):
        schedule(names(5), 2, 1, seed=b"")


def test_seed_commitment_is_sha256() -> None:
    assert seed_commitment(b"abc") == hashlib.sha256(b"abc").hexdigest()


@pytest.mark.parametrize(
    ("count", "size", "expected"),
    [
        (9, 8, [5, 4]),
        (5, 4, [5]),
        (17, 8, [6, 6, 5]),
        (1000, 8, [8] * 125),
        (1, 8, [1]),
        (3, 8, [3]),
        (8, 8, [8]),
        (16, 8, [8, 8]),
        (7, 4, [7]),
        (8, 4, [4, 4]),
        (11, 4, [6, 5]),
        (25, 12, [9, 8, 8]),
    ],
)
def test_division_sizes(count: int, size: int, expected: list[int]) -> None:
    assert division_sizes(count, size) == expected


@settings(max_examples=300, deadline=None)
@given(count=st.integers(1, 400), size=st.integers(4, 12))
def test_division_sizes_are_even_and_never_small(count: int, size: int) -> None:
    sizes = division_sizes(count, size)
    assert sum(sizes) == count
    assert sizes == sorted(sizes, reverse=True)
    assert max(sizes) - min(sizes) <= 1
    assert len(sizes) == 1 or min(sizes) >= 4
    assert len(sizes) <= -(-count // size)
    if len(sizes) < -(-count // size):  # fewer divisions only to avoid a small one
        assert count // (len(sizes) + 1) < 4


def test_division_sizes_refuses_nothing() -> None:
    with pytest.raises(ValueError):
        division_sizes(0, 8)
    with pytest.raises(ValueError):
        division_sizes(5, 0)
