"""The café: 12 nations, 24 tables, 68 chairs and the bar (rulebook §1, §2, §7).

Everything here is fixed data, computed once at import, so that the rules can ask
"which tables does chair 18 touch?" with a tuple lookup instead of a search.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Nation codes (rulebook §1) with their names, in alphabetical order of the code.
NATIONS: dict[str, str] = {
    "AF": "Africa",
    "CN": "China",
    "CU": "Cuba",
    "DE": "Germany",
    "ES": "Spain",
    "FR": "France",
    "GB": "Britain",
    "IN": "India",
    "IT": "Italy",
    "RU": "Russia",
    "TR": "Turkey",
    "US": "USA",
}

#: Stool values in fill order (rulebook §7).
BAR_VALUES: tuple[int, ...] = (
    1, 2, 3, 4, 5,
    -2, -4, -6, -8, -10,
    -4, -6, -8, -10, -12,
    -6, -8, -10, -12, -14,
)  # fmt: skip

CHAIR_COUNT = 68
GRID_SIZE = 13


@dataclass(frozen=True, slots=True)
class Table:
    """A table: its id (``DE1``), nation, grid position and its four chairs."""

    id: str
    nation: str
    at: tuple[int, int]
    chairs: tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Chair:
    """A chair: its fixed number, grid position and the one or two tables it touches."""

    number: int
    at: tuple[int, int]
    tables: tuple[str, ...]

    @property
    def shared(self) -> bool:
        return len(self.tables) == 2

    @property
    def nations(self) -> frozenset[str]:
        return frozenset(table[:2] for table in self.tables)


_TABLE_DATA: dict[str, tuple[tuple[int, int], tuple[int, int, int, int]]] = {
    "AF1": ((1, 11), (54, 56, 57, 58)),
    "AF2": ((1, 9), (56, 59, 62, 63)),
    "CU1": ((1, 7), (62, 64, 65, 66)),
    "CU2": ((1, 5), (1, 65, 67, 68)),
    "TR1": ((1, 3), (1, 2, 3, 4)),
    "TR2": ((1, 1), (3, 8, 9, 10)),
    "DE1": ((3, 1), (7, 10, 11, 12)),
    "DE2": ((5, 1), (12, 13, 14, 15)),
    "US1": ((7, 1), (15, 16, 17, 18)),
    "US2": ((9, 1), (18, 19, 23, 24)),
    "IN1": ((11, 3), (20, 27, 28, 29)),
    "IN2": ((11, 1), (19, 20, 21, 22)),
    "RU1": ((11, 7), (31, 33, 34, 35)),
    "RU2": ((11, 5), (28, 30, 31, 32)),
    "ES1": ((11, 11), (37, 39, 40, 41)),
    "ES2": ((11, 9), (34, 36, 37, 38)),
    "CN1": ((7, 11), (45, 47, 48, 49)),
    "CN2": ((9, 11), (39, 42, 45, 46)),
    "IT1": ((3, 11), (51, 53, 54, 55)),
    "IT2": ((5, 11), (48, 50, 51, 52)),
    "GB1": ((3, 9), (53, 59, 60, 61)),
    "GB2": ((9, 9), (36, 42, 43, 44)),
    "FR1": ((3, 3), (4, 5, 6, 7)),
    "FR2": ((9, 3), (24, 25, 26, 27)),
}

_CHAIR_AT: dict[int, tuple[int, int]] = {
    1: (1, 4), 2: (0, 3), 3: (1, 2), 4: (2, 3), 5: (3, 4), 6: (4, 3), 7: (3, 2),
    8: (0, 1), 9: (1, 0), 10: (2, 1), 11: (3, 0), 12: (4, 1), 13: (5, 2), 14: (5, 0),
    15: (6, 1), 16: (7, 2), 17: (7, 0), 18: (8, 1), 19: (10, 1), 20: (11, 2), 21: (11, 0),
    22: (12, 1), 23: (9, 0), 24: (9, 2), 25: (8, 3), 26: (9, 4), 27: (10, 3), 28: (11, 4),
    29: (12, 3), 30: (10, 5), 31: (11, 6), 32: (12, 5), 33: (10, 7), 34: (11, 8),
    35: (12, 7), 36: (10, 9), 37: (11, 10), 38: (12, 9), 39: (10, 11), 40: (11, 12),
    41: (12, 11), 42: (9, 10), 43: (8, 9), 44: (9, 8), 45: (8, 11), 46: (9, 12),
    47: (7, 10), 48: (6, 11), 49: (7, 12), 50: (5, 10), 51: (4, 11), 52: (5, 12),
    53: (3, 10), 54: (2, 11), 55: (3, 12), 56: (1, 10), 57: (0, 11), 58: (1, 12),
    59: (2, 9), 60: (3, 8), 61: (4, 9), 62: (1, 8), 63: (0, 9), 64: (2, 7), 65: (1, 6),
    66: (0, 7), 67: (2, 5), 68: (0, 5),
}  # fmt: skip

TABLES: dict[str, Table] = {
    table_id: Table(table_id, table_id[:2], at, chairs)
    for table_id, (at, chairs) in sorted(_TABLE_DATA.items())
}


def _chair_tables(number: int) -> tuple[str, ...]:
    return tuple(sorted(t.id for t in TABLES.values() if number in t.chairs))


CHAIRS: dict[int, Chair] = {
    number: Chair(number, _CHAIR_AT[number], _chair_tables(number))
    for number in range(1, CHAIR_COUNT + 1)
}

#: The chair shared by two tables, keyed by the (sorted) pair of table ids.
SHARED_CHAIR: dict[tuple[str, ...], int] = {
    chair.tables: chair.number for chair in CHAIRS.values() if chair.shared
}

#: Private chairs of each table in ascending order (the order ``DE1`` resolves in).
PRIVATE_CHAIRS: dict[str, tuple[int, ...]] = {
    table.id: tuple(sorted(c for c in table.chairs if not CHAIRS[c].shared))
    for table in TABLES.values()
}

#: The tables of each nation.
NATION_TABLES: dict[str, tuple[str, str]] = {
    nation: (f"{nation}1", f"{nation}2") for nation in NATIONS
}

#: Every chair on which a guest of the nation may sit, ascending.
NATION_CHAIRS: dict[str, tuple[int, ...]] = {
    nation: tuple(sorted({c for table in NATION_TABLES[nation] for c in TABLES[table].chairs}))
    for nation in NATIONS
}


def chair_text(number: int) -> str:
    """Canonical text of a chair (rulebook §13): ``DE1`` if private, ``DE1-FR1`` if shared."""
    return "-".join(CHAIRS[number].tables)
