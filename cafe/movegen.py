"""Every legal turn of the player to move, each with the points it scores (rulebook §4–§8).

Seating turns are found without trying each one on the board. A placement is a *candidate*
when its tile may sit on the free chair by nation. Two placements interact only through a
table both chairs touch, and two chairs share at most one table, so every two-guest turn is
either *independent* (no common table: both placements must be legal on their own, points
add up, order is irrelevant) or *dependent* on exactly one common table, where the pair is
checked and scored together in both orders. The private chairs of a table are equivalent,
so only the lowest free one (and the next, for a second guest at the same table) is tried.
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations

from cafe.board import BAR_VALUES, CHAIRS, NATION_CHAIRS, PRIVATE_CHAIRS, TABLES
from cafe.notation import CHAIR_REFS, Placement, Turn, TurnKind
from cafe.state import CHAIR_TABLES, State, klatsch_points, table_points
from cafe.tiles import GENTLEMAN, LADY, is_joker, nation_of

SEAT = TurnKind.SEAT
_ALL_CHAIRS = tuple(CHAIRS)
_CHAIR_NATIONS = ((), *(tuple(sorted(CHAIRS[c].nations)) for c in CHAIRS))

ScoredTurn = tuple[Turn, int]

# A candidate placement: (tile, chair, nation it counts as, 1 if a lady else 0, Placement).
Candidate = tuple[str, int, str, int, Placement]

# A found turn and its points. A two-guest seating turn is kept as its bare placements:
# building a Turn costs a microsecond, and most found turns are never looked at one by one.
Found = tuple[Turn | tuple[Placement, ...], int]


def as_turn(found: Turn | tuple[Placement, ...]) -> Turn:
    return found if isinstance(found, Turn) else Turn(SEAT, found)


def find_turns(state: State, *, joker_bar: bool = True) -> list[Found]:
    """All legal turns of the player to move with their points; jokers to the bar only
    when nothing else is legal (and ``joker_bar`` allows it)."""
    hand = Counter(state.hands[state.to_move])
    result: list[Found] = []
    candidates = _candidates(state, hand)
    _seating_turns(state, hand, candidates, result)
    if state.options.coffee_klatsch:
        _klatsch_turns(state, hand, result)
    _swap_turns(state, hand, result)
    _bar_turns(state, hand, result, joker_bar=joker_bar)
    return result


def has_legal_turn_besides_joker_bar(state: State) -> bool:
    return bool(find_turns(state, joker_bar=False))


def _placement(tile: str, chair: int, nation: str) -> Placement:
    """The (cached, immutable) placement of a tile counting as ``nation`` on a chair."""
    key = (tile, chair, nation)
    placement = _PLACEMENTS.get(key)
    if placement is None:
        declared = nation if tile[0] == "J" and len(_CHAIR_NATIONS[chair]) == 2 else None
        placement = _PLACEMENTS[key] = Placement(tile, CHAIR_REFS[chair], declared)
    return placement


def _single(candidate: Candidate) -> Turn:
    """The (cached) one-guest turn; a few thousand exist, so they are made once."""
    key = candidate[:3]
    turn = _SINGLES.get(key)
    if turn is None:
        turn = _SINGLES[key] = Turn.seat(candidate[4])
    return turn


_PLACEMENTS: dict[tuple[str, int, str], Placement] = {}
_SINGLES: dict[tuple[str, int, str], Turn] = {}

#: For each private chair, the lower-numbered private chairs of its table: the chair
#: represents its table's private chairs when all of those are taken.
_LOWER_PRIVATE: tuple[tuple[int, ...], ...] = (
    (),
    *(
        () if CHAIRS[c].shared else tuple(x for x in PRIVATE_CHAIRS[CHAIRS[c].tables[0]] if x < c)
        for c in CHAIRS
    ),
)


def _candidates(state: State, hand: Counter[str]) -> dict[int, list[Candidate]]:
    """Candidate placements by chair, on shared chairs and each table's lowest free private
    chair."""
    tile_at = state.seating.tile
    by_chair: dict[int, list[Candidate]] = {}
    for tile in hand:
        nation = nation_of(tile)
        lady = 1 if tile[-1] == LADY else 0
        for chair in _ALL_CHAIRS if nation is None else NATION_CHAIRS[nation]:
            if tile_at[chair] is not None:
                continue
            lower = _LOWER_PRIVATE[chair]
            if lower and not all(tile_at[c] for c in lower):
                continue
            bucket = by_chair.setdefault(chair, [])
            for counted in _CHAIR_NATIONS[chair] if nation is None else (nation,):
                bucket.append((tile, chair, counted, lady, _placement(tile, chair, counted)))
    return by_chair


def _seating_turns(
    state: State,
    hand: Counter[str],
    candidates: dict[int, list[Candidate]],
    out: list[Found],
) -> None:
    seating = state.seating
    count, ladies, table_nation = seating.count, seating.ladies, seating.table_nation
    birthday = state.birthday_nation
    empty_board = seating.seated == 0
    singles: list[tuple[Candidate, int]] = []
    for chair, bucket in candidates.items():
        tables = CHAIR_TABLES[chair]
        # Balance after one more guest: |2·ladies − guests| ≤ 1 at each table; ``skew`` is
        # 2·ladies − guests with a gentleman added, a lady adds 2 to it.
        first = tables[0]
        company = count[first] > 0
        skew = 2 * ladies[first] - count[first] - 1
        fits = [-1 <= skew <= 1, -3 <= skew <= -1]
        if len(tables) == 2:
            second = tables[1]
            company = company or count[second] > 0
            skew = 2 * ladies[second] - count[second] - 1
            fits = [fits[0] and -1 <= skew <= 1, fits[1] and -3 <= skew <= -1]
        for cand in bucket:
            nation, lady = cand[2], cand[3]
            if not fits[lady]:
                continue
            if company:
                points = 0
                for t in tables:
                    n = count[t] + 1
                    if n > 1:
                        pts = 2 * n if table_nation[t] == nation else n
                        points += 2 * pts if t[:2] == birthday else pts
                singles.append((cand, points))
                out.append((_single(cand), points))
            elif empty_board:
                out.append((_single(cand), 0))
    _independent_pairs(hand, singles, out)
    _dependent_pairs(state, hand, candidates, out)


def _independent_pairs(
    hand: Counter[str], singles: list[tuple[Candidate, int]], out: list[Found]
) -> None:
    for i, (first, first_points) in enumerate(singles):
        tile, chair = first[0], first[1]
        tables = CHAIR_TABLES[chair]
        twice = hand[tile] >= 2
        for second, second_points in singles[i + 1 :]:
            if second[0] == tile and not twice:
                continue
            other = CHAIR_TABLES[second[1]]
            if other[0] in tables or (len(other) == 2 and other[1] in tables):
                continue
            out.append(((first[4], second[4]), first_points + second_points))


def _dependent_pairs(
    state: State,
    hand: Counter[str],
    candidates: dict[int, list[Candidate]],
    out: list[Found],
) -> None:
    """Pairs of guests at one common table, found from the tables candidates touch."""
    count = state.seating.count
    tile_at = state.seating.tile
    by_table: dict[str, list[int]] = {}
    for chair in candidates:
        for table in CHAIR_TABLES[chair]:
            if count[table] <= 2:
                by_table.setdefault(table, []).append(chair)
    for table, chairs in by_table.items():
        private = [c for c in PRIVATE_CHAIRS[table] if tile_at[c] is None]
        if len(chairs) < 2 and len(private) < 2:
            continue
        options = [_options_at(state, table, candidates[chair]) for chair in chairs]
        for i, x in enumerate(chairs):
            for j in range(i + 1, len(chairs)):
                _pair_at(state, table, hand, options[i], options[j], out)
            if len(private) >= 2 and x == private[0]:
                _private_pair_at(state, table, hand, options[i], private[1], out)


# A candidate seen from one of its chair's tables: (tile, nation, lady, placement, points at
# the chair's other table, points at this table if placed first).
Option = tuple[str, str, int, Placement, int, int]


def _options_at(state: State, table: str, bucket: list[Candidate]) -> list[Option]:
    """The chair's candidates that keep its other table (if any) balanced, with points."""
    seating = state.seating
    n = seating.count[table]
    here = seating.table_nation[table]
    doubled = table[:2] == state.birthday_nation
    other = _OTHER_TABLE[bucket[0][1]].get(table)
    options = []
    for tile, _, nation, lady, placement in bucket:
        extra = _lone_points(state, other, nation, lady) if other else 0
        if extra is not None:
            first = table_points(n + 1, here is None or here == nation, doubled)
            options.append((tile, nation, lady, placement, extra, first))
    return options


