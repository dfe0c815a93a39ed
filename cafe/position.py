"""Positions (docs/formats.md): a game state as a JSON object, checked when loaded.

Every seated joker is written with its nation (``Jm=FR``), even where its chair implies
it, so that a reader needs no board geometry; reading also takes a bare joker on a chair
of one nation, the form positions were written in before. ``birthday_player`` and
``elimination_order`` are fields that may be omitted when null or empty; beyond them a
position may carry ``seed`` (for the shuffle of an omitted bag) and ``adjudicated`` (the
reason a game was ended by adjudication, ``Game.adjudicate``: such a position is over;
written only when set). Loading refuses anything that is not a possible game, naming the
field and the reason.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections import Counter
from typing import Any

from cafe import fairbag
from cafe.board import BAR_VALUES, CHAIR_COUNT, CHAIRS, NATIONS, TABLES
from cafe.errors import CafeError, InvalidPositionError, NotationError
from cafe.players import check_players
from cafe.rules import game_ends
from cafe.state import Options, Seating, State
from cafe.tiles import ALL_TILES, TILE_COUNTS, is_joker, nation_of, parse_tile

REQUIRED = ("players", "to_move", "scores", "hands", "hand_limits", "eliminated", "chairs", "bar")
OPTIONAL = (
    "bag",
    "options",
    "birthday_nation",
    "birthday_player",
    "elimination_order",
    "seed",
    "adjudicated",
)


def chair_texts(seating: Seating) -> dict[int, str]:
    """Seated tiles by chair; every joker carries the nation it counts as (``Jf=FR``), on a
    private chair too, so that the text alone says what it counts as (docs/formats.md)."""
    texts = {}
    for chair in range(1, CHAIR_COUNT + 1):
        tile = seating.tile[chair]
        if tile is not None:
            texts[chair] = f"{tile}={seating.nation[chair]}" if is_joker(tile) else tile
    return texts


def dump(state: State) -> dict[str, Any]:
    """The position of ``state``, with every field, so that ``load`` rebuilds it exactly."""
    data: dict[str, Any] = {
        "players": list(state.players),
        "to_move": state.to_move,
        "scores": list(state.scores),
        "hands": [list(hand) for hand in state.hands],
        "hand_limits": list(state.hand_limits),
        "eliminated": list(state.eliminated),
        "chairs": {str(c): text for c, text in chair_texts(state.seating).items()},
        "bar": list(state.bar),
        "bag": list(state.bag),
        "options": state.options.to_dict(),
        "birthday_nation": state.birthday_nation,
        "birthday_player": state.birthday_player,
        "elimination_order": list(state.elimination_order),
    }
    if state.adjudication is not None:
        data["adjudicated"] = state.adjudication
    return data


def load(data: dict[str, Any]) -> State:
    """Build and check a ``State`` from a position; ``InvalidPositionError`` if impossible."""
    if not isinstance(data, dict):
        raise InvalidPositionError("a position is a JSON object")
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        raise InvalidPositionError(f"position lacks {', '.join(missing)}")
    unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise InvalidPositionError(f"position has unknown fields: {', '.join(unknown)}")
    players = _players(data["players"])
    size = len(players)
    options = _options(data.get("options") or {})
    scores = _int_list(data, "scores", size)
    eliminated = _list(data, "eliminated", size)
    if not all(isinstance(flag, bool) for flag in eliminated):
        raise InvalidPositionError("eliminated: each entry is true or false")
    limits = _int_list(data, "hand_limits", size)
    if any(not 0 <= limit <= 5 for limit in limits):
        raise InvalidPositionError("hand_limits: each limit is between 0 and 5")
    hands = [_tiles(hand, f"hands[{i}]") for i, hand in enumerate(_list(data, "hands", size))]
    seating = _seating(data["chairs"], options)
    bar = _tiles(data["bar"], "bar")
    if len(bar) > len(BAR_VALUES):
        raise InvalidPositionError(f"bar: {len(bar)} tiles on {len(BAR_VALUES)} stools")
    to_move = data["to_move"]
    if not isinstance(to_move, int) or isinstance(to_move, bool) or not 0 <= to_move < size:
        raise InvalidPositionError(f"to_move: a seat number from 0 to {size - 1}")
    used = Counter(t for hand in hands for t in hand) + Counter(bar)
    used += Counter(t for t in seating.tile if t is not None)
    bag = _bag(data, used)
    _check_accounted(used + Counter(bag))
    state = State(
        players=players,
        to_move=to_move,
        scores=scores,
        hands=hands,
        hand_limits=limits,
        eliminated=eliminated,
        seating=seating,
        bar=bar,
        bag=bag,
        options=options,
    )
    _birthday(state, data)
    state.elimination_order = _elimination_order(data, eliminated)
    state.adjudication = _adjudication(data)
    state.over = state.adjudication is not None or game_ends(state)
    if not state.over and eliminated[to_move]:
        raise InvalidPositionError(f"to_move: {players[to_move]} is eliminated")
    return state


def _adjudication(data: dict[str, Any]) -> str | None:
    value = data.get("adjudicated")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or "\n" in value:
        raise InvalidPositionError("adjudicated: the reason the game was ended, one line of text")
    return value


def _players(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise InvalidPositionError("players: a list of 2 to 4 names")
    try:
        return tuple(check_players(value))
    except CafeError as error:
        raise InvalidPositionError(f"players: {error}") from None


def _list(data: dict[str, Any], key: str, size: int) -> list[Any]:
    value = data[key]
    if not isinstance(value, list) or len(value) != size:
        raise InvalidPositionError(f"{key}: a list with one entry per player ({size})")
    return list(value)


def _int_list(data: dict[str, Any], key: str, size: int) -> list[int]:
    value = _list(data, key, size)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise InvalidPositionError(f"{key}: whole numbers")
    return value


#: The tiles as the engine writes them (`parse_tile` returns each of them unchanged).
_TILE_NAMES = frozenset(TILE_COUNTS)


def _tiles(value: Any, where: str) -> list[str]:
    if not isinstance(value, list):
        raise InvalidPositionError(f"{where}: a list of tiles")
    try:
        if _TILE_NAMES.issuperset(value):  # each already a tile, as the engine writes it
            return list(value)
    except TypeError:  # something unhashable among them: read one by one, and refuse
        pass
    try:
        return [parse_tile(t) if isinstance(t, str) else parse_tile(repr(t)) for t in value]
    except NotationError as error:
        raise InvalidPositionError(f"{where}: {error}") from None


def _options(value: Any) -> Options:
    if not isinstance(value, dict) or set(value) - {"birthday", "coffee_klatsch"}:
        raise InvalidPositionError("options: an object with birthday and coffee_klatsch")
    klatsch = value.get("coffee_klatsch", False)
    if not isinstance(klatsch, bool):
        raise InvalidPositionError("options.coffee_klatsch: true or false")
    try:
        return Options(birthday=value.get("birthday"), coffee_klatsch=klatsch)
    except ValueError as error:
        raise InvalidPositionError(f"options: {error}") from None


def _seating(value: Any, options: Options) -> Seating:
    if not isinstance(value, dict):
        raise InvalidPositionError('chairs: an object mapping chair numbers to tiles ("7": "DEf")')
    seating = Seating()
    for key, text in value.items():
        if not isinstance(text, str):
            _chair_number(key)
            raise InvalidPositionError(f"chairs[{key}]: a tile such as DEf or Jf=FR")
        seating.seat(*_chair_entry(key, text))
    for table in TABLES:
        ladies = seating.ladies[table]
        gents = seating.count[table] - ladies
        klatsch = options.coffee_klatsch and seating.count[table] == 4 and ladies in (0, 4)
        if abs(ladies - gents) > 1 and not klatsch:
            raise InvalidPositionError(
                f"chairs: gender balance broken at {table}: {ladies} ladies, {gents} gentlemen"
            )
    return seating


def _chair_number(key: Any) -> int:
    if not str(key).isdigit() or not 1 <= int(key) <= CHAIR_COUNT:
        raise InvalidPositionError(f"chairs: {key!r} is not a chair number (1 to 68)")
    return int(key)


@functools.lru_cache(maxsize=4096, typed=True)
def _chair_entry(key: Any, text: str) -> tuple[int, str, str]:
    """The chair, tile and nation of one entry of `chairs` (`"7": "DEf"`), checked.

    Cached: a position holds up to 68 of them and every load of a game reads them all, while
    the distinct entries are few (a chair, a tile, a declared nation).
    """
    chair = _chair_number(key)
    tile_text, _, declared = text.partition("=")
    tile = _tiles([tile_text], f"chairs[{key}]")[0]
    return chair, tile, _chair_nation(chair, tile, declared.upper())


def _chair_nation(chair: int, tile: str, declared: str) -> str:
    nations = sorted(CHAIRS[chair].nations)
    nation = nation_of(tile)
    if nation is not None:
        if declared or nation not in nations:
            raise InvalidPositionError(
                f"chairs[{chair}]: {tile} cannot sit on chair {chair} ({'/'.join(nations)})"
            )
        return nation
    if not declared and len(nations) == 1:
        return nations[0]
    if declared not in nations:
        raise InvalidPositionError(
            f"chairs[{chair}]: a joker there is declared as one of {', '.join(nations)} "
            f"({tile}={nations[0]})"
        )
    return declared


def _bag(data: dict[str, Any], used: Counter[str]) -> list[str]:
    if "bag" in data:
        return _tiles(data["bag"], "bag")
    rest = [tile for tile in TILE_COUNTS for _ in range(TILE_COUNTS[tile] - used[tile])]
    rest.sort(key=ALL_TILES.index)
    seed = data.get("seed")
    if seed is None:
        text = json.dumps(data, sort_keys=True, default=str)
        seed = hashlib.sha256(text.encode()).hexdigest()
    if not isinstance(seed, str):
        raise InvalidPositionError("seed: text")
    return fairbag.shuffled(rest, seed.encode(), b"bag")


def _check_accounted(found: Counter[str]) -> None:
    problems = []
    for tile in TILE_COUNTS:
        have, want = found[tile], TILE_COUNTS[tile]
        if have != want:
            problems.append(f"{tile} {have} times (the game has {want})")
    if problems:
        raise InvalidPositionError(
            "position must account for exactly the 100 tiles: " + "; ".join(problems)
        )


def _seat(value: Any, size: int) -> bool:
    """Whether ``value`` is a seat number (a JSON integer, not a boolean) of ``size`` seats."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < size


