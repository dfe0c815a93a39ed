"""What a game page shows, computed from the stored game: the board as SVG with a text
alternative, the players (the viewer first), the history (turns played on time-out and
players leaving marked), a league game's league, a finished game's standings and why it
ended, and, on the viewer's turn, the best turns to play with one click.

Like the API's JSON (`server.games.public`), it copies only public facts out of the
snapshot: the bag is counted, never listed, and the seed appears only once the game is over.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from markupsafe import Markup
from sqlmodel import Session

from cafe import Game, i18n
from cafe.board import CHAIRS, NATIONS, TABLES
from cafe.endings import TIMEOUT_MARK, Departure
from cafe.i18n import gettext, nation_name, ngettext
from cafe.render import quantities, svg
from cafe.render.board_svg import describe_tile
from cafe.render.common import shared_first
from server.clock import timesource
from server.clock.store import seat_clocks
from server.games import store
from server.league.labels import LeagueLabel
from server.mail import times
from server.models import (
    GameRecord,
    GameStatus,
    Player,
    TurnKind,
    TurnRecord,
    departure_of,
    why_over,
)

#: How many best turns a player is offered as buttons.
HINTS = 5
#: How many game versions the process keeps drawn (a board is about 30 KB).
VERSIONS_KEPT = 256


@dataclass(frozen=True, slots=True)
class PlayerRow:
    """One player's line: the viewer's own comes first."""

    seat: int
    name: str
    score: int
    hand_limit: int
    hand: list[str]
    out: bool
    to_move: bool
    you: bool
    away_until: str | None = None
    timeouts: int = 0
    left: Departure | None = None


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One entry of the log, in words: a turn's notation and points, marked when it was
    played on time-out or put its player out at the bar; or a player leaving (`left`,
    said in `text`)."""

    number: int
    player: str
    text: str
    points: int | None
    marks: tuple[str, ...] = ()
    left: Departure | None = None

    @property
    def leaving(self) -> bool:
        """Whether the line is a player leaving, said in words (a bar turn that put its
        player out is a turn, marked)."""
        return self.left is not None and self.left is not Departure.ELIMINATED


def history_line(entry: TurnRecord, player: str) -> HistoryLine:
    """The log entry `entry` of `player` as the page's history shows it, in the language
    in use."""
    if entry.kind == TurnKind.END:
        said = gettext(
            "the game was adjudicated by %(player)s: %(reason)s",
            player=entry.detail["by"],
            reason=entry.detail["reason"],
        )
        return HistoryLine(entry.number, player, said, None)
    left = departure_of(entry.kind, entry.detail)
    if left is not None and left is not Departure.ELIMINATED:
        return HistoryLine(entry.number, player, left.sentence(player), None, left=left)
    marks: tuple[str, ...] = (gettext(TIMEOUT_MARK),) if entry.kind == TurnKind.TIMEOUT else ()
    if left is Departure.ELIMINATED:
        marks += (left.words,)
    return HistoryLine(entry.number, player, entry.notation, entry.points, marks, left)


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of a finished game's final standings: a player still in at the end with
    the penalty for the tiles left in hand, or one who left before and how."""

    place: int
    player: str
    score: int
    penalty: int
    final: int
    left: Departure | None


@dataclass(slots=True)
class GameView:
    """Everything `templates/web/game.html` needs."""

    game: GameRecord
    players: list[str]
    creator: str
    viewer: Player | None
    board: Markup | None = None
    tables_text: list[str] = field(default_factory=list)
    bar: list[str] = field(default_factory=list)
    rows: list[PlayerRow] = field(default_factory=list)
    history: list[HistoryLine] = field(default_factory=list)
    hints: list[dict[str, Any]] = field(default_factory=list)
    league: LeagueLabel | None = None
    standings: list[StandingRow] = field(default_factory=list)
    why_over: str | None = None
    headline: str = ""
    bag_size: int = 0
    deadline: str | None = None
    time_left: str | None = None
    urgent: bool = False
    #: While the league season's clocks are paused: since when, and why.
    paused: tuple[str, str] | None = None
    #: Each nation's name in the language in use, by code.
    nations: dict[str, str] = field(
        default_factory=lambda: {code: nation_name(code) for code in NATIONS}
    )
    birthday_offer: str | None = None
    noshrink_offer: bool = False

    @property
    def my_hand(self) -> list[str]:
        """The viewer's own tiles (none when they do not play here)."""
        return next((row.hand for row in self.rows if row.you), [])

    @property
    def your_turn(self) -> bool:
        """Whether the viewer is the player to move."""
        return any(row.you and row.to_move for row in self.rows)

    @property
    def finished(self) -> bool:
        return self.game.status == GameStatus.FINISHED


