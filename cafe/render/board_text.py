"""The board as a terminal picture: the 13×13 grid of rulebook §2, the bar in its centre,
then the players. Readable without colour, in one of two layouts: ``WIDE`` (93 columns)
and ``COMPACT`` (80 columns, for the classic terminal).

Each grid cell is 7 columns wide (6 when compact) and each grid row one line, with a line
between rows for the links. A table is drawn as ``[DE1]``; its four chairs sit around it,
joined to it by ``─`` and ``│``, showing the guest (``DEf``, ``Jf=FR``; in colour ``DE♀``,
``J♂=FR``, so that ladies and gentlemen differ at a glance) or, when free, ``·12`` (chair
12). A shared chair is drawn once, between its two tables, joined to both. The guests of
the last turn stand out: in reverse video, or marked ``›`` without colour.
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from dataclasses import dataclass, field

from cafe.board import BAR_VALUES, CHAIRS, GRID_SIZE, TABLES
from cafe.game import Game
from cafe.i18n import gettext
from cafe.render.common import (
    Seat,
    details,
    display_name,
    display_width,
    headline,
    seats,
)
from cafe.render.quantities import signed
from cafe.tiles import is_joker, nation_of

MARGIN = 2
#: The top of the bar's box, in the free centre of the grid (columns 4–8, rows 8 down to 4).
BAR_TOP, BAR_HEIGHT = 8, 9
STOOLS_PER_ROW = 5
LAST = "›"  # marks a guest of the last turn when there is no colour
GENDER_MARKS = {"f": "♀", "m": "♂"}


@dataclass(frozen=True, slots=True)
class Layout:
    """How wide a grid cell is, and the blank columns left of the board (a terminal's
    picture keeps `MARGIN`; nothing is ever drawn there), and what follows from them."""

    cell: int
    margin: int = MARGIN

    @property
    def width(self) -> int:
        """The picture's width in columns."""
        return self.margin + GRID_SIZE * self.cell

    @property
    def bar_left(self) -> int:
        return self.margin + 4 * self.cell

    @property
    def bar_width(self) -> int:
        return 5 * self.cell

    @property
    def stool_step(self) -> int:
        """Columns from one stool's label to the next."""
        return self.cell - 1


WIDE, COMPACT = Layout(7), Layout(6)
WIDTH = WIDE.width
CELL = WIDE.cell
HAND = 19  # columns for a hand of five tiles

Style = str | None  # ANSI SGR parameters, e.g. "1;38;5;160"

DIM, BOLD, REVERSE = "2", "1", "7"
BAR_STYLE = "38;5;130"
#: 256-colour terminal codes after the nation colours of ``common.NATION_COLOURS``, picked
#: to read on dark and light backgrounds alike (hence grey, not black, for Germany).
ANSI_COLOURS: dict[str, int] = {
    "AF": 173, "CN": 160, "CU": 36, "DE": 245, "ES": 178, "FR": 33,
    "GB": 63, "IN": 208, "IT": 34, "RU": 74, "TR": 162, "US": 134,
}  # fmt: skip


class Canvas:
    """A grid of characters, each with an optional style, printed with or without ANSI codes."""

    def __init__(self, width: int, height: int) -> None:
        self.chars = [[" "] * width for _ in range(height)]
        self.styles: list[list[Style]] = [[None] * width for _ in range(height)]

    def put(self, x: int, y: int, text: str, style: Style = None) -> None:
        end = x + len(text)
        chars = self.chars[y]
        if not 0 <= x <= end <= len(chars):
            raise IndexError(f"{text!r} at {x} does not fit on a line of {len(chars)}")
        chars[x:end] = text
        self.styles[y][x:end] = [style] * len(text)

    def copy(self) -> Canvas:
        """A canvas to draw on that starts as this one is."""
        copied = Canvas.__new__(Canvas)
        copied.chars = [row.copy() for row in self.chars]
        copied.styles = [row.copy() for row in self.styles]
        return copied

    def lines(self, color: bool) -> list[str]:
        return [
            self._line(chars, styles, color).rstrip()
            for chars, styles in zip(self.chars, self.styles, strict=True)
        ]

    @staticmethod
    def _line(chars: list[str], styles: list[Style], color: bool) -> str:
        if not color:
            return "".join(chars)
        out, current = [], None
        for ch, style in zip(chars, styles, strict=True):
            if style != current:
                out.append(f"\x1b[0;{style}m" if style else "\x1b[0m")
                current = style
            out.append(ch)
        if current:
            out.append("\x1b[0m")
        return "".join(out)


