"""Guest tiles (rulebook §1): parsing, canonical text and the full set of 100.

A tile is represented by its canonical text (``DEf``, ``Jm``): a string is hashable, cheap to
compare and prints as the player writes it. The helpers below answer the two questions the
rules ask of a tile: its nation (``None`` for a joker) and its gender (``f`` or ``m``).
"""

from __future__ import annotations

from collections import Counter

from cafe.board import NATIONS
from cafe.errors import NotationError
from cafe.i18n import Text, lazy_gettext

JOKER = "J"
LADY = "f"
GENTLEMAN = "m"

#: All 100 tiles in the canonical order the fair bag shuffles (docs/formats.md, "Fair bag"):
#: nations in alphabetical order of their code, each with 4 ladies then 4 gentlemen,
#: followed by the jokers Jf, Jf, Jm, Jm.
ALL_TILES: tuple[str, ...] = (
    *(f"{nation}{gender}" for nation in NATIONS for gender in (LADY,) * 4 + (GENTLEMAN,) * 4),
    "Jf",
    "Jf",
    "Jm",
    "Jm",
)

TILE_COUNTS: Counter[str] = Counter(ALL_TILES)

_CANONICAL: dict[str, str] = {tile.upper(): tile for tile in TILE_COUNTS}


def parse_tile(text: str) -> str:
    """Read a tile case-insensitively (``def`` → ``DEf``); raise ``NotationError`` if unknown."""
    tile = _CANONICAL.get(text.upper())
    if tile is not None:
        return tile
    reason: Text
    if len(text) == 3 and text[:2].upper() not in NATIONS:
        reason = lazy_gettext(
            "unknown nation %(nation)s (nations: %(nations)s)",
            nation=repr(text[:2].upper()),
            nations=", ".join(NATIONS),
        )
    elif len(text) in (2, 3) and text[-1].lower() not in (LADY, GENTLEMAN):
        reason = lazy_gettext("a tile ends in f (lady) or m (gentleman)")
    else:
        reason = lazy_gettext("a tile is a nation code and f or m (DEf, USm) or a joker (Jf, Jm)")
    raise NotationError(
        lazy_gettext("cannot read tile %(text)s: %(reason)s", text=repr(text), reason=reason),
        token=text,
    )


def is_joker(tile: str) -> bool:
    return tile[0] == JOKER


def nation_of(tile: str) -> str | None:
    """The tile's nation code, or ``None`` for a joker."""
    return None if tile[0] == JOKER else tile[:2]


def gender_of(tile: str) -> str:
    """``f`` for a lady, ``m`` for a gentleman (jokers included)."""
    return tile[-1]
