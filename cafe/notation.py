"""Turns as values, and their text (rulebook §13).

``Turn.parse`` reads what a player writes; ``str(turn)`` writes the canonical form, which
parses back to an equal turn. Reading needs no game: chairs are named by their tables, and
which free private chair ``DE1`` means is settled when the turn is played.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from enum import StrEnum

from cafe.board import CHAIR_COUNT, CHAIRS, NATIONS, SHARED_CHAIR, TABLES
from cafe.errors import NotationError
from cafe.i18n import lazy_gettext
from cafe.tiles import is_joker, parse_tile

MAX_PLACEMENTS = 4
NOSHRINK = "noshrink"
BIRTHDAY = "birthday"

_SEPARATORS = re.compile(r"[\s,]+")


class TurnKind(StrEnum):
    SEAT = "seat"
    BAR = "bar"
    SWAP = "swap"


@dataclass(frozen=True, slots=True)
class ChairRef:
    """A chair as written: its tables (one: a private chair, two sorted: the shared chair).

    ``number`` pins the exact chair when known (``#7``, or a turn the engine generated); it
    takes no part in equality, since the private chairs of one table are equivalent.
    """

    tables: tuple[str, ...]
    number: int | None = field(default=None, compare=False)

    @property
    def shared(self) -> bool:
        return len(self.tables) == 2

    @property
    def nations(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(table[:2] for table in self.tables))

    @classmethod
    def of_chair(cls, number: int) -> ChairRef:
        return CHAIR_REFS[number]

    @classmethod
    def parse(cls, text: str) -> ChairRef:
        if text.startswith("#"):
            digits = text[1:]
            if not digits.isdigit() or not 1 <= int(digits) <= CHAIR_COUNT:
                raise NotationError(
                    lazy_gettext(
                        "cannot read chair %(text)s: chairs are numbered #1 to #%(last)s",
                        text=repr(text),
                        last=CHAIR_COUNT,
                    ),
                    token=text,
                )
            return CHAIR_REFS[int(digits)]
        names = text.upper().split("-")
        for name in names:
            if name not in TABLES:
                raise NotationError(
                    lazy_gettext(
                        "cannot read chair %(text)s: %(name)s is not a table "
                        "(a table is a nation code and 1 or 2: DE1, US2)",
                        text=repr(text),
                        name=repr(name),
                    ),
                    token=text,
                )
        if len(names) == 1:
            return cls((names[0],))
        if len(names) == 2:
            pair = (min(names), max(names))
            if pair in SHARED_CHAIR:
                return CHAIR_REFS[SHARED_CHAIR[pair]]
            raise NotationError(
                lazy_gettext(
                    "cannot read chair %(text)s: %(first)s and %(second)s share no chair",
                    text=repr(text),
                    first=names[0],
                    second=names[1],
                ),
                token=text,
            )
        raise NotationError(
            lazy_gettext(
                "cannot read chair %(text)s: a chair is TABLE, TABLE-TABLE or #N", text=repr(text)
            ),
            token=text,
        )

    def __str__(self) -> str:
        return "-".join(self.tables)


#: The canonical reference of every chair, pinned to its number.
CHAIR_REFS: dict[int, ChairRef] = {
    number: ChairRef(chair.tables, number) for number, chair in CHAIRS.items()
}


@dataclass(frozen=True, slots=True)
class Placement:
    """One tile on one chair; ``nation`` is a joker's declared nation where it needs one."""

    tile: str
    chair: ChairRef
    nation: str | None = None

    def __post_init__(self) -> None:
        # A declaration the chair already implies is dropped, so equal turns compare equal.
        if self.nation is not None and self.chair.nations == (self.nation,):
            object.__setattr__(self, "nation", None)

    @classmethod
    def parse(cls, text: str) -> Placement:
        tile_text, at, chair_text = text.partition("@")
        if not at or not tile_text or not chair_text:
            raise NotationError(
                lazy_gettext(
                    "cannot read placement %(text)s: write TILE@CHAIR, e.g. DEf@DE1",
                    text=repr(text),
                ),
                token=text,
            )
        tile_text, equals, nation = tile_text.partition("=")
        tile = parse_tile(tile_text)
        declared = None
        if equals:
            declared = nation.upper()
            if not is_joker(tile):
                raise NotationError(
                    lazy_gettext(
                        "cannot read %(text)s: only a joker declares a nation", text=repr(text)
                    ),
                    token=text,
                )
            if declared not in NATIONS:
                raise NotationError(
                    lazy_gettext(
                        "cannot read %(text)s: unknown nation %(nation)s",
                        text=repr(text),
                        nation=repr(nation),
                    ),
                    token=text,
                )
        return cls(tile, ChairRef.parse(chair_text), declared)

    def __str__(self) -> str:
        return self.text()

    def text(self, *, exact: bool = False) -> str:
        """The placement's text; ``exact`` writes the chair as ``#N`` (needs its number)."""
        declared = f"={self.nation}" if self.nation else ""
        chair = f"#{self.chair.number}" if exact and self.chair.number else str(self.chair)
        return f"{self.tile}{declared}@{chair}"


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn: seat 1–4 placements in order, send ``tile`` to the bar, or swap a joker.

    A swap has one placement: the tile from the hand and the chair holding the joker.
    ``noshrink`` and ``birthday`` are the modifiers of rulebook §13.
    """

    kind: TurnKind
    placements: tuple[Placement, ...] = ()
    tile: str | None = None
    noshrink: bool = False
    birthday: str | None = None

    @classmethod
    def seat(
        cls, *placements: Placement, noshrink: bool = False, birthday: str | None = None
    ) -> Turn:
        return cls(TurnKind.SEAT, placements, noshrink=noshrink, birthday=birthday)

    @classmethod
    def bar(cls, tile: str, *, birthday: str | None = None) -> Turn:
        return cls(TurnKind.BAR, tile=tile, birthday=birthday)

    @classmethod
    def swap(cls, placement: Placement, *, birthday: str | None = None) -> Turn:
        return cls(TurnKind.SWAP, (placement,), birthday=birthday)

    @classmethod
    def parse(cls, text: str) -> Turn:
        """Read a turn in rulebook §13 notation; raise ``NotationError`` naming the bad token."""
        try:
            return _parse_turn(text)
        except NotationError as error:
            error.text = text
            raise

    def __str__(self) -> str:
        return self.text()

    def text(self, *, exact: Collection[int] = ()) -> str:
        """The turn's text: canonical, except that chairs numbered in ``exact`` are written
        ``#N`` (for a private chair that the table id would not name when replayed)."""
        placements = [p.text(exact=p.chair.number in exact) for p in self.placements]
        if self.kind is TurnKind.BAR:
            words = ["bar", str(self.tile)]
        elif self.kind is TurnKind.SWAP:
            words = ["swap", *placements]
        else:
            words = placements
        if self.noshrink:
            words.append(NOSHRINK)
        if self.birthday:
            words.append(f"{BIRTHDAY}={self.birthday}")
        return " ".join(words)

    def __repr__(self) -> str:
        return f"Turn.parse({str(self)!r})"


def _parse_turn(text: str) -> Turn:
    if not isinstance(text, str):
        raise NotationError(lazy_gettext("a turn is text, not %(type)s", type=type(text).__name__))
    tokens = [token for token in _SEPARATORS.split(text.strip()) if token]
    if not tokens:
        raise NotationError(
            lazy_gettext("empty turn: write placements (DEf@DE1), bar TILE or swap TILE@CHAIR")
        )
    tokens, noshrink, birthday = _split_modifiers(tokens)
    head = tokens[0].lower()
    if head in (TurnKind.BAR, TurnKind.SWAP):
        if noshrink:
            raise NotationError(
                lazy_gettext(
                    "'noshrink' applies only to a seating turn, not to %(kind)s", kind=head
                ),
                token=NOSHRINK,
            )
        if len(tokens) != 2:
            raise NotationError(
                lazy_gettext("bar takes exactly one tile: bar DEf")
                if head == TurnKind.BAR
                else lazy_gettext("swap takes exactly one placement: swap DEf@DE1-FR1"),
                token=" ".join(tokens),
            )
        if head == TurnKind.BAR:
            return Turn.bar(parse_tile(tokens[1]), birthday=birthday)
        return Turn.swap(Placement.parse(tokens[1]), birthday=birthday)
    if len(tokens) > MAX_PLACEMENTS:
        raise NotationError(
            lazy_gettext(
                "a seating turn places at most %(most)s guests, not %(count)s",
                most=MAX_PLACEMENTS,
                count=len(tokens),
            ),
            token=tokens[MAX_PLACEMENTS],
        )
    placements = tuple(Placement.parse(token) for token in tokens)
    return Turn.seat(*placements, noshrink=noshrink, birthday=birthday)


def _split_modifiers(tokens: list[str]) -> tuple[list[str], bool, str | None]:
    """Take the modifiers off the end of the turn; a modifier anywhere else is an error."""
    noshrink = False
    birthday: str | None = None
    while tokens:
        word = tokens[-1].lower()
        if word == NOSHRINK:
            if noshrink:
                raise NotationError(lazy_gettext("'noshrink' is written twice"), token=tokens[-1])
            noshrink = True
        elif word.startswith(f"{BIRTHDAY}="):
            if birthday is not None:
                raise NotationError(lazy_gettext("'birthday=' is written twice"), token=tokens[-1])
            birthday = word.partition("=")[2].upper()
            if birthday not in NATIONS:
                raise NotationError(
                    lazy_gettext(
                        "cannot read %(text)s: birthday= takes a nation code (%(nations)s)",
                        text=repr(tokens[-1]),
                        nations=", ".join(NATIONS),
                    ),
                    token=tokens[-1],
                )
        else:
            break
        tokens = tokens[:-1]
    for token in tokens:
        if token.lower() == NOSHRINK or token.lower().startswith(f"{BIRTHDAY}="):
            raise NotationError(
                lazy_gettext("modifier %(token)s must come last in the turn", token=repr(token)),
                token=token,
            )
    if not tokens:
        raise NotationError(lazy_gettext("a turn needs more than modifiers"), token=NOSHRINK)
    return tokens, noshrink, birthday
