"""The board as an email-safe HTML table: the picture in the HTML part of game emails.

Most mail programs show neither SVG nor remote images, and many drop `<style>` blocks, so
the board is the 13×13 grid of rulebook §2 drawn as a plain `<table>` with inline styles
and HTML attributes only — no scripts, images, classes or links. A table is a cell in its
nation's colour (`DE1`), a seated guest a chip in its nation's colour (`DEf`), a free chair
its number on a dashed cushion; the bar fills the centre, its 20 stools in fill order with
the next one ringed. Every cell names itself in `title` (`chair 12`, `table DE1`,
`stool 3`), which mail programs show on hover and tests read back.

Pure functions of the engine's public state, like `cafe.render`; the cells repeat from
board to board, so each is built once and cached.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from markupsafe import Markup, escape

from cafe import Game
from cafe.board import BAR_VALUES, CHAIRS, GRID_SIZE, TABLES
from cafe.i18n import current, gettext
from cafe.render.common import LIGHT_NATIONS, NATION_COLOURS
from cafe.render.palette import CUSHION, FLOOR, GOLD, INK, JOKER, MUTED, ON_DARK, SEAT, WOOD
from cafe.tiles import nation_of

#: The 13 columns share the width (a phone's 375 px as a desktop's 580); rows are fixed.
CELL_WIDTH, CELL_HEIGHT = f"{100 / GRID_SIZE:.2f}%", 30
#: The empty centre of the grid where the bar is drawn: columns 4–8, rows 4–8.
BAR_COLUMNS, BAR_ROWS = range(4, 9), range(4, 9)
STOOLS_PER_ROW = 5

FONT = "Verdana,Arial,Helvetica,sans-serif"
JOKER_INK = INK


def tile_colours(tile: str) -> tuple[str, str]:
    """Background and lettering of a tile's chip: its nation's colour, silver for a joker."""
    nation = nation_of(tile)
    if nation is None:
        return JOKER, JOKER_INK
    return NATION_COLOURS[nation], INK if nation in LIGHT_NATIONS else ON_DARK


@cache
def chip(tile: str) -> Markup:
    """A tile as an inline chip, for hands and lists."""
    background, ink = tile_colours(tile)
    style = (
        f"background:{background};color:{ink};padding:1px 4px;border-radius:3px;"
        "font-weight:bold;white-space:nowrap"
    )
    return Markup('<span style="{}">{}</span>').format(style, tile)


def hand(tiles: Iterable[str]) -> Markup:
    """A hand of tiles as chips, or a dash for an empty hand."""
    chips = [chip(tile) for tile in tiles]
    return Markup(" ").join(chips) if chips else Markup("&ndash;")


def _cell(title: str, text: str, style: str) -> str:
    return f'<td title="{escape(title)}" align="center" style="{style}">{escape(text)}</td>'


@cache
def _table_cell(table_id: str, birthday: bool, language: str) -> str:
    """A table's cell, its title in `language` (the one in use: a key of the cache)."""
    colour = NATION_COLOURS[table_id[:2]]
    ink = INK if table_id[:2] in LIGHT_NATIONS else ON_DARK
    ring = f"border:3px solid {GOLD}" if birthday else f"border:3px solid {colour}"
    style = f"background:{colour};color:{ink};font-weight:bold;border-radius:15px;{ring}"
    title = (
        gettext("table %(table)s (birthday table)", table=table_id)
        if birthday
        else gettext("table %(table)s", table=table_id)
    )
    return _cell(title, table_id, style)


@cache
def _chair_cell(number: int, tile: str | None, language: str) -> str:
    """A chair's cell, its title in `language` (the one in use: a key of the cache)."""
    title = gettext("chair %(number)s", number=number)
    if tile is None:
        style = f"background:{CUSHION};color:{MUTED};border:1px dashed {MUTED};font-size:10px"
        return _cell(title, str(number), style)
    background, ink = tile_colours(tile.split("=")[0])
    style = f"background:{background};color:{ink};font-weight:bold;border-radius:4px"
    return _cell(title, tile, style)


