"""The board as a standalone SVG image for web pages and emails.

The 13×13 grid of rulebook §2 becomes a café floor: round tables in their nation's colour,
each joined by a coloured band to its four chairs, so a shared chair between two tables
shows both colours. A guest is a disc in its nation's colour with the nation code and ♀/♂;
a joker is a cream disc with a gold ring (and a badge for a declared nation); a free chair
is a cushion with its number. The bar fills the centre: 20 stools in fill order, four rows
of five, the next one ringed. A header says whose turn it is; a footer lists the players.

The image is self-contained (no scripts, fonts, links or images), and its parts carry ids
(``table-DE1``, ``chair-17``, ``stool-3``, ``player-0``) and ``data-`` attributes so that
tests and web pages can find them.
"""

from __future__ import annotations

from collections.abc import Collection
from html import escape as _escape

from cafe.board import BAR_VALUES, CHAIRS, GRID_SIZE, TABLES, Chair, Table
from cafe.game import Game
from cafe.i18n import gettext, nation_name
from cafe.render.common import (
    LIGHT_NATIONS,
    NATION_COLOURS,
    Seat,
    details,
    display_name,
    headline,
    seats,
)
from cafe.render.palette import (
    CUSHION,
    CUSHION_EDGE,
    FLOOR,
    FLOOR_EDGE,
    GOLD,
    HIGHLIGHT,
    INK,
    JOKER,
    JOKER_EDGE,
    MUTED,
    ON_DARK,
    PAPER,
    SEAT,
    WOOD,
    WOOD_EDGE,
)
from cafe.render.quantities import points, signed
from cafe.tiles import LADY, gender_of, nation_of


def escape(text: str) -> str:
    """`text` safe inside an XML element. (`html.escape` rather than `xml.sax.saxutils`,
    which pulls in `urllib.request`, `ssl` and `email`: a third of `cafe show`'s start-up.)"""
    return _escape(text, quote=False)


def quoteattr(text: str) -> str:
    """`text` as a double-quoted XML attribute value."""
    return '"' + _escape(text, quote=True) + '"'


CELL = 64
PAD = 24
HEADER = 96
BOARD = GRID_SIZE * CELL
WIDTH = BOARD + 2 * PAD
ROW = 46  # height of a player's line in the footer
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"

GENDER_SYMBOLS = {"f": "♀", "m": "♂"}
#: The radius of a free chair's invisible tap target (filled, so that it takes taps, but
#: transparent): chairs are 1.41 cells apart at the
#: closest (diagonally), so targets this size never overlap, and on a 375 px phone, where a
#: cell is about 26 px, one is about 34 px across.
TARGET = 42


def svg(
    game: Game, *, frame: bool = True, highlight: Collection[int] = (), targets: bool = False
) -> str:
    """The picture as SVG text: the board with the bar, and with ``frame`` the header above
    it and the players' footer below (a web page shows those as text instead). Chairs in
    ``highlight`` (the last turn's) are ringed. With ``targets`` each free chair gets an
    invisible round tap target wider than its cushion, the picture a margin to hold those of
    the outer chairs (a page that seats guests by tapping chairs)."""
    seated = game.chair_tiles
    board = [
        _tag("rect", x=PAD, y=HEADER, width=BOARD, height=BOARD, rx=24, fill=FLOOR,
             stroke=FLOOR_EDGE, stroke_width=2),
        *(_links(table) for table in TABLES.values()),
        _bar(game),
        *(_table(table, game.birthday_nation) for table in TABLES.values()),
        *(_chair(chair, seated.get(chair.number), chair.number in highlight, targets)
          for chair in CHAIRS.values()),
    ]  # fmt: skip
    if not frame:
        edge = TARGET - CELL // 2 if targets else 0  # room for the edge chairs' targets
        box = f"{PAD - edge} {HEADER - edge} {BOARD + 2 * edge} {BOARD + 2 * edge}"
        title = _tag(
            "title", escape(gettext("The board and the bar: %(news)s", news=headline(game)))
        )
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{box}" font-family="{FONT}" '
            f'text-anchor="middle" role="img">\n{title}\n' + "\n".join(board) + "\n</svg>\n"
        )
    players = seats(game)
    height = HEADER + BOARD + PAD + 40 + ROW * len(players) + PAD
    parts = [
        _tag("title", escape(gettext("Café International: %(news)s", news=headline(game)))),
        _tag("rect", width=WIDTH, height=height, fill=PAPER),
        _header(game),
        *board,
        _footer(game, players, HEADER + BOARD + PAD),
    ]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="{FONT}" text-anchor="middle" '
        'role="img">\n' + "\n".join(parts) + "\n</svg>\n"
    )


