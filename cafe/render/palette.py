"""The house colours: one palette for the SVG board, the HTML email board and the HTML
layouts of emails and pages, so that a game looks the same wherever it is shown.

Nation colours (`cafe.render.common.NATION_COLOURS`) are the tiles'; these are the café's.
"""

from __future__ import annotations

PAPER = "#f6efe2"  # the page around everything
CARD = "#fffdf8"  # the card a message or page sits on
FLOOR = "#eadcc3"  # the café floor under the board; also rules between sections
FLOOR_EDGE = "#d3bd97"  # borders of cards and the board
INK = "#3e2c1c"  # text
MUTED = "#8c7a5b"  # secondary lines and marks
MUTED_TEXT = "#6b5a40"  # secondary text on paper or card, legible (contrast AA)
CUSHION = "#fffaf0"  # a free chair
CUSHION_EDGE = "#bba47e"
WOOD = "#6d4c33"  # the bar; headers and buttons
WOOD_EDGE = "#4a321f"
SEAT = "#c8955f"  # a bar stool
GOLD = "#d4a017"  # the birthday table
JOKER = "#e4e4e4"  # a joker: silver, unlike every nation (Spain is gold, Germany black)
JOKER_EDGE = "#6e6e6e"
HIGHLIGHT = "#ffd54f"  # what just happened
ON_DARK = "#ffffff"  # lettering on wood and on dark nations
SHADE = "#f3ead8"  # code blocks and the reader's own row

#: The palette by name, for templates (`{{ palette.wood }}`).
PALETTE: dict[str, str] = {
    name.lower(): value for name, value in globals().items() if name.isupper() and name[0] != "_"
}