@cache
def _stool_cell(stool: int, tile: str | None, following: bool, language: str) -> str:
    """A stool of the bar: its guest, else its value (ringed for the next one to fill); its
    title in `language` (the one in use: a key of the cache)."""
    title = gettext("stool %(number)s", number=stool + 1)
    if tile is not None:
        background, ink = tile_colours(tile)
        style = f"background:{background};color:{ink};font-weight:bold;border-radius:4px"
        return _cell(title, tile, style)
    label = f"{BAR_VALUES[stool]:+d}"
    if following:
        following_title = gettext("stool %(number)s (next)", number=stool + 1)
        return _cell(following_title, label, f"color:{INK};border:2px solid {INK}")
    return _cell(title, label, f"color:{MUTED}")


def _bar(game: Game) -> str:
    """The bar as a nested table spanning the centre of the grid."""
    rows, bar = [], game.bar
    for first in range(0, len(BAR_VALUES), STOOLS_PER_ROW):
        stools = "".join(
            _stool_cell(
                stool, bar[stool] if stool < len(bar) else None, stool == len(bar), current()
            )
            for stool in range(first, first + STOOLS_PER_ROW)
        )
        rows.append(f'<tr height="{CELL_HEIGHT}">{stools}</tr>')
    span = f'colspan="{len(BAR_COLUMNS)}" rowspan="{len(BAR_ROWS)}"'
    inner = (
        f'<table role="presentation" cellpadding="0" cellspacing="4" width="100%" '
        f'style="font-size:11px;font-family:{FONT}">'
        f'<tr><td colspan="{STOOLS_PER_ROW}" align="center" style="color:{INK};'
        f'font-weight:bold;letter-spacing:2px">{escape(gettext("BAR"))}</td></tr>'
        f"{''.join(rows)}</table>"
    )
    style = f"background:{SEAT};border:3px solid {WOOD};border-radius:12px"
    title = escape(gettext("the bar"))
    return f'<td {span} title="{title}" valign="middle" style="{style}">{inner}</td>'


@cache
def _layout() -> tuple[tuple[tuple[str, Any], ...], ...]:
    """The grid's rows, top first, each a row of slots: ("table", table), ("chair",
    chair), ("bar", None) or ("cell", html) for a fixed cell — worked out once."""
    places: dict[tuple[int, int], tuple[str, Any]] = {}
    for table in TABLES.values():
        places[table.at] = ("table", table)
    for chair in CHAIRS.values():
        places[chair.at] = ("chair", chair)
    top, left = max(BAR_ROWS), min(BAR_COLUMNS)
    rows = []
    for row in range(GRID_SIZE - 1, -1, -1):
        line: list[tuple[str, Any]] = []
        for column in range(GRID_SIZE):
            if column in BAR_COLUMNS and row in BAR_ROWS:
                if (column, row) == (left, top):
                    line.append(("bar", None))
                continue
            line.append(places.get((column, row), ("cell", "<td></td>")))
        rows.append(tuple(line))
    return tuple(rows)


def board(game: Game) -> Markup:
    """The grid with tables, chairs and bar, as one email-safe `<table>`."""
    birthday = game.birthday_nation
    seated = game.chair_tiles
    language = current()
    rows = []
    for index, slots in enumerate(_layout()):
        line = []
        for kind, what in slots:
            if kind == "chair":
                line.append(_chair_cell(what.number, seated.get(what.number), language))
            elif kind == "table":
                line.append(_table_cell(what.id, what.nation == birthday, language))
            elif kind == "bar":
                line.append(_bar(game))
            else:
                line.append(what)
        if index == 0:  # the first row fixes the column widths
            line = [cell.replace("<td", f'<td width="{CELL_WIDTH}"', 1) for cell in line]
        rows.append(f'<tr height="{CELL_HEIGHT}">{"".join(line)}</tr>')
    return Markup(
        f'<table role="presentation" cellpadding="0" cellspacing="2" border="0" width="100%" '
        f'style="width:100%;max-width:580px;table-layout:fixed;background:{FLOOR};'
        f"border-radius:12px;font-family:{FONT};font-size:10px;color:{INK};"
        f'border-collapse:separate;overflow-wrap:anywhere">\n' + "\n".join(rows) + "\n</table>"
    )