# --- building blocks -------------------------------------------------------------------------


def _tag(name: str, content: str = "", **attrs: object) -> str:
    """One element; ``class_`` becomes ``class`` and ``stroke_width`` ``stroke-width``,
    a float as short as it reads (``120`` for ``120.0``: the board has hundreds of them).
    ``content`` must already be markup (escape text with ``escape``)."""
    text = "".join(
        f" {key.rstrip('_').replace('_', '-')}="
        + (f'"{value:g}"' if isinstance(value, float) else quoteattr(str(value)))
        for key, value in attrs.items()
    )
    return f"<{name}{text}>{content}</{name}>" if content else f"<{name}{text}/>"


def _text(x: float, y: float, label: str, size: float, fill: str, **attrs: object) -> str:
    """Text centred on (x, y): the baseline sits a third of the size below the centre (the
    picture's `text-anchor` is `middle`, so that hundreds of labels need not say it)."""
    return _tag("text", escape(label), x=x, y=round(y + size * 0.35, 1), font_size=size,
                fill=fill, **attrs)  # fmt: skip


def _centre(at: tuple[int, int]) -> tuple[float, float]:
    """Pixel centre of a grid cell; row 0 is at the bottom of the board."""
    col, row = at
    return PAD + (col + 0.5) * CELL, HEADER + (GRID_SIZE - 0.5 - row) * CELL


def _guest(tile: str, x: float, y: float, r: float) -> str:
    """A guest disc: nation code over ♀/♂ in the nation's colour; a joker in silver with a
    dashed grey ring (no nation's colour: Spain's is gold), with a badge in the nation's
    colour when it was declared one (``Jf=FR``)."""
    base, _, declared = tile.partition("=")
    symbol = GENDER_SYMBOLS[gender_of(base)]
    nation = nation_of(base)
    size = r * 0.62
    if nation is None:
        parts = [
            _tag(
                "circle",
                cx=x,
                cy=y,
                r=r - 1.5,
                fill=JOKER,
                stroke=JOKER_EDGE,
                stroke_width=3,
                stroke_dasharray="4 2",
            ),
            _text(x, y - size * 0.5, "J", size * 1.1, INK, font_weight="bold"),
            _text(x, y + size * 0.75, symbol, size, INK, font_weight="bold"),
        ]
        if declared:
            parts.append(_badge(declared, x + r * 0.8, y - r * 0.8, r * 0.42))
        return "".join(parts)
    ink = INK if nation in LIGHT_NATIONS else ON_DARK
    return "".join([
        _tag("circle", cx=x, cy=y, r=r, fill=NATION_COLOURS[nation], stroke=ON_DARK,
             stroke_width=2),
        _text(x, y - size * 0.5, nation, size, ink, font_weight="bold"),
        _text(x, y + size * 0.75, symbol, size, ink),
    ])  # fmt: skip


def _badge(nation: str, x: float, y: float, r: float) -> str:
    ink = INK if nation in LIGHT_NATIONS else ON_DARK
    disc = _tag("circle", cx=x, cy=y, r=r, fill=NATION_COLOURS[nation], stroke=ON_DARK,
                stroke_width=1.5)  # fmt: skip
    return disc + _text(x, y, nation, r * 0.95, ink, font_weight="bold")