def _last_chairs(log: list[TurnRecord]) -> set[int]:
    """The chairs the latest played turn seated guests on."""
    for entry in reversed(log):
        if entry.kind == TurnKind.TURN:
            return {t["chair"] for t in entry.detail.get("tables", []) if t.get("chair")}
    return set()


def _tables_in_words(engine: Game) -> list[str]:
    """Each table's guests in words: the board's text alternative, in the language in use."""
    seated = engine.chair_tiles
    lines = []
    for table in TABLES.values():
        guests = [describe_tile(seated[c]) for c in table.chairs if c in seated]
        if guests:
            lines.append(
                gettext(
                    "%(table)s (%(nation)s): %(guests)s",
                    table=table.id,
                    nation=nation_name(table.nation),
                    guests=", ".join(guests),
                )
            )
    free = sum(1 for number in CHAIRS if number not in seated)
    lines.append(
        ngettext(
            "%(num)s of %(chairs)s chairs is free",
            "%(num)s of %(chairs)s chairs are free",
            free,
            chairs=len(CHAIRS),
        )
    )
    return lines


@dataclass(slots=True)
class Version:
    """What a game shows at one version, the same for every viewer who reads its language:
    the position, the board as SVG with its text alternative, the history and (once asked
    for) the mover's best turns."""

    engine: Game
    board: Markup
    in_words: tuple[str, ...]
    history: tuple[HistoryLine, ...]
    departures: dict[str, Departure] = field(default_factory=dict)
    hints: tuple[dict[str, Any], ...] | None = None


def _version(game: GameRecord, log: list[TurnRecord]) -> Version:
    assert game.state is not None
    engine = Game.from_position(game.state)
    history = tuple(history_line(entry, engine.players[entry.seat]) for entry in reversed(log))
    return Version(
        engine,
        Markup(svg(engine, frame=False, highlight=_last_chairs(log), targets=True)),
        tuple(_tables_in_words(engine)),
        history,
        {line.player: line.left for line in history if line.left is not None},
    )


class VersionCache:
    """The latest game versions shown, least recently shown dropped first.

    Drawing the SVG board costs more than the rest of the page together, and nothing in a
    `Version` changes until the game's version does, so each is built once for each language
    it is read in (and the turn log read once for each). The key holds the game's commitment
    besides its id and version: it differs between every two dealt games, so no other
    database's game of the same id is ever shown (tests run many apps in one process).
    Entries are shared between threads and only read.
    """

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._versions: OrderedDict[tuple[int | None, int, str | None, str], Version] = (
            OrderedDict()
        )
        self._lock = threading.Lock()

    def get(self, session: Session, game: GameRecord) -> Version:
        """The started `game` at its version, in the language in use."""
        key = (game.id, game.version, game.commitment, i18n.current())
        with self._lock:
            found = self._versions.get(key)
            if found is not None:
                self._versions.move_to_end(key)
                return found
        built = _version(game, store.turn_log(session, game))
        with self._lock:
            self._versions[key] = built
            while len(self._versions) > self.kept:
                self._versions.popitem(last=False)
        return built

    def hints(self, version: Version) -> tuple[dict[str, Any], ...]:
        """The mover's best turns at `version` (found once)."""
        if version.hints is None:
            found = version.engine.hints(HINTS)
            version.hints = tuple({"turn": str(h.turn), "points": h.points} for h in found)
        return version.hints


VERSIONS = VersionCache(VERSIONS_KEPT)


def _seated_nation(tile: str) -> str:
    """The nation a seated guest counts as (a seated joker always has one: `Jf=FR`)."""
    base, _, declared = tile.partition("=")
    return declared or base[:2]


def _may_complete_one_nation_table(engine: Game) -> bool:
    """Whether a turn might complete a table of four guests of one nation (rulebook §9):
    a table short of at most as many guests as a turn seats, all of one nation so far."""
    most = 4 if engine.options.coffee_klatsch else 2
    seated = engine.chair_tiles
    for table in TABLES.values():
        guests = [_seated_nation(seated[c]) for c in table.chairs if c in seated]
        if len(guests) < 4 and len(guests) >= 4 - most and len(set(guests)) <= 1:
            return True
    return False