def _pair_at(
    state: State,
    table: str,
    hand: Counter[str],
    at_x: list[Option],
    at_y: list[Option],
    out: list[Found],
) -> None:
    """Two guests on two chairs of ``table``, in both orders where the points differ."""
    seating = state.seating
    n = seating.count[table]
    ladies = 2 * seating.ladies[table] - n - 2
    here = seating.table_nation[table]
    doubled = table[:2] == state.birthday_nation
    for tile_x, nation_x, lady_x, place_x, extra_x, first_x in at_x:
        pair_ladies = ladies + 2 * lady_x
        alone_x = here is None or here == nation_x
        for tile_y, nation_y, lady_y, place_y, extra_y, first_y in at_y:
            if (tile_x == tile_y and hand[tile_x] < 2) or abs(pair_ladies + 2 * lady_y) > 1:
                continue
            both = nation_x == nation_y and alone_x
            base = extra_x + extra_y + table_points(n + 2, both, doubled)
            out.append(((place_x, place_y), base + first_x))
            if first_y != first_x:
                out.append(((place_y, place_x), base + first_y))


def _private_pair_at(
    state: State,
    table: str,
    hand: Counter[str],
    at_low: list[Option],
    second: int,
    out: list[Found],
) -> None:
    """Two guests on the two lowest free private chairs of ``table``: the chairs are
    equivalent, so each order of the two tiles is one turn."""
    seating = state.seating
    n = seating.count[table]
    ladies = 2 * seating.ladies[table] - n - 2
    here = seating.table_nation[table]
    doubled = table[:2] == state.birthday_nation
    for tile_x, nation_x, lady_x, place_x, _, first_x in at_low:
        alone_x = here is None or here == nation_x
        for tile_y, nation_y, lady_y, _, _, _ in at_low:
            if (tile_x == tile_y and hand[tile_x] < 2) or abs(ladies + 2 * (lady_x + lady_y)) > 1:
                continue
            both = nation_x == nation_y and alone_x
            points = first_x + table_points(n + 2, both, doubled)
            place_y = _placement(tile_y, second, nation_y)
            out.append(((place_x, place_y), points))