def _birthday(state: State, data: dict[str, Any]) -> None:
    """``birthday_nation`` and ``birthday_player`` (the seat that first reached the
    threshold, null while nobody has: docs/formats.md). Where it is omitted or null
    although a score has reached the threshold, the seat with the highest such score is
    taken (docs/rules.md)."""
    nation = data.get("birthday_nation")
    if nation is not None and nation not in NATIONS:
        raise InvalidPositionError(f"birthday_nation: {nation!r} is not a nation code")
    threshold = state.options.birthday
    if nation is not None and threshold is None:
        raise InvalidPositionError("birthday_nation is set but the birthday variant is off")
    state.birthday_nation = nation
    holder = data.get("birthday_player")
    if holder is None and threshold is not None:
        reached = [s for s, score in enumerate(state.scores) if score >= threshold]
        holder = max(reached, key=lambda s: state.scores[s], default=None)
    if holder is not None and (not _seat(holder, len(state.players)) or threshold is None):
        raise InvalidPositionError("birthday_player: a seat number, with the birthday variant")
    state.birthday_player = holder


def _elimination_order(data: dict[str, Any], eliminated: list[bool]) -> list[int]:
    """The position's ``elimination_order``: the eliminated seats, first out first. A position that
    leaves it out takes the eliminated seats in seat order (docs/rules.md)."""
    out = [seat for seat, flag in enumerate(eliminated) if flag]
    order = data.get("elimination_order")
    if order is None:
        return out
    if (
        not isinstance(order, list)
        or not all(_seat(seat, len(eliminated)) for seat in order)
        or sorted(order) != out
    ):
        raise InvalidPositionError("elimination_order: the eliminated seats, first out first")
    return list(order)