def describe_tile(tile: str) -> str:
    """Words for a tooltip, in the language in use: ``DEf: lady from Germany``, ``Jf=FR:
    joker lady counting as France`` (one message for each gender, which the nouns and
    adjectives of other languages agree with)."""
    base, _, declared = tile.partition("=")
    lady = gender_of(base) == LADY
    nation = nation_of(base)
    if nation:
        named = nation_name(nation)
        if lady:
            return gettext("%(tile)s: lady from %(nation)s", tile=tile, nation=named)
        return gettext("%(tile)s: gentleman from %(nation)s", tile=tile, nation=named)
    if declared:
        named = nation_name(declared)
        if lady:
            return gettext("%(tile)s: joker lady counting as %(nation)s", tile=tile, nation=named)
        return gettext("%(tile)s: joker gentleman counting as %(nation)s", tile=tile, nation=named)
    if lady:
        return gettext("%(tile)s: joker lady", tile=tile)
    return gettext("%(tile)s: joker gentleman", tile=tile)


# --- the board -------------------------------------------------------------------------------


def _links(table: Table) -> str:
    """Bands from a table to its chairs in the table's colour (a shared chair gets two), as
    one path: the board draws 96 of them, and one element per table keeps the picture small."""
    x, y = _centre(table.at)
    legs = "".join(
        f"M{x:g} {y:g}L{cx:g} {cy:g}"
        for cx, cy in (_centre(CHAIRS[number].at) for number in table.chairs)
    )
    return _tag("path", d=legs, stroke=NATION_COLOURS[table.nation], stroke_width=9,
                stroke_opacity=0.45, stroke_linecap="round", fill="none")  # fmt: skip


def _table(table: Table, birthday: str | None) -> str:
    """A table top: larger than a guest, pale with a ring in its nation's colour, so tables
    and the saturated guest discs never look alike."""
    x, y = _centre(table.at)
    colour = NATION_COLOURS[table.nation]
    tooltip = gettext(
        "%(table)s: %(nation)s, chairs %(chairs)s",
        table=table.id,
        nation=nation_name(table.nation),
        chairs=", ".join(map(str, table.chairs)),
    )
    parts = [_tag("title", escape(tooltip))]
    if table.nation == birthday:
        parts.append(_tag("circle", cx=x, cy=y, r=32, fill="none", stroke=GOLD, stroke_width=3,
                          stroke_dasharray="5 3"))  # fmt: skip
    parts += [
        _tag("circle", cx=x, cy=y, r=27, fill=_tint(colour, 0.78), stroke=colour, stroke_width=5),
        _text(x, y, table.id, 15, _shade(colour), font_weight="bold"),
    ]
    birthday_class = " birthday" if table.nation == birthday else ""
    return _tag("g", "".join(parts), id=f"table-{table.id}", class_=f"table{birthday_class}",
                data_nation=table.nation)  # fmt: skip


def _tint(colour: str, amount: float) -> str:
    """The colour mixed with white (``amount`` 1 is white)."""
    return _mix(colour, 255, amount)


def _shade(colour: str) -> str:
    """A darker version of the colour, for lettering that must read on its tint."""
    return _mix(colour, 0, 0.35)


def _mix(colour: str, towards: int, amount: float) -> str:
    channels = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c + (towards - c) * amount):02x}" for c in channels)