def _birthday_offer(engine: Game, seat: int, best: int) -> str | None:
    """What the page says when the mover may name the birthday nation this turn (rulebook
    §11): they reached the threshold first, or their best turn would get them there while
    nobody has; None when they may not."""
    threshold = engine.options.birthday
    if threshold is None or engine.birthday_nation is not None:
        return None
    if engine.birthday_player == seat:
        return ngettext(
            "You reached %(num)s point first: name the birthday nation",
            "You reached %(num)s points first: name the birthday nation",
            threshold,
        )
    if engine.birthday_player is None and engine.scores[seat] + best >= threshold:
        return ngettext(
            "If this turn brings you to %(num)s point, name the birthday nation",
            "If this turn brings you to %(num)s points, name the birthday nation",
            threshold,
        )
    return None


def _headline(view: GameView, engine: Game | None) -> str:
    if engine is None:
        return gettext(
            "Waiting for players: %(seated)s of %(seats)s seated",
            seated=len(view.players),
            seats=view.game.seats,
        )
    if engine.is_over:
        first = [s for s in engine.standings() if s.place == 1]
        return shared_first([s.player for s in first], first[0].final)
    mover = engine.player_to_move
    if view.viewer and view.viewer.name == mover:
        return gettext("Your turn")
    return gettext("%(player)s to move", player=mover)


def _standings(game: GameRecord) -> list[StandingRow]:
    """The finished game's stored final standings, best first."""
    return [
        StandingRow(
            place=line["place"],
            player=line["player"],
            score=line["score"],
            penalty=line["penalty"],
            final=line["final"],
            left=Departure(line["left"]) if line.get("left") else None,
        )
        for line in game.standings or []
    ]


def build(
    session: Session,
    game: GameRecord,
    creator: str,
    viewer: Player | None,
    league: LeagueLabel | None = None,
) -> GameView:
    """The page's view of `game` for `viewer` (None: signed out); `league`: the league of a
    league game."""
    view = GameView(game, store.names_of(session, game), creator, viewer, league=league)
    if game.state is None:
        view.headline = _headline(view, None)
        return view
    version = VERSIONS.get(session, game)
    engine = version.engine
    zone_name = viewer.timezone if viewer is not None else "UTC"
    now = timesource.now()
    if game.deadline is not None and not engine.is_over:
        view.deadline = times.local(game.deadline, zone_name)
        left = quantities.time_left(game.deadline - now)
        view.time_left = left[:1].upper() + left[1:]  # it begins the page's sentence
        view.urgent = quantities.urgent(game.deadline - now)
    if engine.is_over:
        view.standings = _standings(game)
        view.why_over = why_over(engine, game.ending, game.standings or [])
    held = next((hold for hold in game.clock_holds if hold["end"] is None), None)
    if held is not None and not engine.is_over:
        since = times.local(datetime.fromisoformat(held["start"]), zone_name)
        view.paused = (since, held["reason"])
    clocks = seat_clocks(game, list(engine.players), now)
    view.board = version.board
    view.tables_text = list(version.in_words)
    view.bar = list(engine.bar)
    view.bag_size = engine.bag_size
    me = viewer.name if viewer else None
    view.rows = sorted(
        (
            PlayerRow(
                seat=seat,
                name=name,
                score=engine.scores[seat],
                hand_limit=engine.hand_limits[seat],
                hand=list(engine.hands[seat]),
                out=engine.eliminated[seat],
                to_move=not engine.is_over and seat == engine.to_move,
                you=name == me,
                away_until=(
                    None
                    if (until := clocks.vacation_until[seat]) is None
                    else times.local(until, zone_name)
                ),
                timeouts=clocks.timeouts[seat],
                left=version.departures.get(name),
            )
            for seat, name in enumerate(engine.players)
        ),
        key=lambda row: (not row.you, row.seat),
    )
    view.history = list(version.history)
    view.headline = _headline(view, engine)
    if view.your_turn:
        view.hints = list(VERSIONS.hints(version))
        best = max((hint["points"] for hint in view.hints), default=0)
        view.birthday_offer = _birthday_offer(engine, engine.to_move, best)
        view.noshrink_offer = _may_complete_one_nation_table(engine)
    return view
