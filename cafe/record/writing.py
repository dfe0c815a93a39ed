"""Writing a game's record (the format is described in ``cafe.record``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from cafe.errors import CafeError
from cafe.game import Game
from cafe.i18n import lazy_gettext
from cafe.record.syntax import (
    ADJUDICATED,
    DREW,
    ELIMINATED,
    KLATSCH,
    NO_OPTIONS,
    REMOVED_ON_TIME,
    RESIGNED,
    RESIGNS,
    RESIGNS_PREFIX,
    TIMEOUT,
    TIMES_OUT,
)
from cafe.results import TurnResult
from cafe.standings import Standing
from cafe.state import Options


def write(
    game: Game,
    *,
    reveal_seed: bool,
    site: str | None = None,
    date: str | None = None,
    game_id: str | None = None,
    event: str | None = None,
) -> str:
    """The record of a dealt game; the seed appears only with ``reveal_seed``. ``event``
    (the league, season and division of a league game), ``site``, ``date`` (``YYYY.MM.DD``,
    the start) and ``game_id`` say where and when it was played (the Event, Site, Date and
    Game tags, left out when not given)."""
    deal, commitment, seed = game.deal, game.commitment, game.seed
    if deal is None or commitment is None:
        raise CafeError(
            lazy_gettext("a record starts from the deal: this game was loaded from a position")
        )
    about = (("Event", event), ("Site", site), ("Date", date), ("Game", game_id))
    for name, value in about:
        if value and not value.isprintable():
            raise CafeError(
                lazy_gettext(
                    "the %(tag)s tag must be one line of printable text: %(value)s",
                    tag=name,
                    value=repr(value),
                )
            )
    tags = [
        *((name, value) for name, value in about if value),
        ("Players", " ".join(game.players)),
        ("Options", options_text(game.options)),
        ("Commitment", commitment),
    ]
    if reveal_seed:
        if seed is None:
            raise CafeError(
                lazy_gettext("the seed of this game is unknown, so the record cannot reveal it")
            )
        tags.append(("Seed", seed.hex()))
    tags.append(("Deal", " / ".join(" ".join(hand) for hand in deal)))
    if game.is_over:
        tags.append(("Result", result_text(game.standings(), departures(game))))
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


def departures(game: Game) -> dict[str, str]:
    """How each player who resigned left the game: ``resigned``, or ``removed on time``
    (the others out of it were eliminated at the bar)."""
    return {
        player: REMOVED_ON_TIME if player in game.timed_out else RESIGNED
        for _, player in game.resignations
    }


def result_text(standings: Iterable[Standing], left: Mapping[str, str] | None = None) -> str:
    """The value of the Result tag: the final standings, best first; `left` says how the
    players out of the game left it (`departures`), ``eliminated`` where it does not."""
    return "; ".join(_standing_text(standing, left or {}) for standing in standings)


def _standing_text(standing: Standing, left: Mapping[str, str]) -> str:
    head = f"{standing.place}. {standing.player} {standing.final}"
    if standing.eliminated:
        return f"{head} ({left.get(standing.player, ELIMINATED)})"
    return f"{head} (score {standing.score}, penalty {standing.penalty})"


def _turn_line(number: int, result: TurnResult, *, timeout: bool) -> str:
    fields = [f"{number}. {result.player}: {result.notation}", f"{result.points:+d}"]
    if result.drawn:
        fields.append(f"{DREW} {' '.join(result.drawn)}")
    if result.eliminated:
        fields.append(ELIMINATED)
    if timeout:
        fields.append(TIMEOUT)
    return " | ".join(fields)


def _turn_lines(game: Game) -> list[str]:
    """The turn lines, with each resignation (or removal on time-out) after the turns played
    before it, and the adjudication that ended the game, if any, last."""
    resigned: dict[int, list[str]] = {}
    for played, player in game.resignations:
        how = TIMES_OUT if player in game.timed_out else RESIGNS
        resigned.setdefault(played, []).append(f"{RESIGNS_PREFIX} {player} {how}")
    lines = resigned.get(0, [])
    timeouts = game.timeout_turns
    for number, result in enumerate(game.history, 1):
        lines.append(_turn_line(number, result, timeout=number in timeouts))
        lines += resigned.get(number, [])
    if game.adjudication is not None:
        lines.append(f"{RESIGNS_PREFIX} {ADJUDICATED} {game.adjudication}")
    return lines
