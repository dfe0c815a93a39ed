"""The pictures (cafe.render): the text board and the SVG image show the whole public state
of a game, in the right places, within their limits, and nothing unsafe."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections import Counter
from functools import partial

import pytest

from cafe import CafeError, Game, render
from cafe.board import BAR_VALUES, CHAIRS, GRID_SIZE, TABLES
from cafe.bots import RandomBot, play_out
from cafe.render import board_text
from cafe.render.common import NATION_COLOURS, display_width
from cafe.render.palette import GOLD, JOKER

SVG = "{http://www.w3.org/2000/svg}"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
TILE = re.compile(r"(?<![A-Za-z])(?:[A-Z]{2}[fm]|J[fm](?:=[A-Z]{2})?)(?![A-Za-z])")

STAGES = ("new", "mid", "over")


def make_game(players: int, stage: str) -> Game:
    """A seeded game with 2–4 players: just dealt, 20 random turns in, or played out."""
    names = ["ann", "bob", "cid", "dee"][:players]
    game = Game.new(names, seed=f"render-{players}")
    bot = RandomBot(players)
    if stage == "over":
        return play_out(game, bot)
    for _ in range(20 if stage == "mid" else 0):
        game.play(bot.choose(game))
    return game


def special_game() -> Game:
    """A hand-made position with what the bots never produce: a declared joker on a chair
    of two nations, a birthday nation, an eliminated player and the coffee-klatsch variant."""
    return Game.from_position(
        {
            "players": ["ann", "bob", "cid"],
            "to_move": 1,
            "scores": [31, 12, 0],
            "hands": [["DEf", "DEm", "USf", "Jm", "CNf"], ["ITm", "GBf", "RUm"], ["TRf"]],
            "hand_limits": [5, 3, 4],
            "eliminated": [False, False, True],
            "chairs": {"4": "Jf=TR", "2": "TRm", "5": "FRm", "51": "ITf", "52": "ITm"},
            "bar": ["ITm", "CUf", "AFf", "RUf", "DEm", "GBm"],
            "options": {"birthday": 30, "coffee_klatsch": True},
            "birthday_nation": "IT",
            "birthday_player": 0,
            "elimination_order": [2],
        }
    )


def finished_with_elimination() -> Game:
    """A game ended by a full bar, with one player eliminated before the end."""
    bar = ["ITm", "CUf", "AFf", "RUf", "DEm", "GBm", "ITf", "CUm", "AFm", "RUm"] * 2
    return Game.from_position(
        {
            "players": ["ann", "bob", "cid"],
            "to_move": 0,
            "scores": [10, 3, 0],
            "hands": [["DEf"], ["Jm", "ITm"], ["TRf"]],
            "hand_limits": [5, 5, 5],
            "eliminated": [False, False, True],
            "chairs": {"16": "USf", "17": "USm"},
            "bar": bar,
            "elimination_order": [2],
        }
    )


BUILDERS = {
    **{f"{n}p-{stage}": partial(make_game, n, stage) for n in (2, 3, 4) for stage in STAGES},
    "special": special_game,
    "eliminated-over": finished_with_elimination,
}


@pytest.fixture(params=list(BUILDERS))
def game(request: pytest.FixtureRequest) -> Game:
    return BUILDERS[request.param]()


# --- text ------------------------------------------------------------------------------------


def board_lines(picture: str) -> list[str]:
    """The 25 lines of the grid: they start two lines above the row of AF1 (grid row 11)."""
    lines = picture.splitlines()
    first = next(i for i, line in enumerate(lines) if "AF1" in line) - 2
    return lines[first : first + 2 * GRID_SIZE - 1]


def cell(lines: list[str], at: tuple[int, int]) -> str:
    """The text drawn in one grid cell, without the spaces and link lines around it."""
    col, row = at
    line = lines[2 * (GRID_SIZE - 1 - row)].ljust(board_text.WIDTH)
    x = board_text.MARGIN + col * board_text.CELL
    return line[x : x + board_text.CELL].strip(" ─")


def test_text_fits_100_columns(game: Game) -> None:
    for color in (False, True):
        for line in ANSI.sub("", render.text(game, color=color)).splitlines():
            assert display_width(line) <= 100, line


def test_text_shows_every_chair_in_its_cell(game: Game) -> None:
    lines = board_lines(render.text(game))
    seated = game.chair_tiles
    for number, chair in CHAIRS.items():
        assert cell(lines, chair.at) == seated.get(number, f"·{number}"), number


def test_text_shows_every_table_in_its_cell(game: Game) -> None:
    lines = board_lines(render.text(game))
    for table in TABLES.values():
        mark = "*{}*" if table.nation == game.birthday_nation else "[{}]"
        assert cell(lines, table.at) == mark.format(table.id)


def test_text_shows_each_guest_once_and_the_bar_tiles(game: Game) -> None:
    """A guest on a shared chair is drawn once; the board also holds the bar's tiles."""
    board = "\n".join(board_lines(render.text(game)))
    drawn = Counter(TILE.findall(board))
    assert drawn == Counter(game.chair_tiles.values()) + Counter(game.bar)
    for number in CHAIRS:
        free_marks = len(re.findall(rf"·{number}(?!\d)", board))
        assert free_marks == (0 if number in game.chair_tiles else 1)


