"""The board as a terminal picture: the 13×13 grid of RULES.md §2, the bar in its centre,
then the players. At most 100 columns, readable without colour.

Each grid cell is 7 columns wide and each grid row one line, with a line between rows for
the links. A table is drawn as ``[DE1]``; its four chairs sit around it, joined to it by
``─`` and ``│``, showing the guest (``DEf``, ``Jf=FR``) or, when free, ``·12`` (chair 12).
A shared chair is drawn once, between its two tables, joined to both.
"""

from __future__ import annotations

import functools

from cafe.board import BAR_VALUES, CHAIRS, GRID_SIZE, TABLES
from cafe.game import Game
from cafe.render.common import (
    Seat,
    details,
    display_name,
    display_width,
    headline,
    seats,
    signed,
)
from cafe.tiles import nation_of

CELL = 7
MARGIN = 2
WIDTH = MARGIN + GRID_SIZE * CELL
#: The free centre of the grid (columns 4–8, rows 8 down to 4) where the bar is drawn.
BAR_LEFT, BAR_TOP, BAR_WIDTH, BAR_HEIGHT = MARGIN + 4 * CELL, 8, 5 * CELL, 9
STOOLS_PER_ROW = 5
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


def text(game: Game, *, color: bool = False) -> str:
    """The board, the bar and the players as text lines of at most 100 columns.

    With ``color=True`` guests and tables take their nation's colour (256-colour ANSI
    codes); without it the picture says everything with plain characters.
    """
    canvas = _board_canvas(game.birthday_nation).copy()
    _draw_chairs(canvas, game)
    _draw_bar(canvas, game)
    title = f"Café International · {headline(game)}"
    lines = [
        f"\x1b[1m{title}\x1b[0m" if color else title,
        *_wrap(details(game)),
        "",
        *canvas.lines(color),
        "",
        *_wrap(_legend(game), sep="    ", indent="  "),
        "",
        *_player_lines(game, color),
    ]
    return "\n".join(lines) + "\n"


def _wrap(parts: list[str], sep: str = " · ", indent: str = "") -> list[str]:
    """Join phrases with ``sep`` into lines that fit the picture's width."""
    lines = [indent + parts[0]]
    for part in parts[1:]:
        if display_width(lines[-1] + sep + part) <= WIDTH:
            lines[-1] += sep + part
        else:
            lines.append(indent + part)
    return lines


def _legend(game: Game) -> list[str]:
    """What the marks mean, for a reader who has not seen the picture before."""
    parts = [
        "[DE1] table",
        "·12 free chair 12",
        "DEf/DEm German lady/gentleman",
        "Jf=TR joker counting as Turkey",
    ]
    if game.birthday_nation:
        parts.append(f"*{game.birthday_nation}1* birthday table")
    return parts


# --- the grid --------------------------------------------------------------------------------


def _cell(at: tuple[int, int]) -> tuple[int, int]:
    """Canvas position (x of the cell's left edge, y) of a grid cell; row 0 is at the bottom."""
    col, row = at
    return MARGIN + col * CELL, 2 * (GRID_SIZE - 1 - row)


def _chairs_beside_table(step: int) -> frozenset[tuple[int, int]]:
    """Grid cells of the chairs with one of their tables ``step`` columns away (±1)."""
    return frozenset(
        chair.at
        for chair in CHAIRS.values()
        if any(TABLES[t].at == (chair.at[0] + step, chair.at[1]) for t in chair.tables)
    )


TABLE_TO_RIGHT, TABLE_TO_LEFT = _chairs_beside_table(1), _chairs_beside_table(-1)


@functools.lru_cache(maxsize=16)
def _board_canvas(birthday: str | None) -> Canvas:
    """The board without guests: links and tables (marked for the birthday nation), drawn
    once; every picture starts from a copy."""
    canvas = Canvas(WIDTH, 2 * GRID_SIZE - 1)
    _draw_links(canvas)
    _draw_tables(canvas, birthday)
    return canvas


@functools.lru_cache(maxsize=4096)
def _label_x(at: tuple[int, int], label: str) -> int:
    """Where a label starts so that it sits centred in its cell; a two-letter label (``·7``,
    ``Jf``) leans towards the table on its right, so both links keep one space from it."""
    x, _ = _cell(at)
    lean = len(label) % 2 == 0 and at in TABLE_TO_RIGHT and at not in TABLE_TO_LEFT
    return x + (CELL - len(label)) // 2 + lean


def _put_centred(canvas: Canvas, at: tuple[int, int], label: str, style: Style) -> None:
    canvas.put(_label_x(at, label), _cell(at)[1], label, style)