def text(
    game: Game,
    *,
    color: bool = False,
    layout: Layout = WIDE,
    last: Collection[int] = (),
    last_stool: int | None = None,
) -> str:
    """The board, the bar and the players as text lines of at most ``layout.width`` columns.

    With ``color=True`` guests and tables take their nation's colour (256-colour ANSI
    codes); without it the picture says everything with plain characters. ``last`` are the
    chairs (and ``last_stool`` the bar stool, counted from 1) the last turn filled.
    """
    canvas = _board_canvas(game.birthday_nation, layout).copy()
    _draw_chairs(canvas, game, layout, set(last), color)
    _draw_bar(canvas, game, layout, last_stool, color)
    title = f"Café International · {headline(game)}"
    width = layout.width
    lines = [
        f"\x1b[1m{title}\x1b[0m" if color else title,
        *_wrap(details(game), width),
        "",
        *canvas.lines(color),
        "",
        *_wrap(_legend(game, color, bool(last) or last_stool is not None), width, "    ", "  "),
        "",
        *_player_lines(game, color),
    ]
    return "\n".join(lines) + "\n"


def _wrap(parts: list[str], width: int, sep: str = " · ", indent: str = "") -> list[str]:
    """Join phrases with ``sep`` into lines that fit the picture's width."""
    lines = [indent + parts[0]]
    for part in parts[1:]:
        if display_width(lines[-1] + sep + part) <= width:
            lines[-1] += sep + part
        else:
            lines.append(indent + part)
    return lines


def _legend(game: Game, color: bool, last: bool) -> list[str]:
    """What the marks mean, for a reader who has not seen the picture before."""
    tiles = "DE♀/DE♂ (DEf/DEm)" if color else "DEf/DEm"
    parts = [
        gettext("%(sample)s table", sample="[DE1]"),
        gettext("%(sample)s free chair %(chair)s", sample="·12", chair=12),
        gettext("%(tiles)s German lady/gentleman", tiles=tiles),
        gettext("%(tile)s joker counting as Turkey", tile=_label("Jf=TR", color)),
    ]
    if last and color:
        parts.append(gettext("reversed: the last turn"))
    elif last:
        parts.append(gettext("%(sample)s the last turn", sample=LAST + "DEf"))
    if game.birthday_nation:
        table = "*" + game.birthday_nation + "1*"
        parts.append(gettext("%(sample)s birthday table", sample=table))
    return parts


# --- the grid --------------------------------------------------------------------------------


def _cell(at: tuple[int, int], layout: Layout) -> tuple[int, int]:
    """Canvas position (x of the cell's left edge, y) of a grid cell; row 0 is at the bottom."""
    col, row = at
    return layout.margin + col * layout.cell, 2 * (GRID_SIZE - 1 - row)


def _chairs_beside_table(step: int) -> frozenset[tuple[int, int]]:
    """Grid cells of the chairs with one of their tables ``step`` columns away (±1)."""
    return frozenset(
        chair.at
        for chair in CHAIRS.values()
        if any(TABLES[t].at == (chair.at[0] + step, chair.at[1]) for t in chair.tables)
    )


TABLE_TO_RIGHT, TABLE_TO_LEFT = _chairs_beside_table(1), _chairs_beside_table(-1)


@functools.lru_cache(maxsize=32)
def _board_canvas(birthday: str | None, layout: Layout) -> Canvas:
    """The board without guests: links and tables (marked for the birthday nation), drawn
    once per layout; every picture starts from a copy."""
    canvas = Canvas(layout.width, 2 * GRID_SIZE - 1)
    _draw_links(canvas, layout)
    _draw_tables(canvas, birthday, layout)
    return canvas