def test_text_shows_the_next_stool_value(game: Game) -> None:
    text = render.text(game)
    value = game.next_stool_value
    if value is None:
        assert "all 20 stools taken" in text
    else:
        label = f"+{value}" if value > 0 else str(value)
        assert f"[{label}]" in text
        assert f"next: stool {len(game.bar) + 1} of 20, {label}" in text


def test_text_shows_hands_scores_and_limits(game: Game) -> None:
    lines = render.text(game).splitlines()
    for seat, name in enumerate(game.players):
        (line,) = [line for line in lines if re.match(rf"\s*(▶|\d+)?\s+{name}\b", line)]
        hand = game.hands[seat]
        if not (game.is_over and game.eliminated[seat]):
            assert " ".join(hand) in line if hand else "-" in line
        assert f" {game.scores[seat]} " in line
        if not game.is_over and not game.eliminated[seat]:
            assert f"  {game.hand_limits[seat]}  " in line


def test_text_marks_whose_turn_it_is(game: Game) -> None:
    text = render.text(game)
    if game.is_over:
        assert "▶" not in text
        assert "Game over" in text.splitlines()[0]
        return
    name = game.player_to_move
    assert f"{name} to move" in text.splitlines()[0]
    (marked,) = [line for line in text.splitlines() if line.startswith(" ▶ ")]
    assert marked.startswith(f" ▶ {name} ")


@pytest.mark.parametrize("name", ["3p-over", "4p-over", "eliminated-over"])
def test_text_final_standings(name: str) -> None:
    game = BUILDERS[name]()
    lines = render.text(game).splitlines()
    for standing in game.standings():
        (line,) = [
            line for line in lines if re.match(rf" +{standing.place} +{standing.player}", line)
        ]
        assert line.split()[-2:] == [str(standing.penalty), str(standing.final)]


def test_text_special_marks() -> None:
    text = render.text(special_game())
    assert "birthday: Italy" in text
    assert "coffee klatsch" in text
    assert "cid (out)" in text
    assert "Jf=TR" in board_lines(text)[2 * (GRID_SIZE - 1 - 3)]


def test_text_has_ansi_codes_only_with_color(game: Game) -> None:
    plain, coloured = render.text(game), render.text(game, color=True)
    assert "\x1b" not in plain
    assert "\x1b[" in coloured
    marks = str.maketrans({"♀": "f", "♂": "m"})
    legend = "DE♀/DE♂ (DEf/DEm) German lady/gentleman"
    unpainted = ANSI.sub("", coloured).replace(legend, "DEf/DEm German lady/gentleman")
    assert unpainted.translate(marks) == plain


