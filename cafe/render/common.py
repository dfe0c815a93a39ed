"""What both pictures share: nation colours, stool labels and the players' summary."""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass

from cafe.board import NATIONS
from cafe.game import Game
from cafe.i18n import gettext, ngettext
from cafe.render.quantities import signed

#: One colour per nation for the SVG (and for web pages that want to match it), loosely after
#: its flag, chosen so that the 12 stay distinct next to each other. The text picture has its
#: own terminal palette in the same hues (``board_text.ANSI_COLOURS``).
NATION_COLOURS: dict[str, str] = {
    "AF": "#a86b2d",  # ochre
    "CN": "#d7261e",  # red
    "CU": "#13988a",  # Caribbean teal
    "DE": "#3b3b3b",  # black
    "ES": "#f0b400",  # gold
    "FR": "#2f6fd6",  # blue
    "GB": "#1e2f6e",  # navy
    "IN": "#f07d18",  # saffron
    "IT": "#2e9a48",  # green
    "RU": "#5ab1e0",  # sky blue
    "TR": "#c2185b",  # crimson rose
    "US": "#6b3fa0",  # purple
}

#: Nations whose colour is light enough to need dark lettering on it.
LIGHT_NATIONS = frozenset({"ES", "RU"})

NAME_WIDTH = 16


@dataclass(frozen=True, slots=True)
class Seat:
    """One player as the pictures show them; ``place``, ``penalty`` and ``final`` (the score
    with the penalty for tiles left in hand) only once the game is over."""

    seat: int
    name: str
    score: int
    hand: tuple[str, ...]
    hand_limit: int
    eliminated: bool
    to_move: bool
    place: int | None = None
    penalty: int | None = None
    final: int | None = None


def seats(game: Game) -> list[Seat]:
    """The players in seat order, with their final places and scores if the game is over."""
    standings = {s.seat: s for s in game.standings()} if game.is_over else {}
    return [
        Seat(
            seat=seat,
            name=name,
            score=game.scores[seat],
            hand=tuple(game.hands[seat]),
            hand_limit=game.hand_limits[seat],
            eliminated=game.eliminated[seat],
            to_move=not game.is_over and seat == game.to_move,
            place=standings[seat].place if standings else None,
            penalty=standings[seat].penalty if standings else None,
            final=standings[seat].final if standings else None,
        )
        for seat, name in enumerate(game.players)
    ]


def headline(game: Game) -> str:
    """Whose turn it is, or who won: the one line a player looks for first."""
    if not game.is_over:
        return gettext("%(player)s to move", player=display_name(game.player_to_move))
    first = [display_name(s.player) for s in game.standings() if s.place == 1]
    final = next(s.final for s in game.standings() if s.place == 1)
    return shared_first(first, final)


def shared_first(names: list[str], final: int) -> str:
    """`Game over: ann wins with 95`, or the two, three or four who share first place with
    `final`: one whole message for each number of winners (a language joins names its own
    way)."""
    if len(names) == 1:
        return gettext("Game over: %(player)s wins with %(final)s", player=names[0], final=final)
    if len(names) == 2:
        return gettext(
            "Game over: %(first)s and %(second)s share first place with %(final)s",
            first=names[0],
            second=names[1],
            final=final,
        )
    if len(names) == 3:
        return gettext(
            "Game over: %(first)s, %(second)s and %(third)s share first place with %(final)s",
            first=names[0],
            second=names[1],
            third=names[2],
            final=final,
        )
    return gettext(
        "Game over: %(first)s, %(second)s, %(third)s and %(fourth)s share first place with "
        "%(final)s",
        first=names[0],
        second=names[1],
        third=names[2],
        fourth=names[3],
        final=final,
    )


def details(game: Game, minus: str = "-") -> list[str]:
    """The smaller facts, as short phrases: bag, next stool, variants, birthday nation."""
    stool = game.next_stool_value
    parts = [
        ngettext("%(num)s tile in the bag", "%(num)s tiles in the bag", game.bag_size),
        gettext("bar full")
        if stool is None
        else gettext("next bar stool %(value)s", value=signed(stool, minus)),
    ]
    if game.options.coffee_klatsch:
        parts.append(gettext("coffee klatsch"))
    if game.birthday_nation:
        nation = game.birthday_nation
        first, second = f"{nation}1", f"{nation}2"
        parts.append(
            gettext(
                "birthday: %(nation)s (%(first)s, %(second)s score double)",
                nation=NATIONS[nation],
                first=first,
                second=second,
            )
        )
    elif game.options.birthday is not None:
        parts.append(
            ngettext(
                "birthday table at %(num)s point",
                "birthday table at %(num)s points",
                game.options.birthday,
            )
        )
    return parts


def display_name(name: str, width: int = NAME_WIDTH) -> str:
    """A player name made safe for a picture: control characters (which could smuggle
    terminal escapes) become ``?``, and names wider than ``width`` columns are cut with ``…``.
    """
    safe = "".join("?" if unicodedata.category(ch).startswith("C") else ch for ch in name)
    if display_width(safe) <= width:
        return safe
    while display_width(safe) > width - 1:
        safe = safe[:-1]
    return safe + "…"


def display_width(text: str) -> int:
    """Terminal columns the text takes: wide (East Asian) characters count twice."""
    if text.isascii():  # no ASCII character is wide
        return len(text)
    return sum(map(_char_width, text))


@functools.lru_cache(maxsize=65536)
def _char_width(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1