@functools.lru_cache(maxsize=8192)
def _label_x(at: tuple[int, int], label: str, layout: Layout) -> int:
    """Where a label starts so that it sits centred in its cell; a two-letter label (``·7``,
    ``Jf``) leans towards the table on its right, so both links keep one space from it."""
    x, _ = _cell(at, layout)
    lean = len(label) % 2 == 0 and at in TABLE_TO_RIGHT and at not in TABLE_TO_LEFT
    return x + max(0, (layout.cell - len(label)) // 2 + lean)


def _put_centred(
    canvas: Canvas, at: tuple[int, int], label: str, style: Style, layout: Layout
) -> None:
    canvas.put(_label_x(at, label, layout), _cell(at, layout)[1], label, style)


def _draw_links(canvas: Canvas, layout: Layout) -> None:
    """Join every table to its chairs: ``──`` in the gap to a chair beside it, ``│`` on
    the spacer line to a chair above or below."""
    for table in TABLES.values():
        for number in table.chairs:
            (tx, ty), (cx, cy) = _cell(table.at, layout), _cell(CHAIRS[number].at, layout)
            if ty == cy:
                canvas.put(min(tx, cx) + layout.cell - 1, ty, "──", DIM)
            else:
                canvas.put(tx + (layout.cell - 1) // 2, (ty + cy) // 2, "│", DIM)


def _draw_tables(canvas: Canvas, birthday: str | None, layout: Layout) -> None:
    for table in TABLES.values():
        mark = "**" if table.nation == birthday else "[]"
        label = f"{mark[0]}{table.id}{mark[1]}"
        style = f"{BOLD};{REVERSE};38;5;{ANSI_COLOURS[table.nation]}"
        _put_centred(canvas, table.at, label, style, layout)


def _draw_chairs(
    canvas: Canvas, game: Game, layout: Layout, last: Collection[int], color: bool
) -> None:
    seated = game.chair_tiles
    for chair in CHAIRS.values():
        tile = seated.get(chair.number)
        if tile is None:
            _put_centred(canvas, chair.at, f"·{chair.number}", DIM, layout)
        else:
            label, style = _marked(tile, chair.number in last, color)
            _put_centred(canvas, chair.at, label, style, layout)


def _marked(tile: str, last: bool, color: bool) -> tuple[str, str]:
    """A guest's label and style; a guest of the last turn reversed, or marked without
    colour."""
    label = _label(tile, color)
    if not last:
        return label, _tile_style(tile)
    return (label, _last_style(tile)) if color else (LAST + label, _tile_style(tile))


def _label(tile: str, color: bool) -> str:
    """``DEf`` as drawn: ``DE♀`` in colour (a terminal shows the mark), ``DEf`` without."""
    if not color:
        return tile
    cut = 2 if is_joker(tile) else 3  # the f/m letter ends the tile's name: DEf, Jf=TR
    return tile[: cut - 1] + GENDER_MARKS[tile[cut - 1]] + tile[cut:]


def _tile_style(tile: str) -> str:
    """Bold in the nation's colour; a joker in white on dark grey, neutral beside every
    nation (Spain's yellow included)."""
    nation = nation_of(tile)
    return f"{BOLD};38;5;{ANSI_COLOURS[nation]}" if nation else f"{BOLD};38;5;255;48;5;240"


def _last_style(tile: str) -> str:
    """A guest of the last turn: reversed, in the nation's colour (a joker underlined)."""
    nation = nation_of(tile)
    return (
        f"{BOLD};{REVERSE};38;5;{ANSI_COLOURS[nation]}" if nation else f"{BOLD};4;38;5;255;48;5;240"
    )


# --- the bar ---------------------------------------------------------------------------------


def _draw_bar(
    canvas: Canvas, game: Game, layout: Layout, last_stool: int | None, color: bool
) -> None:
    """The bar as a box in the empty centre: 4 rows of 5 stools, in fill order, each showing
    its guest when taken or its value when free; the next stool's value is in brackets."""
    x, y, step = layout.bar_left, BAR_TOP, layout.stool_step
    first = (layout.bar_width - step * (STOOLS_PER_ROW - 1)) // 2 + 2
    title = gettext("BAR")
    _draw_box(canvas, f" {title} ", layout)
    for stool, value in enumerate(BAR_VALUES):
        row, col = divmod(stool, STOOLS_PER_ROW)
        right, sy = x + first + col * step, y + 2 + row  # labels end at ``right``
        if stool < len(game.bar):
            label, style = _marked(game.bar[stool], stool + 1 == last_stool, color)
            canvas.put(right - len(label), sy, label, style)
        elif stool == len(game.bar):
            label = f"[{signed(value)}]"
            canvas.put(right + 1 - len(label), sy, label, f"{BOLD};{REVERSE}")
        else:
            canvas.put(right - 3, sy, f"{signed(value):>3}", DIM)
    note = _bar_note(game)
    canvas.put(x + (layout.bar_width - len(note)) // 2, y + BAR_HEIGHT - 2, note)


def _draw_box(canvas: Canvas, title: str, layout: Layout) -> None:
    """The bar's frame with rounded corners and the title in the top edge."""
    x, y, w, h = layout.bar_left, BAR_TOP, layout.bar_width, BAR_HEIGHT
    left = (w - 2 - len(title)) // 2
    top = "─" * left + title + "─" * (w - 2 - left - len(title))
    canvas.put(x, y, f"╭{top}╮", BAR_STYLE)
    for row in range(1, h - 1):
        canvas.put(x, y + row, "│", BAR_STYLE)
        canvas.put(x + w - 1, y + row, "│", BAR_STYLE)
    canvas.put(x, y + h - 1, "╰" + "─" * (w - 2) + "╯", BAR_STYLE)


def _bar_note(game: Game) -> str:
    taken = len(game.bar)
    if game.next_stool_value is None:
        return gettext("all 20 stools taken")
    return gettext(
        "next: stool %(stool)s of 20, %(value)s",
        stool=taken + 1,
        value=signed(game.next_stool_value),
    )


# --- the players -----------------------------------------------------------------------------


def _player_lines(game: Game, color: bool) -> list[str]:
    """The players as a small table: in seat order with the turn marker while the game runs,
    by place with the hand penalties once it is over."""
    table = seats(game)
    heads = Headings()
    width = max(display_width(heads.player), *(display_width(_name(seat)) for seat in table))
    if game.is_over:
        table.sort(key=lambda seat: seat.place or 0)
        header = (
            f"   {_pad(heads.place, heads.place_width)}  {_pad(heads.player, width)}  "
            f"{_pad(heads.score, heads.score_width, right=True)}  {_pad(heads.left, HAND)}  "
            f"{_pad(heads.penalty, heads.penalty_width, right=True)}  "
            f"{_pad(heads.final, heads.final_width, right=True)}"
        )
        return [header, *(_final_line(seat, width, heads, color).rstrip() for seat in table)]
    header = (
        f"   {_pad(heads.player, width)}  {_pad(heads.score, heads.score_width, right=True)}  "
        f"{_pad(heads.limit, heads.limit_width, right=True)}  {heads.hand}"
    )
    return [header, *(_running_line(seat, width, heads, color).rstrip() for seat in table)]


@dataclass(frozen=True)
class Headings:
    """The players' table's headings in the language in use, and the columns each takes:
    at least the English ones' (`score` is 5 wide), more where a word is longer."""

    player: str = field(default_factory=lambda: gettext("player"))
    score: str = field(default_factory=lambda: gettext("score"))
    limit: str = field(default_factory=lambda: gettext("limit"))
    hand: str = field(default_factory=lambda: gettext("hand"))
    place: str = field(default_factory=lambda: gettext("place"))
    left: str = field(default_factory=lambda: gettext("left in hand"))
    penalty: str = field(default_factory=lambda: gettext("penalty"))
    final: str = field(default_factory=lambda: gettext("final"))

    @property
    def score_width(self) -> int:
        return max(5, display_width(self.score))

    @property
    def limit_width(self) -> int:
        return max(5, display_width(self.limit))

    @property
    def place_width(self) -> int:
        return max(5, display_width(self.place))

    @property
    def penalty_width(self) -> int:
        return max(7, display_width(self.penalty))

    @property
    def final_width(self) -> int:
        return max(5, display_width(self.final))


def _running_line(seat: Seat, width: int, heads: Headings, color: bool) -> str:
    marker = "▶" if seat.to_move else " "
    limit = "-" if seat.eliminated else str(seat.hand_limit)
    line = (
        f" {marker} {_pad(_name(seat), width)}  {seat.score:{heads.score_width}}  "
        f"{limit:>{heads.limit_width}}  "
    )
    if seat.eliminated:
        return line + gettext("(set aside: %(tiles)s)", tiles=_hand(seat.hand, color, 0))
    to_move = "  ◀ " + gettext("to move") if seat.to_move else ""
    return line + _hand(seat.hand, color, HAND) + to_move


def _final_line(seat: Seat, width: int, heads: Headings, color: bool) -> str:
    left = _hand(() if seat.eliminated else seat.hand, color, HAND)
    name = _pad(_name(seat), width)
    return (
        f"   {seat.place:<{heads.place_width}}  {name}  {seat.score:{heads.score_width}}  "
        f"{left}  {seat.penalty:{heads.penalty_width}}  {seat.final:{heads.final_width}}"
    )


def _name(seat: Seat) -> str:
    name = display_name(seat.name)
    return gettext("%(player)s (out)", player=name) if seat.eliminated else name


def _pad(text: str, width: int, *, right: bool = False) -> str:
    fill = " " * (width - display_width(text))
    return fill + text if right else text + fill


def _hand(tiles: tuple[str, ...], color: bool, width: int) -> str:
    """Tiles separated by spaces, padded to ``width`` columns; ``-`` for an empty hand."""
    plain = " ".join(tiles) or "-"
    painted = " ".join(_paint_tile(tile, color) for tile in tiles) or "-"
    return painted + " " * (width - len(plain))


def _paint_tile(tile: str, color: bool) -> str:
    return f"\x1b[0;{_tile_style(tile)}m{tile}\x1b[0m" if color else tile
