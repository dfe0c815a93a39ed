"""Game records: a game as text, in the spirit of chess's PGN, that anyone can re-check.

A record is text made of lines. Blank lines, and lines whose first non-blank character is
``#`` (comments), may stand anywhere and are ignored. The *header* comes first: one tag per
line, written ``[Name "value"]``, each at most once and no others; ``write`` emits them in
this order, then one blank line:

``[Players "ann bob cid"]``
    Required. The player names in seat order (the order of play), separated by spaces.
``[Options "birthday=30 coffee_klatsch"]``
    Required. The variants of RULES.md §11: ``birthday=T`` (threshold ``T`` points) and
    ``coffee_klatsch``, in this order, separated by spaces; ``none`` when both are off.
``[Commitment "<64 hex digits>"]``
    Required. The SHA-256 of the seed (RULES.md §12), published when the game was dealt.
``[Seed "<hex digits>"]``
    Only once revealed (normally when the game is over): the seed's bytes in hexadecimal.
``[Deal "DEf DEm USf Jm CNf / ITm … / …"]``
    Required. The five tiles dealt to each seat, in the order drawn, hands in seat order
    separated by ``/``.
``[Result "1. ann 45 (score 50, penalty -5); 2. bob 30 (score 30, penalty 0); …"]``
    Exactly when the game is over: the final standings (RULES.md §10), best first, separated
    by ``; ``. Each is ``PLACE. PLAYER FINAL (score SCORE, penalty PENALTY)`` where ``FINAL``
    is ``SCORE`` plus ``PENALTY`` (what the tiles left in hand cost), or
    ``PLACE. PLAYER SCORE (eliminated)``. Equal final scores share a place.

The *turns* follow, one line per turn, numbered from 1 in the order played::

    N. PLAYER: TURN | POINTS [| drew TILE TILE …] [| eliminated]

* ``TURN`` is the turn in RULES.md §13 notation, canonical (``str(turn)``), with one
  exception: a guest placed on a private chair other than the one its table id would name
  at that moment in the replay (the lowest free private chair of the table; for a joker
  exchange, the lowest private chair holding a joker of the tile's gender) is written with
  its chair number, ``USf@#17``, so that every guest sits on the same chair when replayed.
* ``POINTS`` is the change of the player's score, with its sign: ``+17``, ``-4``, ``+0``
  (an eliminating bar turn scores ``+0``).
* ``drew …`` lists the tiles drawn into the hand after the turn, in the order drawn;
  the field is left out when no tile was drawn.
* ``eliminated`` marks the bar turn that put the player out of the game.

A player who resigns (not a turn: the correspondence service allows it at any time) is
written ``-- PLAYER resigns`` where it happened among the turns.

For example::

    12. bob: USm@US1-US2 USf@DE2-US1 | +17 | drew DEf ITm
    13. cid: bar ITf | +0 | eliminated

Reading a record replays it with the engine. Every turn must be played by the player to
move and be legal, and must score the recorded points, draw the recorded tiles and
eliminate as recorded; ``Result`` must equal the replayed standings. With a ``Seed`` the
bag is the seed's shuffle (``cafe.fairbag``): the seed must hash to the commitment, the
seat order, the deal and every draw must be the shuffle's. Without one (a game in progress)
the bag is rebuilt as the deal, then the recorded draws in order, then the tiles not yet
drawn in the canonical order of ``cafe.tiles.ALL_TILES``: a stand-in that reproduces
everything visible (board, hands, scores, the size of the bag) but not the secret order, so
such a game is for reading, not for playing on. A damaged record is refused with a
``RecordError`` (an ``InvalidPositionError``) naming the line and the reason.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from cafe import fairbag
from cafe.errors import CafeError, InvalidPositionError, NotationError
from cafe.game import HAND_SIZE, Game
from cafe.results import TurnResult
from cafe.standings import Standing
from cafe.state import Options
from cafe.tiles import ALL_TILES, TILE_COUNTS, parse_tile

TAGS = ("Players", "Options", "Commitment", "Seed", "Deal", "Result")
REQUIRED_TAGS = ("Players", "Options", "Commitment", "Deal")
NO_OPTIONS = "none"
KLATSCH = "coffee_klatsch"
DREW = "drew"
ELIMINATED = "eliminated"
RESIGNS_PREFIX = "--"
RESIGNS = "resigns"

_TAG = re.compile(r'\[([A-Za-z]+) "(.*)"\]')
_TURN = re.compile(r"(\d+)\.\s+([^\s:]+):\s*(.*)")
_POINTS = re.compile(r"[+-]?\d+")
_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


class RecordError(InvalidPositionError):
    """A damaged game record: ``line`` is its 1-based line number, ``reason`` what is wrong."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """What ``verify`` checked: a finished game, replayed turn by turn against its seed."""

    players: tuple[str, ...]
    turns: int
    commitment: str
    standings: tuple[Standing, ...]

    def __str__(self) -> str:
        return (
            f"verified: {self.turns} turns by {', '.join(self.players)}; the seed matches "
            f"commitment {self.commitment} and every deal and draw; "
            f"result {result_text(self.standings)}"
        )


@dataclass(frozen=True, slots=True)
class _Tag:
    line: int
    value: str


@dataclass(frozen=True, slots=True)
class _TurnLine:
    line: int
    number: int
    player: str
    text: str
    points: int
    drawn: tuple[str, ...]
    eliminated: bool


@dataclass(frozen=True, slots=True)
class _Resignation:
    line: int
    player: str


@dataclass(frozen=True, slots=True)
class _Record:
    tags: dict[str, _Tag]
    turns: list[_TurnLine | _Resignation]
    header_end: int

    @property
    def last_line(self) -> int:
        """The line of the last turn (of the header, before any turn): where the end is."""
        return self.turns[-1].line if self.turns else self.header_end


# --- writing ----------------------------------------------------------------------------


def write(game: Game, *, reveal_seed: bool) -> str:
    """The record of a dealt game; the seed appears only with ``reveal_seed``."""
    deal, commitment, seed = game.deal, game.commitment, game.seed
    if deal is None or commitment is None:
        raise CafeError("a record starts from the deal: this game was loaded from a position")
    tags = [
        ("Players", " ".join(game.players)),
        ("Options", options_text(game.options)),
        ("Commitment", commitment),
    ]
    if reveal_seed:
        if seed is None:
            raise CafeError("the seed of this game is unknown, so the record cannot reveal it")
        tags.append(("Seed", seed.hex()))
    tags.append(("Deal", " / ".join(" ".join(hand) for hand in deal)))
    if game.is_over:
        tags.append(("Result", result_text(game.standings())))
    lines = [f'[{name} "{value}"]' for name, value in tags]
    lines.append("")
    lines += _turn_lines(game)
    return "\n".join(lines) + "\n"


def options_text(options: Options) -> str:
    """The value of the Options tag: ``birthday=T``, ``coffee_klatsch``, or ``none``."""
    words = [] if options.birthday is None else [f"birthday={options.birthday}"]
    if options.coffee_klatsch:
        words.append(KLATSCH)
    return " ".join(words) or NO_OPTIONS


def result_text(standings: Iterable[Standing]) -> str:
    """The value of the Result tag: the final standings, best first."""
    return "; ".join(_standing_text(standing) for standing in standings)


def _standing_text(standing: Standing) -> str:
    head = f"{standing.place}. {standing.player} {standing.final}"
    if standing.eliminated:
        return f"{head} (eliminated)"
    return f"{head} (score {standing.score}, penalty {standing.penalty})"


def _turn_line(number: int, result: TurnResult, text: str) -> str:
    fields = [f"{number}. {result.player}: {text}", f"{result.points:+d}"]
    if result.drawn:
        fields.append(f"{DREW} {' '.join(result.drawn)}")
    if result.eliminated:
        fields.append(ELIMINATED)
    return " | ".join(fields)


def _turn_lines(game: Game) -> list[str]:
    """The turn lines, with each resignation after the turns played before it."""
    resigned: dict[int, list[str]] = {}
    for played, player in game.resignations:
        resigned.setdefault(played, []).append(f"{RESIGNS_PREFIX} {player} {RESIGNS}")
    lines = resigned.get(0, [])
    for number, result in enumerate(game.history, 1):
        lines.append(_turn_line(number, result, result.notation))
        lines += resigned.get(number, [])
    return lines


# --- reading ----------------------------------------------------------------------------


def replay(text: str) -> Game:
    """The game a record describes, re-played and checked turn by turn (module docstring)."""
    return _replay(_parse(text))


def verify(text: str) -> VerifyReport:
    """Check a finished game's record against its revealed seed; raise ``RecordError`` if
    anything differs: commitment, seat order, deal, any draw, any turn, or the result."""
    record = _parse(text)
    if "Seed" not in record.tags:
        raise RecordError(
            record.header_end,
            "the header has no Seed tag: only a record with its seed revealed can be verified",
        )
    game = _replay(record)
    if not game.is_over:
        raise RecordError(
            record.last_line, "the game is not over: only a finished game can be verified"
        )
    return VerifyReport(
        players=game.players,
        turns=len(game.history),
        commitment=game.commitment,  # type: ignore[arg-type]
        standings=tuple(game.standings()),
    )


def _parse(text: str) -> _Record:
    """Split a record into its tags and turn lines, checking only their form."""
    tags: dict[str, _Tag] = {}
    turns: list[_TurnLine] = []
    header_end = 1
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if turns:
                raise RecordError(number, "a tag after the turns: the header comes first")
            name, value = _parse_tag(number, line)
            if name in tags:
                raise RecordError(number, f"second {name} tag (first on line {tags[name].line})")
            tags[name] = _Tag(number, value)
            header_end = number
        elif line.startswith(RESIGNS_PREFIX):
            turns.append(_parse_resignation(number, line))
        else:
            turns.append(_parse_turn_line(number, line))
    for name in REQUIRED_TAGS:
        if name not in tags:
            raise RecordError(header_end, f"the header has no {name} tag")
    return _Record(tags, turns, header_end)


def _parse_tag(number: int, line: str) -> tuple[str, str]:
    match = _TAG.fullmatch(line)
    if match is None:
        raise RecordError(number, f'cannot read tag {line!r}: write [Name "value"]')
    name, value = match.groups()
    if name not in TAGS:
        raise RecordError(number, f"unknown tag {name} (a record has {', '.join(TAGS)})")
    return name, value


def _parse_resignation(number: int, line: str) -> _Resignation:
    words = line.split()
    if len(words) != 3 or words[2] != RESIGNS:
        raise RecordError(number, f"cannot read {line!r}: write '-- PLAYER resigns'")
    return _Resignation(number, words[1])


def _parse_turn_line(number: int, line: str) -> _TurnLine:
    match = _TURN.fullmatch(line)
    fields = [field.strip() for field in match.group(3).split("|")] if match else []
    if match is None or len(fields) < 2 or not fields[0]:
        raise RecordError(
            number, f"cannot read {line!r}: a turn line is 'N. PLAYER: TURN | POINTS …'"
        )
    if not _POINTS.fullmatch(fields[1]):
        raise RecordError(number, f"cannot read points {fields[1]!r}: write +17, -4 or +0")
    drawn: tuple[str, ...] | None = None
    eliminated = False
    for field in fields[2:]:
        word, _, rest = field.partition(" ")
        if word == DREW and drawn is None and rest:
            drawn = _read_tiles(number, rest)
        elif field == ELIMINATED and not eliminated:
            eliminated = True
        else:
            raise RecordError(
                number,
                f"cannot read {field!r}: after the points come 'drew TILE …' and "
                "'eliminated', each at most once",
            )
    return _TurnLine(
        line=number,
        number=int(match.group(1)),
        player=match.group(2),
        text=fields[0],
        points=int(fields[1]),
        drawn=drawn or (),
        eliminated=eliminated,
    )


def _read_tiles(number: int, text: str) -> tuple[str, ...]:
    try:
        return tuple(parse_tile(word) for word in text.split())
    except NotationError as error:
        raise RecordError(number, str(error)) from None


# --- replaying --------------------------------------------------------------------------


def _replay(record: _Record) -> Game:
    game = _start(record)
    for entry in record.turns:
        if isinstance(entry, _Resignation):
            try:
                game.resign(entry.player)
            except CafeError as error:
                raise RecordError(entry.line, f"{entry.player} resigns: {error}") from None
        else:
            _play(game, entry)
    _check_result(game, record)
    return game


def _start(record: _Record) -> Game:
    """The dealt game: from the seed when revealed, else from the recorded deal and draws."""
    tags = record.tags
    players = _players(tags["Players"])
    options = _options(tags["Options"])
    commitment = _commitment(tags["Commitment"])
    deal = _deal(tags["Deal"], len(players))
    if "Seed" not in tags:
        bag = _bag_from_draws(record, deal)
        try:
            return Game._from_bag(players, bag, options, seed=None, commitment=commitment)
        except CafeError as error:
            raise RecordError(tags["Players"].line, str(error)) from None
    seed = _seed(tags["Seed"], tags["Commitment"], commitment)
    try:
        game = Game.new(players, seed=seed, options=options)
    except CafeError as error:
        raise RecordError(tags["Players"].line, str(error)) from None
    if list(game.players) != players:
        raise RecordError(
            tags["Players"].line,
            f"seat order {' '.join(players)} is not the seed's: {' '.join(game.players)}",
        )
    _check_deal(tags["Deal"], deal, game)
    return game


def _players(tag: _Tag) -> list[str]:
    players = tag.value.split()
    if not players:
        raise RecordError(tag.line, "Players: the names in seat order, separated by spaces")
    return players


def _options(tag: _Tag) -> Options:
    words = tag.value.split()
    if not words:
        raise RecordError(tag.line, f"Options: write '{NO_OPTIONS}' for a game without variants")
    if words == [NO_OPTIONS]:
        return Options()
    birthday: int | None = None
    klatsch = False
    for word in words:
        key, equals, value = word.partition("=")
        if key == "birthday" and equals and value.isdigit() and birthday is None:
            birthday = int(value)
        elif word == KLATSCH and not klatsch:
            klatsch = True
        else:
            raise RecordError(
                tag.line,
                f"Options: cannot read {word!r}: write 'birthday=T', '{KLATSCH}' or '{NO_OPTIONS}'",
            )
    try:
        return Options(birthday=birthday, coffee_klatsch=klatsch)
    except ValueError as error:
        raise RecordError(tag.line, f"Options: {error}") from None


def _commitment(tag: _Tag) -> str:
    if not _HEX64.fullmatch(tag.value):
        raise RecordError(tag.line, "Commitment: the SHA-256 of the seed, 64 hex digits")
    return tag.value.lower()


def _seed(tag: _Tag, commitment_tag: _Tag, commitment: str) -> bytes:
    try:
        seed = bytes.fromhex(tag.value)
    except ValueError:
        raise RecordError(tag.line, "Seed: the seed's bytes in hex digits") from None
    digest = fairbag.commitment(seed)
    if digest != commitment:
        raise RecordError(
            tag.line,
            f"Seed does not match the Commitment on line {commitment_tag.line}: its SHA-256 is "
            f"{digest}, the Commitment says {commitment}",
        )
    return seed


def _deal(tag: _Tag, seats: int) -> list[list[str]]:
    hands = [_read_tiles(tag.line, text) for text in tag.value.split("/")]
    if len(hands) != seats or any(len(hand) != HAND_SIZE for hand in hands):
        raise RecordError(
            tag.line,
            f"Deal: {HAND_SIZE} tiles for each of the {seats} seats, hands separated by '/'",
        )
    return [list(hand) for hand in hands]


def _check_deal(tag: _Tag, deal: list[list[str]], game: Game) -> None:
    for player, recorded, dealt in zip(game.players, deal, game.deal or (), strict=True):
        if recorded != dealt:
            raise RecordError(
                tag.line,
                f"Deal: {player} was dealt {' '.join(dealt)} from the seed's bag, "
                f"not {' '.join(recorded)}",
            )


def _bag_from_draws(record: _Record, deal: list[list[str]]) -> list[str]:
    """The bag of a game whose seed is secret: the deal, the recorded draws, the rest."""
    left = Counter(TILE_COUNTS)
    bag: list[str] = []
    taken = [(record.tags["Deal"].line, tile) for hand in deal for tile in hand]
    taken += [
        (turn.line, tile)
        for turn in record.turns
        if isinstance(turn, _TurnLine)
        for tile in turn.drawn
    ]
    for line, tile in taken:
        if left[tile] == 0:
            raise RecordError(
                line, f"one {tile} too many: the game has {TILE_COUNTS[tile]}, all dealt or drawn"
            )
        left[tile] -= 1
        bag.append(tile)
    for tile in ALL_TILES:
        if left[tile]:
            left[tile] -= 1
            bag.append(tile)
    return bag


def _play(game: Game, turn_line: _TurnLine) -> None:
    """Play one recorded turn and check that it did what the record says."""
    line, number = turn_line.line, turn_line.number
    expected = len(game.history) + 1
    if number != expected:
        raise RecordError(line, f"turn {number} where turn {expected} comes next")
    who = f"turn {number} by {turn_line.player}"
    if game.is_over:
        raise RecordError(line, f"{who}: the game is already over")
    if turn_line.player != game.player_to_move:
        raise RecordError(
            line, f"turn {number} is {game.player_to_move}'s, not {turn_line.player}'s"
        )
    try:
        result = game.play(turn_line.text)
    except CafeError as error:
        raise RecordError(line, f"{who}: {error}") from None
    if result.points != turn_line.points:
        raise RecordError(
            line, f"{who} scores {result.points:+d}, the record says {turn_line.points:+d}"
        )
    if result.drawn != turn_line.drawn:
        raise RecordError(
            line,
            f"{who} draws {_tiles_text(result.drawn)} from the bag, the record says "
            f"{_tiles_text(turn_line.drawn)}",
        )
    if result.eliminated != turn_line.eliminated:
        fact = "eliminates" if result.eliminated else "does not eliminate"
        raise RecordError(line, f"{who} {fact} {turn_line.player}, unlike the record")


def _tiles_text(tiles: tuple[str, ...]) -> str:
    return " ".join(tiles) or "nothing"


def _check_result(game: Game, record: _Record) -> None:
    tag = record.tags.get("Result")
    if not game.is_over:
        if tag is not None:
            raise RecordError(tag.line, "Result: the game is not over after the last turn")
        return
    expected = result_text(game.standings())
    if tag is None:
        raise RecordError(
            record.last_line,
            f"the game is over after this turn but no Result tag says so: {expected}",
        )
    if tag.value != expected:
        raise RecordError(tag.line, f"Result: the replayed game ends {expected}")
