"""League points, the table's tiebreaks, promotion and relegation and the next season's
divisions (docs/league.md), on plain values."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.league.table import (
    POINT_UNITS,
    GameOutcome,
    Move,
    TableRow,
    first_divisions,
    game_outcome,
    game_points,
    next_divisions,
    order_table,
    placements,
    points_units,
    season_moves,
)


def places_of(groups: list[int]) -> list[int]:
    """Standings places for tie groups of the given sizes: [2, 1, 1] → 1, 1, 3, 4."""
    places, place = [], 1
    for size in groups:
        places += [place] * size
        place += size
    return places


def compositions(k: int) -> list[list[int]]:
    if k == 0:
        return [[]]
    return [[first, *rest] for first in range(1, k + 1) for rest in compositions(k - first)]


def row(player: str, points: int = 0, *, withdrawn: bool = False) -> TableRow:
    return TableRow(player, F(points), 0, 0, 3, left="withdrew" if withdrawn else None)


# League points


def test_a_full_four_player_game() -> None:
    points = game_points({"a": 1, "b": 2, "c": 3, "d": 4}, 4)
    assert points == {"a": 3, "b": 2, "c": 1, "d": 0}


def test_a_short_game_is_worth_as_much_as_a_full_one() -> None:
    assert game_points({"a": 1, "b": 2, "c": 3}, 4) == {"a": 3, "b": F(3, 2), "c": 0}
    assert game_points({"a": 2, "b": 1}, 4) == {"a": 0, "b": 3}
    assert game_points({"a": 1, "b": 2}, 3) == {"a": 2, "b": 0}
    assert game_points({"a": 1, "b": 2}, 2) == {"a": 1, "b": 0}


def test_tied_players_share_their_places_points() -> None:
    assert game_points({"a": 1, "b": 1, "c": 3, "d": 4}, 4) == {
        "a": F(5, 2),
        "b": F(5, 2),
        "c": 1,
        "d": 0,
    }
    assert game_points({"a": 1, "b": 2, "c": 2, "d": 2}, 4) == {"a": 3, "b": 1, "c": 1, "d": 1}
    assert game_points(dict.fromkeys("abcd", 1), 4) == dict.fromkeys("abcd", F(3, 2))
    assert game_points({"a": 1, "b": 1, "c": 3}, 4) == {"a": F(9, 4), "b": F(9, 4), "c": 0}
    assert game_points({"a": 1, "b": 2, "c": 2}, 4) == {"a": 3, "b": F(3, 4), "c": F(3, 4)}


@pytest.mark.parametrize("g", [2, 3, 4])
def test_every_possible_share_is_a_whole_number_of_units(g: int) -> None:
    """Every game size k ≤ g, every way of tying: 1/36 units are exact, no points get lost."""
    seen = set()
    for k in range(2, g + 1):
        for groups in compositions(k):
            places = dict(zip("abcd", places_of(groups), strict=False))
            points = game_points(places, g)
            assert sum(points.values()) == F(k * (g - 1), 2)
            for value in points.values():
                assert (value * POINT_UNITS).denominator == 1
                assert F(points_units(value), POINT_UNITS) == value
                seen.add(value)
    if g == 4:  # 36 is also needed: thirds of a quarter and ninths occur
        assert F(9, 4) in seen
        assert F(3, 4) in seen


def test_points_units() -> None:
    assert points_units(F(3)) == 108
    assert points_units(F(5, 2)) == 90
    assert points_units(F(1, 36)) == 1
    with pytest.raises(ValueError, match="1/36"):
        points_units(F(1, 72))


@pytest.mark.parametrize(
    "places",
    [{"a": 1}, {"a": 1, "b": 1, "c": 1, "d": 1, "e": 5}, {"a": 1, "b": 1, "c": 2}, {"a": 2}],
)
def test_places_that_are_not_standings_are_refused(places: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        game_points(places, 4)


def test_game_outcome_from_stored_standings() -> None:
    standings = [
        {"player": "ann", "place": 1, "final": 52, "seat": 2},
        {"player": "bob", "place": 1, "final": 52, "seat": 0},
        {"player": "cy", "place": 3, "final": 40, "seat": 1},
        {"player": "dee", "place": 4, "final": -5, "seat": 3},
    ]
    assert game_outcome(standings, 4) == {
        "ann": GameOutcome(F(5, 2), 52, True),
        "bob": GameOutcome(F(5, 2), 52, True),
        "cy": GameOutcome(F(1), 40, False),
        "dee": GameOutcome(F(0), -5, False),
    }
    with pytest.raises(ValueError, match="twice"):
        game_outcome([*standings[:3], {"player": "ann", "place": 4, "final": 0}], 4)


# The table


def test_tiebreaks_points_then_scores_then_wins_then_name() -> None:
    rows = [
        TableRow("zed", F(7), 100, 1, 3),
        TableRow("amy", F(6), 300, 3, 3),
        TableRow("bob", F(7), 120, 0, 3),
        TableRow("cat", F(7), 120, 2, 3),
        TableRow("Dan", F(7), 120, 2, 3),
        TableRow("dan", F(7), 120, 2, 3),
        TableRow("Abe", F(7), 120, 2, 3),
    ]
    ordered = [r.player for r in order_table(rows)]
    assert ordered == ["Abe", "cat", "Dan", "dan", "bob", "zed", "amy"]
    assert [r.player for r in order_table(reversed(rows))] == ordered


def test_players_who_left_are_listed_last_whatever_their_points() -> None:
    rows = [row("top", 9, withdrawn=True), row("mid", 5), row("low", 1), row("gone", 0)]
    rows[3] = TableRow("gone", F(0), 0, 0, 1, left="removed_on_time")
    ordered = order_table(rows)
    assert [r.player for r in ordered] == ["mid", "low", "top", "gone"]
    assert [r.withdrawn for r in ordered] == [False, False, True, True]


# Promotion and relegation


def three_divisions() -> list[list[TableRow]]:
    return [
        [row("a1", 9), row("a2", 8), row("a3", 7, withdrawn=True), row("a4", 6), row("a5", 5)],
        [row("b1", 9, withdrawn=True), row("b2", 8), row("b3", 7), row("b4", 6), row("b5", 5)],
        [row("c1", 9), row("c2", 8), row("c3", 7), row("c4", 6, withdrawn=True)],
    ]


def test_season_moves_across_three_divisions() -> None:
    moves = season_moves(three_divisions(), promote=2, relegate=2)
    assert moves == [
        Move("a4", 1, 2),
        Move("a5", 1, 2),
        Move("b2", 2, 1),
        Move("b3", 2, 1),
        Move("b4", 2, 3),
        Move("b5", 2, 3),
        Move("c1", 3, 2),
        Move("c2", 3, 2),
    ]


def test_withdrawn_players_take_no_slot() -> None:
    tables = [
        [row("a1"), row("a2"), row("a3"), row("a4", withdrawn=True)],
        [row("b1", withdrawn=True), row("b2"), row("b3"), row("b4")],
    ]
    assert season_moves(tables, 1, 1) == [Move("a3", 1, 2), Move("b2", 2, 1)]


def test_one_division_moves_nobody() -> None:
    assert season_moves([[row("a"), row("b"), row("c"), row("d")]], 2, 2) == []


def test_in_a_small_division_promotion_wins() -> None:
    tables = [
        [row(f"a{i}") for i in range(4)],
        [row("b1"), row("b2"), row("b3", withdrawn=True), row("b4", withdrawn=True)],
        [row(f"c{i}") for i in range(4)],
    ]
    moves = season_moves(tables, promote=2, relegate=2)
    assert [m for m in moves if m.from_division == 2] == [Move("b1", 2, 1), Move("b2", 2, 1)]
    tables[1][2] = row("b3")
    moves = season_moves(tables, promote=2, relegate=2)
    assert [m for m in moves if m.from_division == 2] == [
        Move("b1", 2, 1),
        Move("b2", 2, 1),
        Move("b3", 2, 3),
    ]
    assert season_moves(tables, 0, 0) == []
    with pytest.raises(ValueError):
        season_moves(tables, -1, 2)


# Next season's divisions


def test_next_divisions_with_moves_leavers_withdrawals_and_newcomers() -> None:
    tables = three_divisions()
    moves = season_moves(tables, 2, 2)
    divisions = next_divisions(
        tables, moves, leaving={"c3"}, newcomers=["n1", "n2", "n3"], division_size=5
    )
    # Division by division: relegated from above, stayers in final order, promoted from
    # below; a3, b1 and c4 withdrew and c3 left; then the newcomers. 13 players → 5, 4, 4.
    one = ["a1", "a2", "b2", "b3"]
    two = ["a4", "a5", "c1", "c2"]
    three = ["b4", "b5", "n1", "n2", "n3"]
    assert [p for d in divisions for p in d] == one + two + three
    assert divisions == [[*one, "a4"], ["a5", "c1", "c2", "b4"], ["b5", "n1", "n2", "n3"]]


def test_leavers_are_refilled_from_below_in_order() -> None:
    tables = [[row(f"a{i}") for i in range(1, 5)], [row(f"b{i}") for i in range(1, 5)]]
    moves = season_moves(tables, 1, 1)
    assert moves == [Move("a4", 1, 2), Move("b1", 2, 1)]
    divisions = next_divisions(
        tables, moves, leaving={"a1", "a2"}, newcomers=["n1", "n2"], division_size=4
    )
    # a3 b1 | a4 b2 b3 b4 | n1 n2: division 1 is refilled by the best relegated player first
    assert divisions == [["a3", "b1", "a4", "b2"], ["b3", "b4", "n1", "n2"]]


def test_next_divisions_can_shrink_to_one_and_grow() -> None:
    tables = [[row(f"a{i}") for i in range(1, 5)], [row(f"b{i}") for i in range(1, 5)]]
    moves = season_moves(tables, 1, 1)
    leaving = {"a1", "a2", "b1", "b2"}
    assert next_divisions(tables, moves, leaving=leaving, newcomers=[], division_size=4) == [
        ["a3", "a4", "b3", "b4"]
    ]
    grown = next_divisions(
        tables, moves, leaving=(), newcomers=[f"n{i}" for i in range(5)], division_size=4
    )
    assert [len(d) for d in grown] == [5, 4, 4]
    assert grown[-1] == ["n1", "n2", "n3", "n4"]


def test_next_divisions_refuses_nonsense() -> None:
    tables = [[row(f"a{i}") for i in range(1, 5)], [row(f"b{i}") for i in range(1, 5)]]
    with pytest.raises(ValueError, match="already placed"):
        next_divisions(tables, [], leaving=(), newcomers=["a1"], division_size=4)
    with pytest.raises(ValueError, match="twice"):
        next_divisions(tables, [], leaving=(), newcomers=["n", "n"], division_size=4)
    with pytest.raises(ValueError, match="not in division"):
        next_divisions(tables, [Move("a1", 2, 1)], leaving=(), newcomers=[], division_size=4)
    with pytest.raises(ValueError, match="cannot move"):
        next_divisions(tables, [Move("a1", 1, 0)], leaving=(), newcomers=[], division_size=4)
    everyone = {r.player for t in tables for r in t}
    assert next_divisions(tables, [], leaving=everyone, newcomers=[], division_size=4) == []


@settings(max_examples=100, deadline=None)
@given(
    sizes=st.lists(st.integers(4, 12), min_size=1, max_size=5),
    promote=st.integers(0, 3),
    relegate=st.integers(0, 3),
    data=st.data(),
)
def test_next_divisions_keeps_everyone_staying(
    sizes: list[int], promote: int, relegate: int, data: st.DataObject
) -> None:
    tables = [
        [row(f"d{d}p{i}", withdrawn=i % 3 == 0 and data.draw(st.booleans())) for i in range(size)]
        for d, size in enumerate(sizes)
    ]
    everyone = [r.player for t in tables for r in t]
    leaving = set(data.draw(st.lists(st.sampled_from(everyone), max_size=6)))
    newcomers = [f"new{i}" for i in range(data.draw(st.integers(0, 10)))]
    moves = season_moves(tables, promote, relegate)
    assert len({m.player for m in moves}) == len(moves)
    size = data.draw(st.integers(4, 12))
    divisions = next_divisions(
        tables, moves, leaving=leaving, newcomers=newcomers, division_size=size
    )
    staying = {r.player for t in tables for r in t if not r.withdrawn} - leaving
    flat = [p for d in divisions for p in d]
    assert sorted(flat) == sorted(staying | set(newcomers))
    assert flat[len(flat) - len(newcomers) :] == newcomers
    if flat:
        lengths = [len(d) for d in divisions]
        assert max(lengths) - min(lengths) <= 1
        assert len(lengths) == 1 or min(lengths) >= 4


def test_placements_say_why_each_player_is_where_they_are() -> None:
    tables = [[row(f"a{i}") for i in range(1, 5)], [row(f"b{i}") for i in range(1, 5)]]
    moves = season_moves(tables, 1, 1)  # a4 down, b1 up
    divisions = next_divisions(tables, moves, leaving=(), newcomers=["n1"], division_size=4)
    # nine players: divisions of 5 and 4, so a4 (relegated first into division 2) is the
    # fifth of the list and stays in division 1 to fill a place
    assert divisions == [["a1", "a2", "a3", "b1", "a4"], ["b2", "b3", "b4", "n1"]]
    why = placements(tables, moves, divisions, newcomers={"n1"})
    assert {name: (p.reason, p.from_division) for name, p in why.items()} == {
        "a1": ("stayed", 1), "a2": ("stayed", 1), "a3": ("stayed", 1),
        "b1": ("up", 2), "a4": ("filled", 1),
        "b2": ("stayed", 2), "b3": ("stayed", 2), "b4": ("stayed", 2),
        "n1": ("new", None),
    }  # fmt: skip


def test_placements_of_players_moved_up_or_down_by_the_refilling() -> None:
    tables = [[row(f"a{i}") for i in range(1, 6)], [row(f"b{i}") for i in range(1, 6)]]
    moves = season_moves(tables, 1, 1)  # a5 down, b1 up
    # b2 and b3 leave: eight players, 4 and 4, so b1's promotion is undone
    down = next_divisions(tables, moves, leaving={"b2", "b3"}, newcomers=[], division_size=5)
    assert down == [["a1", "a2", "a3", "a4"], ["b1", "a5", "b4", "b5"]]
    why = placements(tables, moves, down, newcomers=set())
    assert (why["b1"].reason, why["b1"].from_division) == ("evened", 2)
    assert why["a5"].reason == "down" and why["a4"].reason == "stayed"
    # and with four more newcomers, ten in 5 and 5: a5 moves down, b1 up, as announced
    more = next_divisions(tables, moves, leaving={"b2", "b3", "b4", "b5"},
                          newcomers=["n1", "n2", "n3", "n4"], division_size=5)  # fmt: skip
    assert more[0] == ["a1", "a2", "a3", "a4", "b1"]
    assert placements(tables, moves, more, newcomers={"n1", "n2", "n3", "n4"})["b1"].reason == "up"
    # a1 and a2 leave: b2, the best of those staying in division 2, moves up to fill
    up = next_divisions(tables, moves, leaving={"a1", "a2"}, newcomers=[], division_size=5)
    assert up == [["a3", "a4", "b1", "a5"], ["b2", "b3", "b4", "b5"]]
    why = placements(tables, moves, up, newcomers=set())
    assert (why["a5"].reason, why["a5"].from_division) == ("filled", 1)  # kept up
    assert why["b2"].reason == "stayed"


def test_first_divisions_cut_the_rating_order() -> None:
    players = [f"p{i:02d}" for i in range(17)]
    divisions = first_divisions(players, 8)
    assert divisions == [players[:6], players[6:12], players[12:]]
    assert first_divisions(["a", "b", "c"], 8) == [["a", "b", "c"]]
    assert first_divisions([], 8) == []
    with pytest.raises(ValueError):
        first_divisions(["a", "a", "b", "c"], 8)
