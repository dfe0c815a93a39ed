"""Replaying a record with the engine, and verifying a finished one against its seed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from cafe import fairbag
from cafe.errors import CafeError
from cafe.game import HAND_SIZE, Game
from cafe.i18n import Message, gettext, lazy_gettext, lazy_ngettext
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
        facts = {
            "turns": lazy_ngettext("%(num)s turn", "%(num)s turns", self.turns),
            "players": ", ".join(self.players),
            "commitment": self.commitment,
            "result": result_text(self.standings, self.left),
        }
        if self.adjudication is None:
            return gettext(
                "verified: %(turns)s by %(players)s; the seed matches commitment "
                "%(commitment)s and every deal and draw; result %(result)s",
                **facts,
            )
        return gettext(
            "verified: %(turns)s by %(players)s; the seed matches commitment %(commitment)s "
            "and every deal and draw; ended by adjudication (%(reason)s) with the standings "
            "as they were; result %(result)s",
            reason=self.adjudication,
            **facts,
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
            lazy_gettext(
                "the header has no Seed tag: only a record with its seed revealed can be verified"
            ),
        )
    game = _replay(record)
    if not game.is_over:
        raise RecordError(
            record.last_line,
            lazy_gettext("the game is not over: only a finished game can be verified"),
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
                raise RecordError(
                    entry.line,
                    lazy_gettext(
                        "%(player)s resigns: %(problem)s",
                        player=entry.player,
                        problem=error.lazy_message,
                    ),
                ) from None
        elif isinstance(entry, Adjudication):
            try:
                game.adjudicate(entry.reason)
            except CafeError as error:
                raise RecordError(
                    entry.line, lazy_gettext("adjudicated: %(problem)s", problem=error.lazy_message)
                ) from None
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
            raise RecordError(tags["Players"].line, error.lazy_message) from None
    seed = _seed(tags["Seed"], tags["Commitment"], commitment)
    try:
        game = Game.new(players, seed=seed, options=options)
    except CafeError as error:
        raise RecordError(tags["Players"].line, error.lazy_message) from None
    if list(game.players) != players:
        raise RecordError(
            tags["Players"].line,
            lazy_gettext(
                "seat order %(order)s is not the seed's: %(seed)s",
                order=" ".join(players),
                seed=" ".join(game.players),
            ),
        )
    _check_deal(tags["Deal"], deal, game)
    return game


def _players(tag: Tag) -> list[str]:
    players = tag.value.split()
    if not players:
        raise RecordError(
            tag.line, lazy_gettext("Players: the names in seat order, separated by spaces")
        )
    return players


def _options(tag: Tag) -> Options:
    words = tag.value.split()
    if not words:
        raise RecordError(
            tag.line, lazy_gettext("Options: write 'none' for a game without variants")
        )
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
                lazy_gettext(
                    "Options: cannot read %(word)s: write 'birthday=T', 'coffee_klatsch' or 'none'",
                    word=repr(word),
                ),
            )
    try:
        return Options(birthday=birthday, coffee_klatsch=klatsch)
    except ValueError as error:
        raise RecordError(
            tag.line, lazy_gettext("Options: %(problem)s", problem=str(error))
        ) from None


def _commitment(tag: Tag) -> str:
    if not HEX64.fullmatch(tag.value):
        raise RecordError(
            tag.line, lazy_gettext("Commitment: the SHA-256 of the seed, 64 hex digits")
        )
    return tag.value.lower()


def _seed(tag: Tag, commitment_tag: Tag, commitment: str) -> bytes:
    try:
        seed = bytes.fromhex(tag.value)
    except ValueError:
        raise RecordError(tag.line, lazy_gettext("Seed: the seed's bytes in hex digits")) from None
    digest = fairbag.commitment(seed)
    if digest != commitment:
        raise RecordError(
            tag.line,
            lazy_gettext(
                "Seed does not match the Commitment on line %(line)s: its SHA-256 is "
                "%(digest)s, the Commitment says %(commitment)s",
                line=commitment_tag.line,
                digest=digest,
                commitment=commitment,
            ),
        )
    return seed


def _deal(tag: Tag, seats: int) -> list[list[str]]:
    hands = [read_tiles(tag.line, text) for text in tag.value.split("/")]
    if len(hands) != seats or any(len(hand) != HAND_SIZE for hand in hands):
        raise RecordError(
            tag.line,
            lazy_gettext(
                "Deal: %(size)s tiles for each of the %(seats)s seats, hands separated by '/'",
                size=HAND_SIZE,
                seats=seats,
            ),
        )
    return [list(hand) for hand in hands]


def _check_deal(tag: Tag, deal: list[list[str]], game: Game) -> None:
    for player, recorded, dealt in zip(game.players, deal, game.deal or (), strict=True):
        if recorded != dealt:
            raise RecordError(
                tag.line,
                lazy_gettext(
                    "Deal: %(player)s was dealt %(dealt)s from the seed's bag, not %(recorded)s",
                    player=player,
                    dealt=" ".join(dealt),
                    recorded=" ".join(recorded),
                ),
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
                line,
                lazy_gettext(
                    "one %(tile)s too many: the game has %(count)s, all dealt or drawn",
                    tile=tile,
                    count=TILE_COUNTS[tile],
                ),
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
        raise RecordError(
            line,
            lazy_gettext(
                "turn %(number)s where turn %(expected)s comes next",
                number=number,
                expected=expected,
            ),
        )
    who = {"number": number, "player": turn_line.player}
    if game.is_over:
        raise RecordError(
            line, lazy_gettext("turn %(number)s by %(player)s: the game is already over", **who)
        )
    if turn_line.player != game.player_to_move:
        raise RecordError(
            line,
            lazy_gettext(
                "turn %(number)s is %(mover)s's, not %(player)s's",
                mover=game.player_to_move,
                **who,
            ),
        )
    try:
        result = game.play(turn_line.text, timeout=turn_line.timeout)
    except CafeError as error:
        raise RecordError(
            line,
            lazy_gettext(
                "turn %(number)s by %(player)s: %(problem)s", problem=error.lazy_message, **who
            ),
        ) from None
    if result.points != turn_line.points:
        raise RecordError(
            line,
            lazy_gettext(
                "turn %(number)s by %(player)s scores %(points)s, the record says %(recorded)s",
                points=format(result.points, "+d"),
                recorded=format(turn_line.points, "+d"),
                **who,
            ),
        )
    if result.drawn != turn_line.drawn:
        raise RecordError(
            line,
            lazy_gettext(
                "turn %(number)s by %(player)s draws %(drawn)s from the bag, "
                "the record says %(recorded)s",
                drawn=_tiles_text(result.drawn),
                recorded=_tiles_text(turn_line.drawn),
                **who,
            ),
        )
    if result.eliminated != turn_line.eliminated:
        raise RecordError(
            line,
            lazy_gettext(
                "turn %(number)s by %(player)s eliminates %(player)s, unlike the record", **who
            )
            if result.eliminated
            else lazy_gettext(
                "turn %(number)s by %(player)s does not eliminate %(player)s, unlike the record",
                **who,
            ),
        )


def _tiles_text(tiles: tuple[str, ...]) -> Message:
    return " ".join(tiles) or lazy_gettext("nothing")


def _check_result(game: Game, record: ParsedRecord) -> None:
    tag = record.tags.get("Result")
    if not game.is_over:
        if tag is not None:
            raise RecordError(
                tag.line, lazy_gettext("Result: the game is not over after the last turn")
            )
        return
    expected = result_text(game.standings(), departures(game))
    if tag is None:
        raise RecordError(
            record.last_line,
            lazy_gettext(
                "the game is over after this turn but no Result tag says so: %(expected)s",
                expected=expected,
            ),
        )
    if tag.value not in (expected, result_text(game.standings())):  # older: all "eliminated"
        raise RecordError(
            tag.line, lazy_gettext("Result: the replayed game ends %(expected)s", expected=expected)
        )