def _draw_links(canvas: Canvas) -> None:
    """Join every table to its chairs: ``──`` in the gap to a chair beside it, ``│`` on
    the spacer line to a chair above or below."""
    for table in TABLES.values():
        for number in table.chairs:
            (tx, ty), (cx, cy) = _cell(table.at), _cell(CHAIRS[number].at)
            if ty == cy:
                canvas.put(min(tx, cx) + CELL - 1, ty, "──", DIM)
            else:
                canvas.put(tx + CELL // 2, (ty + cy) // 2, "│", DIM)


def _draw_tables(canvas: Canvas, birthday: str | None) -> None:
    for table in TABLES.values():
        mark = "**" if table.nation == birthday else "[]"
        label = f"{mark[0]}{table.id}{mark[1]}"
        _put_centred(canvas, table.at, label, f"{BOLD};{REVERSE};38;5;{ANSI_COLOURS[table.nation]}")


def _draw_chairs(canvas: Canvas, game: Game) -> None:
    seated = game.chair_tiles
    for chair in CHAIRS.values():
        tile = seated.get(chair.number)
        if tile is None:
            _put_centred(canvas, chair.at, f"·{chair.number}", DIM)
        else:
            _put_centred(canvas, chair.at, tile, _tile_style(tile))


def _tile_style(tile: str) -> str:
    """Bold in the nation's colour; a joker in reverse video, to stand out from all nations."""
    nation = nation_of(tile)
    return f"{BOLD};38;5;{ANSI_COLOURS[nation]}" if nation else f"{BOLD};{REVERSE}"


# --- the bar ---------------------------------------------------------------------------------


def _draw_bar(canvas: Canvas, game: Game) -> None:
    """The bar as a box in the empty centre: 4 rows of 5 stools, in fill order, each showing
    its guest when taken or its value when free; the next stool's value is in brackets."""
    x, y = BAR_LEFT, BAR_TOP
    _draw_box(canvas, " BAR ")
    for stool, value in enumerate(BAR_VALUES):
        row, col = divmod(stool, STOOLS_PER_ROW)
        right, sy = x + 7 + col * 6, y + 2 + row  # labels end at ``right``
        if stool < len(game.bar):
            tile = game.bar[stool]
            canvas.put(right - len(tile), sy, tile, _tile_style(tile))
        elif stool == len(game.bar):
            label = f"[{signed(value)}]"
            canvas.put(right + 1 - len(label), sy, label, f"{BOLD};{REVERSE}")
        else:
            canvas.put(right - 3, sy, f"{signed(value):>3}", DIM)
    note = _bar_note(game)
    canvas.put(x + (BAR_WIDTH - len(note)) // 2, y + BAR_HEIGHT - 2, note)


def _draw_box(canvas: Canvas, title: str) -> None:
    """The bar's frame with rounded corners and the title in the top edge."""
    x, y, w, h = BAR_LEFT, BAR_TOP, BAR_WIDTH, BAR_HEIGHT
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
        return "all 20 stools taken"
    return f"next: stool {taken + 1} of 20, {signed(game.next_stool_value)}"


# --- the players -----------------------------------------------------------------------------


def _player_lines(game: Game, color: bool) -> list[str]:
    """The players as a small table: in seat order with the turn marker while the game runs,
    by place with the hand penalties once it is over."""
    table = seats(game)
    width = max(display_width("player"), *(display_width(_name(seat)) for seat in table))
    if game.is_over:
        table.sort(key=lambda seat: seat.place or 0)
        left = _pad("left in hand", HAND)
        header = f"   place  {_pad('player', width)}  score  {left}  penalty  final"
        return [header, *(_final_line(seat, width, color).rstrip() for seat in table)]
    header = f"   {_pad('player', width)}  score  limit  hand"
    return [header, *(_running_line(seat, width, color).rstrip() for seat in table)]


def _running_line(seat: Seat, width: int, color: bool) -> str:
    marker = "▶" if seat.to_move else " "
    limit = "-" if seat.eliminated else str(seat.hand_limit)
    line = f" {marker} {_pad(_name(seat), width)}  {seat.score:5}  {limit:>5}  "
    if seat.eliminated:
        return f"{line}(set aside: {_hand(seat.hand, color, 0)})"
    return line + _hand(seat.hand, color, HAND) + ("  ◀ to move" if seat.to_move else "")


def _final_line(seat: Seat, width: int, color: bool) -> str:
    left = _hand(() if seat.eliminated else seat.hand, color, HAND)
    name = _pad(_name(seat), width)
    return f"   {seat.place:<5}  {name}  {seat.score:5}  {left}  {seat.penalty:7}  {seat.final:5}"


def _name(seat: Seat) -> str:
    return display_name(seat.name) + (" (out)" if seat.eliminated else "")


def _pad(text: str, width: int) -> str:
    return text + " " * (width - display_width(text))


def _hand(tiles: tuple[str, ...], color: bool, width: int) -> str:
    """Tiles separated by spaces, padded to ``width`` columns; ``-`` for an empty hand."""
    plain = " ".join(tiles) or "-"
    painted = " ".join(_paint_tile(tile, color) for tile in tiles) or "-"
    return painted + " " * (width - len(plain))


def _paint_tile(tile: str, color: bool) -> str:
    return f"\x1b[0;{_tile_style(tile)}m{tile}\x1b[0m" if color else tile