#: For each chair, the other table of a shared chair keyed by one of its tables.
_OTHER_TABLE: tuple[dict[str, str], ...] = (
    {},
    *({a: b, b: a} if len(t := CHAIRS[c].tables) == 2 and (a := t[0]) and (b := t[1]) else {}
      for c in CHAIRS),
)  # fmt: skip


def _lone_points(state: State, table: str, nation: str, lady: int) -> int | None:
    """Points of one guest added to ``table``, or ``None`` if that breaks its gender balance."""
    seating = state.seating
    n = seating.count[table] + 1
    if abs(2 * (seating.ladies[table] + lady) - n) > 1:
        return None
    single = seating.table_nation[table] in (None, nation)
    return table_points(n, single, table[:2] == state.birthday_nation)


def _klatsch_turns(state: State, hand: Counter[str], out: list[Found]) -> None:
    """Fill one table with four ladies or four gentlemen in one turn (rulebook §11)."""
    seating = state.seating
    seen: set[str] = set()
    for table, info in TABLES.items():
        guests = seating.count[table]
        if guests > 1:
            continue
        free = [c for c in info.chairs if seating.tile[c] is None]
        genders = (
            (LADY, GENTLEMAN) if guests == 0 else (LADY if seating.ladies[table] else GENTLEMAN,)
        )
        for gender in genders:
            tiles = [t for t, k in hand.items() for _ in range(k) if t[-1] == gender]
            if len(tiles) < len(free):
                continue
            for chosen in set(permutations(tiles, len(free))):
                _klatsch_assignments(state, table, free, chosen, seen, out)


def _klatsch_assignments(
    state: State,
    table: str,
    free: list[int],
    chosen: tuple[str, ...],
    seen: set[str],
    out: list[Found],
) -> None:
    options: list[list[tuple[str, int, str]]] = [[]]
    for tile, chair in zip(chosen, free, strict=True):
        nation = nation_of(tile)
        allowed = _CHAIR_NATIONS[chair] if nation is None else (nation,)
        if nation is not None and nation not in _CHAIR_NATIONS[chair]:
            return
        options = [[*done, (tile, chair, n)] for done in options for n in allowed]
    lady = 1 if chosen[0][-1] == LADY else 0
    for assignment in options:
        points = 0
        for _, chair, nation in assignment:
            other = _OTHER_TABLE[chair].get(table)
            if other:
                extra = _lone_points(state, other, nation, lady)
                if extra is None:
                    break
                points += extra
        else:
            nations: set[str | None] = {nation for _, _, nation in assignment}
            nations.update(state.seating.nation[c] for c in TABLES[table].chairs if c not in free)
            single = len(nations) == 1
            birthday = table[:2] == state.birthday_nation
            points += klatsch_points(single, birthday)
            turn = Turn.seat(*(_placement(t, c, n) for t, c, n in assignment))
            text = str(turn)
            if text not in seen:
                seen.add(text)
                out.append((turn, points))


def _swap_turns(state: State, hand: Counter[str], out: list[Found]) -> None:
    tile_at = state.seating.tile
    seen: set[str] = set()
    for chair in sorted(state.seating.jokers):
        joker: str = tile_at[chair]  # type: ignore[assignment]  # a chair in `jokers` holds one
        for tile in hand:
            if is_joker(tile) or tile[-1] != joker[-1]:
                continue
            if nation_of(tile) in _CHAIR_NATIONS[chair]:
                turn = Turn.swap(Placement(tile, CHAIR_REFS[chair]))
                text = str(turn)
                if text not in seen:
                    seen.add(text)
                    out.append((turn, 0))


def _bar_turns(state: State, hand: Counter[str], out: list[Found], *, joker_bar: bool) -> None:
    if len(state.bar) >= len(BAR_VALUES):
        return
    value = BAR_VALUES[len(state.bar)]
    points = 0 if state.scores[state.to_move] + value < 0 else value
    ordinary = [tile for tile in hand if not is_joker(tile)]
    if ordinary:
        out.extend((Turn.bar(tile), points) for tile in ordinary)
    elif joker_bar and not out:
        out.extend((Turn.bar(tile), points) for tile in hand)