def test_text_in_colour_marks_ladies_and_gentlemen_and_keeps_jokers_neutral() -> None:
    coloured = render.text(special_game(), color=True)
    assert "J♀=TR" in coloured and "♂" in coloured
    assert "38;5;178" in coloured  # Spain's yellow is Spain's alone
    joker = re.search(r"\x1b\[0;([0-9;]*)mJ♀=TR", coloured)
    assert joker and "178" not in joker.group(1) and "48;5;240" in joker.group(1)


@pytest.mark.parametrize("layout", [board_text.WIDE, board_text.COMPACT])
def test_text_marks_the_last_turn_within_the_layouts_width(layout: board_text.Layout) -> None:
    game = Game.new(["ann", "bob"], seed=3)
    for _ in range(12):
        game.play(game.hints(1)[0].turn)
    last = game.history[-1]
    chairs = [t.chair for t in last.tables if t.chair]
    text = render.text(game, layout=layout, last=chairs, last_stool=last.stool)
    assert max(display_width(line) for line in text.splitlines()) <= layout.width <= 93
    marked = re.findall(r"›(\S+)", text)
    assert {game.chair_tiles[c] for c in chairs} <= {m.rstrip("─[") for m in marked} | {""}
    assert "›DEf the last turn" in text
    coloured = render.text(game, color=True, layout=layout, last=chairs)
    assert "›" not in ANSI.sub("", coloured) and "reversed: the last turn" in coloured


def test_text_keeps_the_longest_names_within_the_width() -> None:
    game = Game.new(["a" * 24, "b" * 24, "c" * 24, "cid"], seed=1)
    text = render.text(game)
    assert "cid" in text
    assert all(display_width(line) <= 100 for line in text.splitlines())


def test_names_that_could_reach_a_terminal_as_control_codes_are_refused() -> None:
    with pytest.raises(CafeError, match="a player name: a letter"):
        Game.new(["\x1b[2Jann", "bob"], seed=1)


# --- svg -------------------------------------------------------------------------------------


def parse(game: Game) -> ET.Element:
    return ET.fromstring(render.svg(game))


def by_id(root: ET.Element, prefix: str) -> dict[str, ET.Element]:
    return {
        el.get("id", "")[len(prefix) :]: el
        for el in root.iter()
        if el.get("id", "").startswith(prefix)
    }


def centre(group: ET.Element) -> tuple[float, float]:
    """The centre of the first circle or rectangle drawn in a group."""
    shape = next(el for el in group if el.tag in (f"{SVG}circle", f"{SVG}rect"))
    if shape.tag == f"{SVG}circle":
        return float(shape.get("cx", 0)), float(shape.get("cy", 0))
    x, y = float(shape.get("x", 0)), float(shape.get("y", 0))
    return x + float(shape.get("width", 0)) / 2, y + float(shape.get("height", 0)) / 2


def test_svg_is_xml_with_all_chairs_tables_and_stools(game: Game) -> None:
    root = parse(game)
    assert root.tag == f"{SVG}svg"
    assert sorted(map(int, by_id(root, "chair-"))) == list(range(1, 69))
    assert sorted(map(int, by_id(root, "stool-"))) == list(range(1, 21))
    assert set(by_id(root, "table-")) == set(TABLES)


def test_svg_chairs_show_their_guests(game: Game) -> None:
    chairs = by_id(parse(game), "chair-")
    seated = game.chair_tiles
    for number, group in chairs.items():
        tile = seated.get(int(number))
        assert group.get("data-tile") == tile
        assert ("taken" if tile else "free") in group.get("class", "").split()
        label = "".join(group.itertext())
        if tile is None:
            assert number in label
        else:
            assert (tile[:2] if tile[0] != "J" else "J") in label


