"""The mutable state of a game, kept in the shapes the rules read fastest.

``Seating`` holds who sits on which chair and, per table, tallies (guests, ladies, the one
nation they share) that are updated on every seat so scoring never re-scans the board.
``State`` adds the players, the bar and the bag. Both are internal: ``cafe.game.Game`` is
the public face.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from cafe.board import BAR_VALUES, CHAIR_COUNT, CHAIRS, NATION_TABLES, TABLES
from cafe.tiles import JOKER, LADY

KLATSCH_POINTS = 20

#: ``Seating.table_nation`` for a table whose guests are of more than one nation.
MIXED = ""

CHAIR_TABLES: tuple[tuple[str, ...], ...] = ((), *(CHAIRS[c].tables for c in CHAIRS))


@dataclass(frozen=True, slots=True)
class Options:
    """The variants of rulebook §11, fixed when a game is created.

    ``birthday`` is the points threshold of the birthday-table variant (``None``: off).
    """

    birthday: int | None = None
    coffee_klatsch: bool = False

    def __post_init__(self) -> None:
        if self.birthday is not None and (
            isinstance(self.birthday, bool)
            or not isinstance(self.birthday, int)
            or self.birthday < 1
        ):
            raise ValueError(
                f"birthday threshold must be a positive integer, not {self.birthday!r}"
            )

    def to_dict(self) -> dict[str, object]:
        return {"birthday": self.birthday, "coffee_klatsch": self.coffee_klatsch}


def klatsch_points(single_nation: bool, birthday: bool) -> int:
    """What a table filled with four ladies or four gentlemen in one turn scores (§11)."""
    return KLATSCH_POINTS * (2 if single_nation else 1) * (2 if birthday else 1)


def table_points(guests: int, single_nation: bool, birthday: bool) -> int:
    """What one placement scores at one table that now seats ``guests`` (rulebook §6, §11)."""
    if guests < 2:
        return 0
    points = guests * 2 if single_nation else guests
    return points * 2 if birthday else points


class Seating:
    """Tiles on chairs, with per-table tallies kept current."""

    __slots__ = ("count", "jokers", "ladies", "nation", "seated", "table_nation", "tile")

    def __init__(self) -> None:
        self.tile: list[str | None] = [None] * (CHAIR_COUNT + 1)
        self.nation: list[str | None] = [None] * (CHAIR_COUNT + 1)
        self.count: dict[str, int] = dict.fromkeys(TABLES, 0)
        self.ladies: dict[str, int] = dict.fromkeys(TABLES, 0)
        self.table_nation: dict[str, str | None] = dict.fromkeys(TABLES)
        self.jokers: set[int] = set()
        self.seated = 0

    def copy(self) -> Seating:
        other = Seating.__new__(Seating)
        other.tile = self.tile.copy()
        other.nation = self.nation.copy()
        other.count = self.count.copy()
        other.ladies = self.ladies.copy()
        other.table_nation = self.table_nation.copy()
        other.jokers = set(self.jokers)
        other.seated = self.seated
        return other

    def seat(self, chair: int, tile: str, nation: str) -> None:
        """Put a tile counting as ``nation`` on a free chair."""
        self.tile[chair] = tile
        self.nation[chair] = nation
        self.seated += 1
        if tile[0] == JOKER:
            self.jokers.add(chair)
        lady = tile[-1] == LADY
        for table in CHAIR_TABLES[chair]:
            before = self.count[table]
            self.count[table] = before + 1
            if lady:
                self.ladies[table] += 1
            if before == 0:
                self.table_nation[table] = nation
            elif self.table_nation[table] != nation:
                self.table_nation[table] = MIXED

    def unseat(self, chair: int) -> None:
        """Take the tile off a chair (to undo a refused turn, or for a joker swap)."""
        self.tile[chair] = None
        self.nation[chair] = None
        self.seated -= 1
        self.jokers.discard(chair)
        for table in CHAIR_TABLES[chair]:
            self._retally(table)

    def _retally(self, table: str) -> None:
        guests = self.guests(table)
        self.count[table] = len(guests)
        self.ladies[table] = sum(1 for _, tile in guests if tile[-1] == LADY)
        nations = {self.nation[c] for c, _ in guests}
        self.table_nation[table] = (
            None if not nations else nations.pop() if len(nations) == 1 else MIXED
        )

    def guests(self, table: str) -> list[tuple[int, str]]:
        """The (chair, tile) pairs seated at a table."""
        return [(c, t) for c in TABLES[table].chairs if (t := self.tile[c]) is not None]

    def free_private(self, table: str) -> list[int]:
        return [c for c in TABLES[table].chairs if len(CHAIR_TABLES[c]) == 1 and not self.tile[c]]

    def single_nation_full(self, table: str) -> bool:
        return self.count[table] == 4 and bool(self.table_nation[table])


@dataclass(slots=True)
class State:
    """Everything a position (docs/formats.md) holds, plus the seed and who may name a
    birthday."""

    players: tuple[str, ...]
    to_move: int
    scores: list[int]
    hands: list[list[str]]
    hand_limits: list[int]
    eliminated: list[bool]
    seating: Seating
    bar: list[str]
    bag: list[str]
    options: Options = field(default_factory=Options)
    birthday_nation: str | None = None
    birthday_player: int | None = None
    elimination_order: list[int] = field(default_factory=list)
    seed: bytes | None = None
    commitment: str | None = None
    over: bool = False
    #: Why the game was ended by adjudication (``Game.adjudicate``); None: it was not.
    adjudication: str | None = None

    def copy(self) -> State:
        """An independent copy: every mutable part copied, immutable parts shared."""
        return replace(
            self,
            scores=list(self.scores),
            hands=[list(hand) for hand in self.hands],
            hand_limits=list(self.hand_limits),
            eliminated=list(self.eliminated),
            seating=self.seating.copy(),
            bar=list(self.bar),
            bag=list(self.bag),
            elimination_order=list(self.elimination_order),
        )

    @property
    def next_stool_value(self) -> int | None:
        return BAR_VALUES[len(self.bar)] if len(self.bar) < len(BAR_VALUES) else None

    def birthday_tables(self) -> tuple[str, ...]:
        return NATION_TABLES[self.birthday_nation] if self.birthday_nation else ()

    def in_game(self) -> list[int]:
        return [seat for seat, out in enumerate(self.eliminated) if not out]
