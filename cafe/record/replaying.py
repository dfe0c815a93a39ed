"""Replaying a record with the engine, and verifying a finished one against its seed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from cafe import fairbag
from cafe.errors import CafeError
from cafe.game import HAND_SIZE, Game
from cafe.record.syntax import (
    HEX64,
    KLATSCH,
    NO_OPTIONS,
    Adjudication,
    ParsedRecord,
    RecordError,
    Resignation,
    Tag,
    TurnLine,
    parse,
    read_tiles,
)
from cafe.record.writing import departures, result_text
from cafe.render.quantities import count
from cafe.standings import Standing
from cafe.state import Options
from cafe.tiles import ALL_TILES, TILE_COUNTS


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """What ``verify`` checked: a finished game, replayed turn by turn against its seed."""

    players: tuple[str, ...]
    turns: int
    commitment: str
    standings: tuple[Standing, ...]
    #: How the players who resigned left: ``resigned`` or ``removed on time``.
    left: Mapping[str, str] = field(default_factory=dict)
    adjudication: str | None = None
    event: str | None = None

    def __str__(self) -> str:
        ended = (
            ""
            if self.adjudication is None
            else f"; ended by adjudication ({self.adjudication}) with the standings as they were"
        )
        return (
            f"verified: {count(self.turns, 'turn')} by {', '.join(self.players)}; the seed matches "
            f"commitment {self.commitment} and every deal and draw{ended}; "
            f"result {result_text(self.standings, self.left)}"
        )


def replay(text: str) -> Game:
    """The game a record describes, re-played and checked turn by turn (module docstring)."""
    return _replay(parse(text))


def verify(text: str) -> VerifyReport:
    """Check a finished game's record against its revealed seed; raise ``RecordError`` if
    anything differs: commitment, seat order, deal, any draw, any turn, or the result."""
    record = parse(text)
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
        commitment=game.commitment,  # type: ignore[arg-type]  # a record always carries one
        standings=tuple(game.standings()),
        left=departures(game),
        adjudication=game.adjudication,
        event=record.tags["Event"].value if "Event" in record.tags else None,
    )


def _replay(record: ParsedRecord) -> Game:
    game = _start(record)
    for entry in record.turns:
        if isinstance(entry, Resignation):
            try:
                game.resign(entry.player, timeout=entry.timeout)
            except CafeError as error:
                raise RecordError(entry.line, f"{entry.player} resigns: {error}") from None
        elif isinstance(entry, Adjudication):
            try:
                game.adjudicate(entry.reason)
            except CafeError as error:
                raise RecordError(entry.line, f"adjudicated: {error}") from None
        else:
            _play(game, entry)
    _check_result(game, record)
    return game


def _start(record: ParsedRecord) -> Game:
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


def _players(tag: Tag) -> list[str]:
    players = tag.value.split()
    if not players:
        raise RecordError(tag.line, "Players: the names in seat order, separated by spaces")
    return players


def _options(tag: Tag) -> Options:
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


def _commitment(tag: Tag) -> str:
    if not HEX64.fullmatch(tag.value):
        raise RecordError(tag.line, "Commitment: the SHA-256 of the seed, 64 hex digits")
    return tag.value.lower()


def _seed(tag: Tag, commitment_tag: Tag, commitment: str) -> bytes:
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


def _deal(tag: Tag, seats: int) -> list[list[str]]:
    hands = [read_tiles(tag.line, text) for text in tag.value.split("/")]
    if len(hands) != seats or any(len(hand) != HAND_SIZE for hand in hands):
        raise RecordError(
            tag.line,
            f"Deal: {HAND_SIZE} tiles for each of the {seats} seats, hands separated by '/'",
        )
    return [list(hand) for hand in hands]


def _check_deal(tag: Tag, deal: list[list[str]], game: Game) -> None:
    for player, recorded, dealt in zip(game.players, deal, game.deal or (), strict=True):
        if recorded != dealt:
            raise RecordError(
                tag.line,
                f"Deal: {player} was dealt {' '.join(dealt)} from the seed's bag, "
                f"not {' '.join(recorded)}",
            )


def _bag_from_draws(record: ParsedRecord, deal: list[list[str]]) -> list[str]:
    """The bag of a game whose seed is secret: the deal, the recorded draws, the rest."""
    left = Counter(TILE_COUNTS)
    bag: list[str] = []
    taken = [(record.tags["Deal"].line, tile) for hand in deal for tile in hand]
    taken += [
        (turn.line, tile)
        for turn in record.turns
        if isinstance(turn, TurnLine)
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


def _play(game: Game, turn_line: TurnLine) -> None:
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
        result = game.play(turn_line.text, timeout=turn_line.timeout)
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


def _check_result(game: Game, record: ParsedRecord) -> None:
    tag = record.tags.get("Result")
    if not game.is_over:
        if tag is not None:
            raise RecordError(tag.line, "Result: the game is not over after the last turn")
        return
    expected = result_text(game.standings(), departures(game))
    if tag is None:
        raise RecordError(
            record.last_line,
            f"the game is over after this turn but no Result tag says so: {expected}",
        )
    if tag.value not in (expected, result_text(game.standings())):  # older: all "eliminated"
        raise RecordError(tag.line, f"Result: the replayed game ends {expected}")