def test_svg_shared_chairs_sit_between_their_tables() -> None:
    root = parse(make_game(4, "mid"))
    chairs, tables = by_id(root, "chair-"), by_id(root, "table-")
    for number, chair in CHAIRS.items():
        group = chairs[str(number)]
        assert ("shared" if chair.shared else "private") in group.get("class", "").split()
        if chair.shared:
            (ax, ay), (bx, by) = (centre(tables[t]) for t in chair.tables)
            assert centre(group) == pytest.approx(((ax + bx) / 2, (ay + by) / 2))


def test_svg_bar_stools(game: Game) -> None:
    stools = by_id(parse(game), "stool-")
    for number, value in enumerate(BAR_VALUES, start=1):
        group = stools[str(number)]
        assert group.get("data-value") == str(value)
        taken = number <= len(game.bar)
        assert group.get("data-tile") == (game.bar[number - 1] if taken else None)
        state = "taken" if taken else "next" if number == len(game.bar) + 1 else "free"
        assert state in group.get("class", "").split()


def test_svg_hands_and_scores(game: Game) -> None:
    players = by_id(parse(game), "player-")
    for seat, name in enumerate(game.players):
        group = players[str(seat)]
        tiles = [el.get("data-tile") for el in group.iter() if el.get("class") == "hand-tile"]
        assert tiles == game.hands[seat]
        text = " ".join(group.itertext())
        assert name in text
        assert f"{game.scores[seat]} pts" in text


def test_svg_header_says_whose_turn(game: Game) -> None:
    header = " ".join(by_id(parse(game), "header")[""].itertext())
    if game.is_over:
        winner = game.standings()[0]
        assert f"Game over: {winner.player}" in header
    else:
        assert f"{game.player_to_move} to move" in header


def test_svg_special_marks() -> None:
    game = special_game()
    root = parse(game)
    tables = by_id(root, "table-")
    birthday = {t for t, el in tables.items() if "birthday" in el.get("class", "").split()}
    assert birthday == {"IT1", "IT2"}
    joker = by_id(root, "chair-")["4"]
    assert joker.get("data-tile") == "Jf=TR"
    assert "TR" in list(joker.itertext())
    # a joker is silver, never a nation's colour (Spain's gold was too close to the old one)
    fills = {el.get("fill") for el in joker.iter() if el.tag.endswith("circle")}
    assert JOKER in fills and NATION_COLOURS["ES"] not in fills and GOLD not in fills


def test_svg_is_self_contained_and_safe() -> None:
    """No scripts, no links or external resources, and names are text, not markup."""
    game = Game.new(["script", "a.b", "q-uote"], seed=2)
    source = render.svg(game)
    root = ET.fromstring(source)
    tags = {el.tag.removeprefix(SVG) for el in root.iter()}
    assert not tags & {"script", "image", "foreignObject", "a", "use", "style"}
    for el in root.iter():
        assert not [name for name in el.attrib if name.endswith("href") or name.startswith("on")]
    assert "url(" not in source
    names = " ".join(by_id(root, "players")[""].itertext())
    assert all(name in names for name in game.players)


def test_svg_free_chairs_get_invisible_tap_targets_that_never_overlap(game: Game) -> None:
    root = ET.fromstring(render.svg(game, frame=False, targets=True))
    targets = {
        number: group.find(f"{SVG}circle[@class='target']")
        for number, group in by_id(root, "chair-").items()
    }
    free = {
        number
        for number, group in by_id(root, "chair-").items()
        if "free" in group.get("class", "")
    }
    assert {n for n, target in targets.items() if target is not None} == free
    placed = [
        (float(t.get("cx", 0)), float(t.get("cy", 0)), float(t.get("r", 0)))
        for t in targets.values()
        if t is not None
    ]
    assert all(t.get("fill-opacity") == "0" for t in targets.values() if t is not None)
    for i, (x, y, r) in enumerate(placed):
        for x2, y2, r2 in placed[i + 1 :]:
            assert math.dist((x, y), (x2, y2)) >= r + r2
    assert "target" not in render.svg(game)
