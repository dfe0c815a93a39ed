"""Rulebook §2 (the board) and §7 (the bar's stool values): the engine's board data against
the tables of the rules the project was written from, copied here by hand."""

from __future__ import annotations

from itertools import combinations

from cafe.board import BAR_VALUES, CHAIRS, SHARED_CHAIR, TABLES

#: Rulebook §2: table → (grid position, its four chairs).
RULES_TABLES: dict[str, tuple[tuple[int, int], set[int]]] = {
    "AF1": ((1, 11), {54, 56, 57, 58}),
    "AF2": ((1, 9), {56, 59, 62, 63}),
    "CU1": ((1, 7), {62, 64, 65, 66}),
    "CU2": ((1, 5), {1, 65, 67, 68}),
    "TR1": ((1, 3), {1, 2, 3, 4}),
    "TR2": ((1, 1), {3, 8, 9, 10}),
    "DE1": ((3, 1), {7, 10, 11, 12}),
    "DE2": ((5, 1), {12, 13, 14, 15}),
    "US1": ((7, 1), {15, 16, 17, 18}),
    "US2": ((9, 1), {18, 19, 23, 24}),
    "IN1": ((11, 3), {20, 27, 28, 29}),
    "IN2": ((11, 1), {19, 20, 21, 22}),
    "RU1": ((11, 7), {31, 33, 34, 35}),
    "RU2": ((11, 5), {28, 30, 31, 32}),
    "ES1": ((11, 11), {37, 39, 40, 41}),
    "ES2": ((11, 9), {34, 36, 37, 38}),
    "CN1": ((7, 11), {45, 47, 48, 49}),
    "CN2": ((9, 11), {39, 42, 45, 46}),
    "IT1": ((3, 11), {51, 53, 54, 55}),
    "IT2": ((5, 11), {48, 50, 51, 52}),
    "GB1": ((3, 9), {53, 59, 60, 61}),
    "GB2": ((9, 9), {36, 42, 43, 44}),
    "FR1": ((3, 3), {4, 5, 6, 7}),
    "FR2": ((9, 3), {24, 25, 26, 27}),
}

#: Rulebook §2: chair coordinates, "chair:column,row".
RULES_CHAIR_COORDINATES = """
1:1,4 2:0,3 3:1,2 4:2,3 5:3,4 6:4,3 7:3,2 8:0,1 9:1,0 10:2,1 11:3,0 12:4,1 13:5,2
14:5,0 15:6,1 16:7,2 17:7,0 18:8,1 19:10,1 20:11,2 21:11,0 22:12,1 23:9,0 24:9,2
25:8,3 26:9,4 27:10,3 28:11,4 29:12,3 30:10,5 31:11,6 32:12,5 33:10,7 34:11,8
35:12,7 36:10,9 37:11,10 38:12,9 39:10,11 40:11,12 41:12,11 42:9,10 43:8,9 44:9,8
45:8,11 46:9,12 47:7,10 48:6,11 49:7,12 50:5,10 51:4,11 52:5,12 53:3,10 54:2,11
55:3,12 56:1,10 57:0,11 58:1,12 59:2,9 60:3,8 61:4,9 62:1,8 63:0,9 64:2,7 65:1,6
66:0,7 67:2,5 68:0,5
"""

#: The twenty ring tables in order around the bar (rulebook §2 layout).
RING = (
    *("AF1", "AF2", "CU1", "CU2", "TR1", "TR2", "DE1", "DE2", "US1", "US2"),
    *("IN2", "IN1", "RU2", "RU1", "ES2", "ES1", "CN2", "CN1", "IT2", "IT1"),
)
INNER = ("FR1", "FR2", "GB1", "GB2")


def _rules_coordinates() -> dict[int, tuple[int, int]]:
    coordinates = {}
    for entry in RULES_CHAIR_COORDINATES.split():
        chair, _, at = entry.partition(":")
        column, row = at.split(",")
        coordinates[int(chair)] = (int(column), int(row))
    return coordinates


def test_2_tables_and_their_chairs_are_those_of_the_rules() -> None:
    assert {table: (t.at, set(t.chairs)) for table, t in TABLES.items()} == RULES_TABLES


def test_2_chair_coordinates_are_those_of_the_rules() -> None:
    assert {number: chair.at for number, chair in CHAIRS.items()} == _rules_coordinates()


def test_2_twenty_four_tables_each_with_four_chairs() -> None:
    assert len(TABLES) == 24
    assert all(len(set(table.chairs)) == 4 for table in TABLES.values())


def test_2_sixty_eight_chairs_forty_private_twenty_eight_shared() -> None:
    assert sorted(CHAIRS) == list(range(1, 69))
    touching = {n: [t for t, (_, chairs) in RULES_TABLES.items() if n in chairs] for n in CHAIRS}
    assert sum(1 for tables in touching.values() if len(tables) == 1) == 40
    assert sum(1 for tables in touching.values() if len(tables) == 2) == 28
    assert all(len(tables) in (1, 2) for tables in touching.values())
    for number, chair in CHAIRS.items():
        assert sorted(chair.tables) == sorted(touching[number])
        assert chair.shared == (len(touching[number]) == 2)


def test_2_no_two_tables_share_more_than_one_chair() -> None:
    for first, second in combinations(TABLES.values(), 2):
        assert len(set(first.chairs) & set(second.chairs)) <= 1, (first.id, second.id)


def test_2_every_chair_is_next_to_each_of_its_tables() -> None:
    for chair in CHAIRS.values():
        for table in chair.tables:
            (x, y), (cx, cy) = TABLES[table].at, chair.at
            assert abs(x - cx) + abs(y - cy) == 1, (chair.number, table)


def test_2_ring_tables_share_one_chair_with_each_neighbour() -> None:
    for index, table in enumerate(RING):
        neighbour = RING[(index + 1) % len(RING)]
        assert tuple(sorted((table, neighbour))) in SHARED_CHAIR, (table, neighbour)


def test_2_inner_tables_share_chairs_only_with_ring_tables() -> None:
    for table in INNER:
        partners = [t for pair in SHARED_CHAIR if table in pair for t in pair if t != table]
        assert len(partners) == 2
        assert all(partner in RING for partner in partners)


def test_2_the_two_tables_of_a_nation_share_a_chair_except_france_and_britain() -> None:
    for nation in {table[:2] for table in TABLES}:
        pair = (f"{nation}1", f"{nation}2")
        assert (pair in SHARED_CHAIR) == (nation not in ("FR", "GB")), nation


def test_2_shared_chair_lookup_names_the_chair_of_both_tables() -> None:
    assert len(SHARED_CHAIR) == 28
    for (first, second), chair in SHARED_CHAIR.items():
        assert first < second
        assert chair in TABLES[first].chairs
        assert chair in TABLES[second].chairs


def test_7_bar_has_twenty_stools_with_the_rules_values_in_order() -> None:
    assert list(BAR_VALUES) == [
        *(1, 2, 3, 4, 5),
        *(-2, -4, -6, -8, -10),
        *(-4, -6, -8, -10, -12),
        *(-6, -8, -10, -12, -14),
    ]