def _chair(chair: Chair, tile: str | None, highlighted: bool = False, target: bool = False) -> str:
    x, y = _centre(chair.at)
    where = (
        gettext("%(first)s and %(second)s", first=chair.tables[0], second=chair.tables[1])
        if len(chair.tables) == 2
        else chair.tables[0]
    )
    kind = "shared" if chair.shared else "private"
    attrs = {"id": f"chair-{chair.number}", "data_tables": " ".join(chair.tables)}
    if tile is None:
        tap = (
            _tag("circle", cx=x, cy=y, r=TARGET, fill_opacity=0, class_="target") if target else ""
        )
        free = gettext("chair %(number)s (%(tables)s): free", number=chair.number, tables=where)
        body = _tag("title", escape(free)) + tap + _tag(
            "rect", x=x - 19, y=y - 19, width=38, height=38, rx=10, fill=CUSHION,
            stroke=CUSHION_EDGE, stroke_width=1.5,
        ) + _text(x, y, str(chair.number), 20, MUTED, font_weight="bold")  # fmt: skip
        return _tag("g", body, class_=f"chair free {kind}", **attrs)
    taken = gettext(
        "chair %(number)s (%(tables)s): %(guest)s",
        number=chair.number,
        tables=where,
        guest=describe_tile(tile),
    )
    body = _tag("title", escape(taken))
    ring = (
        _tag("circle", cx=x, cy=y, r=28, fill="none", stroke=HIGHLIGHT, stroke_width=5)
        if highlighted
        else ""
    )
    last = " last" if highlighted else ""
    return _tag("g", body + ring + _guest(tile, x, y, 22), class_=f"chair taken {kind}{last}",
                data_tile=tile, **attrs)  # fmt: skip


# --- the bar ---------------------------------------------------------------------------------


def _bar(game: Game) -> str:
    """The counter in the free centre of the grid (columns 4–8, rows 8–4) with its stools."""
    left, top = PAD + 4 * CELL + 6, HEADER + 4 * CELL + 6
    size = 5 * CELL - 12
    parts = [
        _tag("rect", x=left, y=top, width=size, height=size, rx=22, fill=WOOD,
             stroke=WOOD_EDGE, stroke_width=3),
        _text(left + size / 2, top + 22, gettext("BAR"), 18, "#f6e7cf", font_weight="bold",
              letter_spacing=4),
        _text(left + size / 2, top + size - 14, _bar_note(game), 13, "#f6e7cf"),
    ]  # fmt: skip
    step = size / 5
    for stool, value in enumerate(BAR_VALUES):
        row, col = divmod(stool, 5)
        x, y = left + step * (col + 0.5), top + 60 + row * 57
        parts.append(_stool(stool, value, game, x, y))
    return _tag("g", "".join(parts), id="bar")


def _stool(stool: int, value: int, game: Game, x: float, y: float) -> str:
    """One stool: its value on the seat while free; once taken the guest sits on it and the
    value is written below. The next stool to be taken wears a bright ring."""
    label = signed(value, minus="−")
    attrs = {"id": f"stool-{stool + 1}", "data_value": value}
    if stool < len(game.bar):
        tile = game.bar[stool]
        body = (
            _tag("title", escape(_stool_title(stool, label, describe_tile(tile))))
            + _tag("circle", cx=x, cy=y, r=22, fill=SEAT, stroke=WOOD_EDGE, stroke_width=2)
            + _guest(tile, x, y, 19)
            + _text(x, y + 31, label, 11, "#f6e7cf")
        )
        return _tag("g", body, class_="stool taken", data_tile=tile, **attrs)
    state = "next" if stool == len(game.bar) else "free"
    said = gettext("next") if state == "next" else gettext("free")
    ring = (
        _tag("circle", cx=x, cy=y, r=25, fill="none", stroke=HIGHLIGHT, stroke_width=4)
        if state == "next"
        else ""
    )
    body = (
        _tag("title", escape(_stool_title(stool, label, said)))
        + ring
        + _tag("circle", cx=x, cy=y, r=20, fill=SEAT, stroke=WOOD_EDGE, stroke_width=2)
        + _text(x, y, label, 14, "#2f6b2f" if value > 0 else "#8e1c1c", font_weight="bold")
    )
    return _tag("g", body, class_=f"stool {state}", **attrs)


def _stool_title(stool: int, label: str, what: str) -> str:
    """A stool's tooltip: its number and value, and who sits there (or `free`, `next`)."""
    return gettext(
        "stool %(number)s (%(value)s): %(what)s", number=stool + 1, value=label, what=what
    )


