"""The form of a record: tags, turn lines and resignations, read without replaying them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from cafe.errors import InvalidPositionError, NotationError
from cafe.i18n import Message, lazy_gettext
from cafe.tiles import parse_tile

TAGS = (
    "Event",
    "Site",
    "Date",
    "Game",
    "Players",
    "Options",
    "Commitment",
    "Seed",
    "Deal",
    "Result",
)
#: The form of the Date tag's value (PGN's): year, month, day, ``?`` for unknown digits.
DATE = re.compile(r"[0-9?]{4}\.[0-9?]{2}\.[0-9?]{2}")
REQUIRED_TAGS = ("Players", "Options", "Commitment", "Deal")
NO_OPTIONS = "none"
KLATSCH = "coffee_klatsch"
DREW = "drew"
ELIMINATED = "eliminated"
RESIGNS_PREFIX = "--"
RESIGNS = "resigns"
#: A turn played for its player on time-out (a field of the turn line), and a player removed
#: on time-out (``-- PLAYER times out``).
TIMEOUT = "timeout"
TIMES_OUT = "times out"
#: How a player out of the game at its end left it, in the Result tag: the bar's
#: ``eliminated`` (rulebook §7), or the service's ``resigned`` and ``removed on time``.
RESIGNED = "resigned"
REMOVED_ON_TIME = "removed on time"
#: The game ended by adjudication, for a reason outside the rules: ``-- adjudicated: REASON``.
ADJUDICATED = "adjudicated:"

_TAG = re.compile(r'\[([A-Za-z]+) "(.*)"\]')
_TURN = re.compile(r"(\d+)\.\s+([^\s:]+):\s*(.*)")
_POINTS = re.compile(r"[+-]?\d+")
HEX64 = re.compile(r"[0-9a-fA-F]{64}")


class RecordError(InvalidPositionError):
    """A damaged game record: ``line`` is its 1-based line number, ``reason`` what is wrong
    (said in the language in use when it is read)."""

    def __init__(self, line: int, reason: Message) -> None:
        super().__init__(lazy_gettext("line %(line)s: %(reason)s", line=line, reason=reason))
        self.line = line
        self._reason = reason

    @property
    def reason(self) -> str:
        """What is wrong, in the language in use now."""
        return str(self._reason)


@dataclass(frozen=True, slots=True)
class Tag:
    line: int
    value: str


@dataclass(frozen=True, slots=True)
class TurnLine:
    line: int
    number: int
    player: str
    text: str
    points: int
    drawn: tuple[str, ...]
    eliminated: bool
    timeout: bool = False


@dataclass(frozen=True, slots=True)
class Resignation:
    line: int
    player: str
    timeout: bool = False


@dataclass(frozen=True, slots=True)
class Adjudication:
    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class ParsedRecord:
    tags: dict[str, Tag]
    turns: list[TurnLine | Resignation | Adjudication]
    header_end: int

    @property
    def last_line(self) -> int:
        """The line of the last turn (of the header, before any turn): where the end is."""
        return self.turns[-1].line if self.turns else self.header_end


def parse(text: str) -> ParsedRecord:
    """Split a record into its tags and turn lines, checking only their form."""
    tags: dict[str, Tag] = {}
    turns: list[TurnLine | Resignation | Adjudication] = []
    header_end = 1
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if turns:
                raise RecordError(
                    number, lazy_gettext("a tag after the turns: the header comes first")
                )
            name, value = _parse_tag(number, line)
            if name in tags:
                raise RecordError(
                    number,
                    lazy_gettext(
                        "second %(tag)s tag (first on line %(line)s)",
                        tag=name,
                        line=tags[name].line,
                    ),
                )
            _check_tag(number, name, value)
            tags[name] = Tag(number, value)
            header_end = number
        elif line.startswith(f"{RESIGNS_PREFIX} {ADJUDICATED}"):
            turns.append(_parse_adjudication(number, line))
        elif line.startswith(RESIGNS_PREFIX):
            turns.append(_parse_resignation(number, line))
        else:
            turns.append(_parse_turn_line(number, line))
    for name in REQUIRED_TAGS:
        if name not in tags:
            raise RecordError(header_end, lazy_gettext("the header has no %(tag)s tag", tag=name))
    return ParsedRecord(tags, turns, header_end)


def _check_tag(number: int, name: str, value: str) -> None:
    """The form of the descriptive tags (the others are read when the game is replayed)."""
    if name == "Date" and not DATE.fullmatch(value):
        raise RecordError(
            number,
            lazy_gettext("Date %(value)s: write YYYY.MM.DD, e.g. 2026.11.30", value=repr(value)),
        )
    if name in ("Event", "Site", "Game") and not value.strip():
        raise RecordError(
            number, lazy_gettext("%(tag)s is empty: leave the tag out instead", tag=name)
        )


def _parse_tag(number: int, line: str) -> tuple[str, str]:
    match = _TAG.fullmatch(line)
    if match is None:
        raise RecordError(
            number, lazy_gettext('cannot read tag %(line)s: write [Name "value"]', line=repr(line))
        )
    name, value = match.groups()
    if name not in TAGS:
        raise RecordError(
            number,
            lazy_gettext(
                "unknown tag %(tag)s (a record has %(tags)s)", tag=name, tags=", ".join(TAGS)
            ),
        )
    return name, value


def _parse_resignation(number: int, line: str) -> Resignation:
    words = line.split()
    what = " ".join(words[2:])
    if len(words) < 3 or words[0] != RESIGNS_PREFIX or what not in (RESIGNS, TIMES_OUT):
        raise RecordError(
            number,
            lazy_gettext(
                "cannot read %(line)s: write '-- PLAYER resigns' or '-- PLAYER times out'",
                line=repr(line),
            ),
        )
    return Resignation(number, words[1], timeout=what == TIMES_OUT)


def _parse_adjudication(number: int, line: str) -> Adjudication:
    reason = line.removeprefix(f"{RESIGNS_PREFIX} {ADJUDICATED}").strip()
    if not reason:
        raise RecordError(
            number,
            lazy_gettext("cannot read %(line)s: write '-- adjudicated: REASON'", line=repr(line)),
        )
    return Adjudication(number, reason)


def _parse_turn_line(number: int, line: str) -> TurnLine:
    match = _TURN.fullmatch(line)
    fields = [field.strip() for field in match.group(3).split("|")] if match else []
    if match is None or len(fields) < 2 or not fields[0]:
        raise RecordError(
            number,
            lazy_gettext(
                "cannot read %(line)s: a turn line is 'N. PLAYER: TURN | POINTS …'",
                line=repr(line),
            ),
        )
    if not _POINTS.fullmatch(fields[1]):
        raise RecordError(
            number,
            lazy_gettext(
                "cannot read points %(points)s: write +17, -4 or +0", points=repr(fields[1])
            ),
        )
    drawn: tuple[str, ...] | None = None
    eliminated = timeout = False
    for field in fields[2:]:
        word, _, rest = field.partition(" ")
        if word == DREW and drawn is None and rest:
            drawn = read_tiles(number, rest)
        elif field == ELIMINATED and not eliminated:
            eliminated = True
        elif field == TIMEOUT and not timeout:
            timeout = True
        else:
            raise RecordError(
                number,
                lazy_gettext(
                    "cannot read %(field)s: after the points come 'drew TILE …', "
                    "'eliminated' and 'timeout', each at most once",
                    field=repr(field),
                ),
            )
    return TurnLine(
        line=number,
        number=int(match.group(1)),
        player=match.group(2),
        text=fields[0],
        points=int(fields[1]),
        drawn=drawn or (),
        eliminated=eliminated,
        timeout=timeout,
    )


def read_tiles(number: int, text: str) -> tuple[str, ...]:
    try:
        return tuple(parse_tile(word) for word in text.split())
    except NotationError as error:
        raise RecordError(number, error.lazy_message) from None