def _bar_note(game: Game) -> str:
    if game.next_stool_value is None:
        return gettext("all 20 stools taken")
    return gettext(
        "next: stool %(stool)s, %(points)s",
        stool=len(game.bar) + 1,
        points=points(game.next_stool_value, minus="−"),
    )


# --- header and footer -----------------------------------------------------------------------


def _header(game: Game) -> str:
    """Whose turn (or who won) in large letters, the game's name above, the details below."""
    news = headline(game)
    size = min(24, round(BOARD / (0.62 * len(news))))
    return _tag("g", "".join([
        _tag("text", "CAFÉ INTERNATIONAL", x=PAD, y=24, font_size=13, font_weight="bold",
             fill=MUTED, letter_spacing=3),
        _tag("text", escape(news), x=PAD, y=54, font_size=size, font_weight="bold", fill=INK),
        _tag("text", escape(" · ".join(details(game, minus="−"))), x=PAD, y=78, font_size=14,
             fill=MUTED),
    ]), id="header", text_anchor="start")  # fmt: skip


def _footer(game: Game, players: list[Seat], top: float) -> str:
    """The players: in seat order with the turn marked while the game runs, by place with
    penalties and final scores once it is over."""
    if game.is_over:
        players = sorted(players, key=lambda seat: seat.place or 0)
        heading = gettext(
            "Final standings: points, −5 per tile and −10 per joker left in hand → final"
        )
    else:
        heading = gettext("Players in seat order (score, hand limit, hand)")
    parts = [_tag("text", escape(heading), x=PAD, y=top + 22, font_size=14, fill=MUTED,
                  text_anchor="start")]  # fmt: skip
    for index, seat in enumerate(players):
        parts.append(_player(seat, top + 40 + index * ROW))
    return _tag("g", "".join(parts), id="players")


def _player(seat: Seat, top: float) -> str:
    y = top + ROW / 2
    parts = []
    if seat.to_move:
        parts.append(_tag("rect", x=PAD, y=top + 3, width=BOARD, height=ROW - 6, rx=10,
                          fill="#fde9c4", stroke="#e7b560", stroke_width=1.5))  # fmt: skip
        parts.append(_text(PAD + 18, y, "▶", 16, "#b3541e"))
    elif seat.place is not None:
        parts.append(_text(PAD + 18, y, f"{seat.place}.", 16, INK, font_weight="bold"))
    name = display_name(seat.name)
    ink = MUTED if seat.eliminated else INK
    parts += [
        _tag("text", escape(name), x=PAD + 40, y=y + 6, font_size=17, font_weight="bold",
             fill=ink, text_anchor="start"),
        _tag("text", escape(_score(seat.score)), x=PAD + 300, y=y + 6, font_size=17,
             font_weight="bold", fill=ink, text_anchor="end"),
    ]  # fmt: skip
    parts.append(_player_detail(seat, y))
    for i, tile in enumerate(seat.hand):
        token = _guest(tile, PAD + 450 + i * 44, y, 19)
        parts.append(_tag("g", token, class_="hand-tile", data_tile=tile))
    return _tag("g", "".join(parts), id=f"player-{seat.seat}", class_="player")


def _score(score: int) -> str:
    """A player's score in the footer, abbreviated as each language does: `17 pts`."""
    return gettext("%(points)s pts", points=str(score).replace("-", "−"))


def _player_detail(seat: Seat, y: float) -> str:
    if seat.eliminated:
        label = gettext("out of the game")
    elif seat.final is not None:
        penalty = signed(seat.penalty, minus="−") if seat.penalty else gettext("no penalty")
        label = f"{penalty} → {str(seat.final).replace('-', '−')}"
    else:
        label = gettext("limit %(limit)s", limit=seat.hand_limit)
    return _tag("text", escape(label), x=PAD + 320, y=y + 5, font_size=14, fill=MUTED,
                text_anchor="start")  # fmt: skip
